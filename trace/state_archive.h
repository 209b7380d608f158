// One function per stateful class moves its state into or out of a byte stream:
// `transfer_state(StateArchive&)` lists the fields once, and the same list saves
// (Mode::Save), validates without changing anything (Mode::Check) and applies
// (Mode::Load) a machine snapshot (platform/snapshot/machine_state.h, docs/snapshots.md).
// Values are little-endian, at their declared width; a bool is one byte 0 or 1.
#pragma once
#include <array>
#include <bitset>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "trace/types.h"

namespace x86lab {

// A stream that does not decode as the state it should hold: too short, too long, or
// a value outside its field's range. The message names the field.
class StateArchiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class StateArchive {
 public:
  enum class Mode : u8 { Save, Check, Load };

  // Save: appends to an empty buffer (bytes()). Check, Load: reads `bytes`, which
  // must stay alive while the archive is used.
  StateArchive() : mode_(Mode::Save) {}
  StateArchive(Mode mode, const std::vector<u8>& bytes) : mode_(mode), in_(&bytes) {}

  Mode mode() const { return mode_; }
  bool saving() const { return mode_ == Mode::Save; }
  bool loading() const { return mode_ == Mode::Load; }
  const std::vector<u8>& bytes() const { return out_; }
  std::vector<u8> take_bytes() { return std::move(out_); }
  // Throws StateArchiveError unless every byte was read (Check, Load).
  void expect_end(const char* what) const {
    if (mode_ != Mode::Save && position_ != in_->size())
      throw StateArchiveError(std::string(what) + ": " + std::to_string(in_->size() - position_) + " bytes too many");
  }

  // An integer, enum or bool. An enum or integer may be bounded: a loaded value above
  // `max` is refused (`name` says which field in the message).
  template <class T>
  void field(T& value, const char* name = "field", u64 max = ~u64{0}) {
    static_assert(std::is_integral_v<T> || std::is_enum_v<T>);
    using Raw = std::conditional_t<std::is_same_v<T, bool>, u8, T>;
    if (saving()) {
      const Raw raw = static_cast<Raw>(value);
      put(&raw, sizeof raw);
      return;
    }
    Raw raw;
    get(&raw, sizeof raw, name);
    u64 wide;
    if constexpr (std::is_enum_v<T>) wide = static_cast<u64>(static_cast<std::underlying_type_t<T>>(raw));
    else wide = static_cast<u64>(raw);
    if constexpr (std::is_same_v<T, bool>) max = 1;
    if constexpr (std::is_signed_v<Raw>) {
      if (max != ~u64{0} && (static_cast<i64>(raw) < 0 || wide > max)) out_of_range(name);
    } else if (wide > max) {
      out_of_range(name);
    }
    if (loading()) value = static_cast<T>(raw);
  }
  // field() for a local copy that the caller acts on (a count, a flag): it is set in
  // check mode too, where field() leaves the object alone.
  template <class T>
  void local(T& value, const char* name = "field", u64 max = ~u64{0}) {
    const Mode mode = mode_;
    if (mode_ == Mode::Check) mode_ = Mode::Load;
    field(value, name, max);
    mode_ = mode;
  }
  template <class Container>
  void local_sequence(Container& values, const char* name, u64 max_size) {
    const Mode mode = mode_;
    if (mode_ == Mode::Check) mode_ = Mode::Load;
    sequence(values, name, max_size);
    mode_ = mode;
  }
  // array() of a local copy: set in check mode too.
  template <class T, std::size_t N>
  void local_array(T (&values)[N], const char* name = "array") {
    for (T& value : values) local(value, name);
  }
  template <class T, std::size_t N>
  void array(std::array<T, N>& values, const char* name = "array", u64 max = ~u64{0}) {
    for (T& value : values) field(value, name, max);
  }
  template <class T, std::size_t N>
  void array(T (&values)[N], const char* name = "array", u64 max = ~u64{0}) {
    for (T& value : values) field(value, name, max);
  }
  template <std::size_t N>
  void bits(std::bitset<N>& set, const char* name = "bitset") {
    for (std::size_t i = 0; i < N; ++i) {
      bool bit = set[i];
      field(bit, name);
      if (loading()) set[i] = bit;
    }
  }
  // A sequence of integers with its length (u32), at most `max_size` elements.
  template <class Container>
  void sequence(Container& values, const char* name, u64 max_size) {
    u32 size = static_cast<u32>(values.size());
    local(size, name, max_size);
    if (saving()) {
      for (auto& value : values) field(value, name);
      return;
    }
    Container loaded(size);
    for (auto& value : loaded) field(value, name);
    if (loading()) values = std::move(loaded);
  }
  // A sequence whose length the loading object already has (a model's geometry):
  // its length (u32) must equal values.size().
  template <class Container>
  void same_size_sequence(Container& values, const char* name) {
    u32 size = static_cast<u32>(values.size());
    local(size, name);
    if (size != values.size()) throw StateArchiveError(std::string(name) + ": another size than this machine's");
    for (auto& value : values) field(value, name);
  }
  // Raw bytes of a known length.
  void raw(u8* data, std::size_t size, const char* name) {
    if (saving()) put(data, size);
    else if (loading()) get(data, size, name);
    else skip(size, name);
  }

 private:
  void put(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const u8*>(data);
    out_.insert(out_.end(), bytes, bytes + size);
  }
  void get(void* data, std::size_t size, const char* name) {
    if (in_->size() - position_ < size) throw StateArchiveError(std::string(name) + ": the data ends early");
    std::memcpy(data, in_->data() + position_, size);
    position_ += size;
  }
  void skip(std::size_t size, const char* name) {
    if (in_->size() - position_ < size) throw StateArchiveError(std::string(name) + ": the data ends early");
    position_ += size;
  }
  [[noreturn]] static void out_of_range(const char* name) {
    throw StateArchiveError(std::string(name) + ": value out of range");
  }

  Mode mode_;
  std::vector<u8> out_;
  const std::vector<u8>* in_ = nullptr;
  std::size_t position_ = 0;
};

}  // namespace x86lab
