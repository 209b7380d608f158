// Binary trace writer and reader (format version 3, reading 2 and 3; docs/trace-format.md).
#include "trace/binary_format.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "trace/input_file.h"

namespace x86lab {

BinaryTraceWriter::BinaryTraceWriter(std::FILE* file) : file_(file) {
  buffer_.reserve(1 << 17);
  buffer_.insert(buffer_.end(), std::begin(kTraceMagic), std::end(kTraceMagic));
  for (int i = 0; i < 4; ++i) buffer_.push_back(static_cast<u8>(kTraceVersion >> (8 * i)));
  for (int i = 0; i < 4; ++i) buffer_.push_back(0);
}

namespace {
// Appends `value` as unsigned LEB128 at `out`; returns the new end.
u8* encode_varint(u8* out, u64 value) {
  while (value >= 0x80) {
    *out++ = static_cast<u8>(value | 0x80);
    value >>= 7;
  }
  *out++ = static_cast<u8>(value);
  return out;
}
}  // namespace

void BinaryTraceWriter::put_varint(u64 value) {
  u8 bytes[10];
  buffer_.insert(buffer_.end(), bytes, encode_varint(bytes, value));
}

void BinaryTraceWriter::write(const Event& e) {
  // A record is at most 1 + 3 * 10 + 3 + 4 * 10 + 15 + 10 bytes before its string.
  u8 record[112];
  u8* out = record;
  *out++ = static_cast<u8>(e.kind);
  out = encode_varint(out, e.instruction - last_instruction_);
  out = encode_varint(out, e.cycle - last_cycle_);
  last_instruction_ = e.instruction;
  last_cycle_ = e.cycle;
  *out++ = e.detail;
  *out++ = e.flags;
  *out++ = e.size;
  out = encode_varint(out, e.a);
  out = encode_varint(out, e.b);
  out = encode_varint(out, e.c);
  out = encode_varint(out, e.value);
  if (e.kind == EventKind::Instruction) {
    const unsigned n = e.size > 15 ? 15 : e.size;
    for (unsigned i = 0; i < n; ++i) *out++ = e.bytes[i];
  }
  // Strings: id 0 = none; a first use is followed by its length and bytes.
  if (e.text.empty()) {
    *out++ = 0;
    buffer_.insert(buffer_.end(), record, out);
  } else if (e.text.data() == last_text_) {
    out = encode_varint(out, last_text_id_);
    buffer_.insert(buffer_.end(), record, out);
  } else {
    buffer_.insert(buffer_.end(), record, out);
    u32& id = string_ids_[e.text.data()];
    if (id == 0) {
      u32& by_text = string_ids_by_text_[std::string(e.text)];
      if (by_text == 0) {
        by_text = next_string_id_++;
        put_varint(by_text);
        put_varint(e.text.size());
        buffer_.insert(buffer_.end(), e.text.begin(), e.text.end());
        id = by_text;
      } else {
        id = by_text;
        put_varint(id);
      }
    } else {
      put_varint(id);
    }
    last_text_ = e.text.data();
    last_text_id_ = id;
  }
  if (buffer_.size() >= (1 << 16)) flush();
}

void BinaryTraceWriter::flush() {
  if (!buffer_.empty()) std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
  buffer_.clear();
}

void BinaryTraceWriter::finish() {
  flush();
  std::fflush(file_);
}

bool BinaryTraceReader::open(const std::string& path, std::string& error) {
  path_ = path;
  error = read_input_file(path, "trace", kAnyInputSize, data_);
  if (!error.empty()) return false;
  if (data_.size() < 16 || std::memcmp(data_.data(), kTraceMagic, 8) != 0) {
    error = "'" + path + "' is not an x86lab binary trace (bad magic)";
    return false;
  }
  const u32 version = data_[8] | (data_[9] << 8) | (data_[10] << 16) | (u32{data_[11]} << 24);
  if (version < kOldestTraceVersion || version > kTraceVersion) {
    error = "'" + path + "' is binary trace version " + std::to_string(version) + "; this x86lab reads versions " +
            std::to_string(kOldestTraceVersion) + " to " + std::to_string(kTraceVersion);
    return false;
  }
  version_ = version;
  if (data_[12] | data_[13] | data_[14] | data_[15]) {
    error = "'" + path + "' is not an x86lab binary trace (reserved header bytes 12-15 are not zero)";
    return false;
  }
  position_ = 16;
  return true;
}

bool BinaryTraceReader::get_byte(u8& value) {
  if (position_ >= data_.size()) return false;
  value = data_[position_++];
  return true;
}

bool BinaryTraceReader::get_varint(u64& value) {
  value = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    u8 byte;
    if (!get_byte(byte)) return false;
    // The tenth byte holds bit 63 only: anything above it does not fit in 64 bits.
    if (shift == 63 && byte > 1) return false;
    value |= u64{byte & 0x7Fu} << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

bool BinaryTraceReader::next(Event& e) {
  if (position_ >= data_.size()) return false;
  const std::size_t start = position_;
  auto malformed = [&] {
    error_ = "'" + path_ + "': malformed record at byte " + std::to_string(start);
    return false;
  };
  e = Event{};
  u8 kind;
  u64 di, dc, a, b, c, value, id;
  // Version 2 knew the kinds before the APICs' only.
  const std::size_t kinds = version_ >= 3 ? kEventKindCount : static_cast<std::size_t>(kFirstApicEventKind);
  if (!get_byte(kind) || kind >= kinds) return malformed();
  e.kind = static_cast<EventKind>(kind);
  if (!get_varint(di) || !get_varint(dc) || !get_byte(e.detail) || !get_byte(e.flags) || !get_byte(e.size))
    return malformed();
  if (!get_varint(a) || !get_varint(b) || !get_varint(c) || !get_varint(value)) return malformed();
  if ((a | b | c) > 0xFFFFFFFFu || !events::detail_valid(e.kind, e.detail)) return malformed();  // 32-bit fields; a known detail
  last_instruction_ += di;
  last_cycle_ += dc;
  e.instruction = last_instruction_;
  e.cycle = last_cycle_;
  e.a = static_cast<u32>(a);
  e.b = static_cast<u32>(b);
  e.c = static_cast<u32>(c);
  e.value = value;
  if (e.kind == EventKind::Instruction) {
    const unsigned n = e.size > 15 ? 15 : e.size;
    for (unsigned i = 0; i < n; ++i)
      if (!get_byte(e.bytes[i])) return malformed();
  }
  if (!get_varint(id)) return malformed();
  if (id != 0) {
    if (id == strings_.size() + 1) {
      u64 length;
      if (!get_varint(length) || length > data_.size() - position_) return malformed();
      strings_.emplace_back(reinterpret_cast<const char*>(data_.data() + position_), length);
      position_ += length;
    } else if (id > strings_.size()) {
      return malformed();
    }
    e.text = strings_[id - 1];
  }
  return true;
}

}  // namespace x86lab
