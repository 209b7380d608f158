// Little-endian byte images of firmware tables (the MultiProcessor Specification's and
// ACPI's tables are packed little-endian structures whose bytes sum to 0 mod 256).
#pragma once
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/types.h"

namespace x86lab {

class TableBytes {
 public:
  void put8(u8 value) { bytes_.push_back(value); }
  void put16(u16 value) { put(value, 2); }
  void put32(u32 value) { put(value, 4); }
  void put64(u64 value) { put(value, 8); }
  // `text` padded with `pad` (or cut) to exactly `size` bytes.
  void text(std::string_view text, std::size_t size, char pad = ' ') {
    for (std::size_t i = 0; i < size; ++i) bytes_.push_back(static_cast<u8>(i < text.size() ? text[i] : pad));
  }
  void zeros(std::size_t size) { bytes_.insert(bytes_.end(), size, 0); }
  // Overwrites `size` (1, 2 or 4) bytes at `offset`.
  void patch(std::size_t offset, u32 value, unsigned size) {
    for (unsigned i = 0; i < size; ++i) bytes_[offset + i] = static_cast<u8>(value >> (8 * i));
  }
  // Sets the byte at `offset` so that bytes [begin, end) sum to 0 mod 256.
  void set_checksum(std::size_t offset, std::size_t begin, std::size_t end) {
    bytes_[offset] = 0;
    u8 sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum = static_cast<u8>(sum + bytes_[i]);
    bytes_[offset] = static_cast<u8>(-sum);
  }
  std::size_t size() const { return bytes_.size(); }
  const std::vector<u8>& bytes() const { return bytes_; }
  std::vector<u8> take() { return std::move(bytes_); }

 private:
  void put(u64 value, unsigned size) {
    for (unsigned i = 0; i < size; ++i) bytes_.push_back(static_cast<u8>(value >> (8 * i)));
  }
  std::vector<u8> bytes_;
};

// The sum of `bytes` mod 256 (0 for a valid table).
inline u8 byte_sum(const std::vector<u8>& bytes, std::size_t begin = 0, std::size_t end = ~std::size_t{0}) {
  u8 sum = 0;
  for (std::size_t i = begin; i < bytes.size() && i < end; ++i) sum = static_cast<u8>(sum + bytes[i]);
  return sum;
}

}  // namespace x86lab
