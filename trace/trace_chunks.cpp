// Binary trace format version 4: the record codec and chunk framing
// (docs/trace-format.md, "Version 4").
#include "trace/trace_chunks.h"

#include <cstring>

#include "trace/events.h"

namespace x86lab::trace_v4 {

namespace {
u8* encode_varint(u8* out, u64 value) {
  while (value >= 0x80) {
    *out++ = static_cast<u8>(value | 0x80);
    value >>= 7;
  }
  *out++ = static_cast<u8>(value);
  return out;
}
// A 32-bit difference as a small unsigned number: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...
u32 zigzag_of(u32 value, u32 predicted) {
  const i32 d = static_cast<i32>(value - predicted);
  return (static_cast<u32>(d) << 1) ^ static_cast<u32>(d >> 31);
}
}  // namespace

bool read_varint(std::span<const u8> in, std::size_t& position, u64& value) {
  value = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (position >= in.size()) return false;
    const u8 b = in[position++];
    // The tenth byte holds bit 63 only: anything above it does not fit in 64 bits.
    if (shift == 63 && b > 1) return false;
    value |= u64{b & 0x7Fu} << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

void put_u32(std::vector<u8>& out, u32 value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<u8>(value >> (8 * i)));
}
void put_u64(std::vector<u8>& out, u64 value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<u8>(value >> (8 * i)));
}
u32 get_u32(const u8* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<u32>(p[3]) << 24; }
u64 get_u64(const u8* p) { return get_u32(p) | u64{get_u32(p + 4)} << 32; }

std::vector<u8> encode_header(const ChunkHeader& h) {
  std::vector<u8> out(std::begin(kChunkMagic), std::end(kChunkMagic));
  put_u32(out, h.compressed);
  put_u32(out, h.uncompressed);
  put_u32(out, h.records);
  put_u64(out, h.first_instruction);
  put_u64(out, h.first_cycle);
  return out;
}

bool decode_header(const u8* p, ChunkHeader& h) {
  if (std::memcmp(p, kChunkMagic, 4) != 0) return false;
  h.compressed = get_u32(p + 4);
  h.uncompressed = get_u32(p + 8);
  h.records = get_u32(p + 12);
  h.first_instruction = get_u64(p + 16);
  h.first_cycle = get_u64(p + 24);
  return true;
}

// Record layout: kind, instruction delta, cycle delta (varints), detail, flags, size
// (bytes), then by kind:
//   insn: zigzag(CS - previous CS), zigzag(linear - (previous linear + previous
//         length)), zigzag((linear - EIP) - previous (linear - EIP)), value, code id
//         (0: new, followed by `size` bytes; else an earlier one of the chunk, whose
//         length must be `size`);
//   mem:  a mode byte (bit 0: the value is the previous mem record's), zigzag(linear -
//         the previous linear of the same access kind), zigzag((physical - linear) -
//         the previous access's), c, then the value unless bit 0;
//   reg:  a mode byte (bit 0: the new value is the previous mem record's value; bit 1:
//         the general layout below follows instead), zigzag(old - the register's
//         previous new value), then unless bit 0 zigzag(new - old);
//   else: a, b, c, value;
// then the text id (0 none; one above the highest so far: a first use, followed by
// its length and bytes). The predictions (previous values) restart with each chunk.
void ChunkEncoder::encode(const Event& e, std::vector<u8>& buffer) {
  u8 record[128];
  u8* out = record;
  *out++ = static_cast<u8>(e.kind);
  out = encode_varint(out, e.instruction - last_instruction_);
  out = encode_varint(out, e.cycle - last_cycle_);
  last_instruction_ = e.instruction;
  last_cycle_ = e.cycle;
  *out++ = e.detail;
  *out++ = e.flags;
  *out++ = e.size;
  if (e.kind == EventKind::Instruction) {
    const unsigned n = e.size > 15 ? 15 : e.size;
    out = encode_varint(out, zigzag_of(e.a, last_cs_));
    out = encode_varint(out, zigzag_of(e.c, next_linear_));
    out = encode_varint(out, zigzag_of(e.c - e.b, last_code_base_));
    out = encode_varint(out, e.value);
    last_cs_ = e.a;
    next_linear_ = e.c + e.size;
    last_code_base_ = e.c - e.b;
    std::string key(4 + n, '\0');
    std::memcpy(key.data(), &e.c, 4);
    std::memcpy(key.data() + 4, e.bytes.data(), n);
    auto [it, inserted] = code_.try_emplace(std::move(key), next_code_);
    if (inserted) {
      ++next_code_;
      *out++ = 0;
      std::memcpy(out, e.bytes.data(), n);
      out += n;
    } else {
      out = encode_varint(out, it->second);
    }
  } else if (e.kind == EventKind::MemoryAccess) {
    u32& last = last_data_linear_[e.detail & 31];
    const bool same = e.value == last_value_;
    *out++ = same ? 1 : 0;
    out = encode_varint(out, zigzag_of(e.a, last));
    out = encode_varint(out, zigzag_of(e.b - e.a, last_offset_));
    out = encode_varint(out, e.c);
    if (!same) out = encode_varint(out, e.value);
    last = e.a;
    last_offset_ = e.b - e.a;
    last_value_ = e.value;
  } else if (e.kind == EventKind::RegisterWrite && (e.a | e.b) == 0 && e.value <= 0xFFFFFFFFu && e.detail < 16) {
    const u32 now = static_cast<u32>(e.value);
    const bool loaded = e.value == last_value_;
    *out++ = loaded ? 1 : 0;
    out = encode_varint(out, zigzag_of(e.c, last_register_[e.detail]));
    if (!loaded) out = encode_varint(out, zigzag_of(now, e.c));
    last_register_[e.detail] = now;
  } else {
    if (e.kind == EventKind::RegisterWrite) *out++ = 2;
    out = encode_varint(out, e.a);
    out = encode_varint(out, e.b);
    out = encode_varint(out, e.c);
    out = encode_varint(out, e.value);
  }
  if (e.text.empty()) {
    *out++ = 0;
    buffer.insert(buffer.end(), record, out);
    return;
  }
  auto [it, inserted] = strings_.try_emplace(e.text, next_string_);
  if (!inserted) {
    out = encode_varint(out, it->second);
    buffer.insert(buffer.end(), record, out);
    return;
  }
  out = encode_varint(out, next_string_++);
  out = encode_varint(out, e.text.size());
  buffer.insert(buffer.end(), record, out);
  buffer.insert(buffer.end(), e.text.begin(), e.text.end());
}

ChunkDecoder::ChunkDecoder(std::span<const u8> bytes, const ChunkHeader& header)
    : in_(bytes), left_(header.records), last_instruction_(header.first_instruction), last_cycle_(header.first_cycle) {}

bool ChunkDecoder::malformed(std::size_t at) {
  error_ = "malformed record at byte " + std::to_string(at) + " of the chunk";
  left_ = 0;
  return false;
}

bool ChunkDecoder::byte(u8& value) {
  if (position_ >= in_.size()) return false;
  value = in_[position_++];
  return true;
}

bool ChunkDecoder::varint(u64& value) { return read_varint(in_, position_, value); }

bool ChunkDecoder::zigzag(u32 base, u32& value) {
  u64 z;
  if (!varint(z) || z > 0xFFFFFFFFu) return false;
  const u32 d = static_cast<u32>(z >> 1) ^ (0u - static_cast<u32>(z & 1));
  value = base + d;
  return true;
}

bool ChunkDecoder::next(Event& e) {
  if (left_ == 0) {
    if (error_.empty() && position_ != in_.size()) return malformed(position_);  // bytes after the last record
    return false;
  }
  const std::size_t start = position_;
  e = Event{};
  u8 kind;
  u64 di, dc, a = 0, b = 0, c = 0, value = 0, id;
  if (!byte(kind) || kind >= kEventKindCount) return malformed(start);
  e.kind = static_cast<EventKind>(kind);
  if (!varint(di) || !varint(dc) || !byte(e.detail) || !byte(e.flags) || !byte(e.size)) return malformed(start);
  if (!events::detail_valid(e.kind, e.detail)) return malformed(start);
  if (e.kind == EventKind::Instruction) {
    u32 cs, linear, base;
    if (!zigzag(last_cs_, cs) || !zigzag(next_linear_, linear) || !zigzag(last_code_base_, base) || !varint(value))
      return malformed(start);
    const unsigned n = e.size > 15 ? 15 : e.size;
    e.a = cs;
    e.c = linear;
    e.b = linear - base;
    last_cs_ = cs;
    next_linear_ = linear + e.size;
    last_code_base_ = base;
    u64 code;
    if (!varint(code)) return malformed(start);
    if (code == 0) {
      if (in_.size() - position_ < n) return malformed(start);
      Code entry{linear, static_cast<u8>(n), {}};
      std::memcpy(entry.bytes.data(), in_.data() + position_, n);
      position_ += n;
      code_.push_back(entry);
      std::memcpy(e.bytes.data(), entry.bytes.data(), n);
    } else {
      if (code > code_.size() || code_[code - 1].size != n || code_[code - 1].linear != linear) return malformed(start);
      std::memcpy(e.bytes.data(), code_[code - 1].bytes.data(), n);
    }
  } else if (e.kind == EventKind::MemoryAccess) {
    u32& last = last_data_linear_[e.detail & 31];
    u8 mode;
    u32 linear, offset;
    if (!byte(mode) || mode > 1 || !zigzag(last, linear) || !zigzag(last_offset_, offset) || !varint(c) ||
        c > 0xFFFFFFFFu)
      return malformed(start);
    if (mode == 1)
      value = last_value_;
    else if (!varint(value))
      return malformed(start);
    e.a = linear;
    e.b = linear + offset;
    e.c = static_cast<u32>(c);
    last = linear;
    last_offset_ = offset;
    last_value_ = value;
  } else if (e.kind == EventKind::RegisterWrite && (in_.size() > position_ && in_[position_] < 2)) {
    u8 mode;
    u32 old_value, now;
    if (!byte(mode) || e.detail >= 16 || !zigzag(last_register_[e.detail], old_value)) return malformed(start);
    if (mode == 1) {
      if (last_value_ > 0xFFFFFFFFu) return malformed(start);
      now = static_cast<u32>(last_value_);
    } else if (!zigzag(old_value, now)) {
      return malformed(start);
    }
    e.c = old_value;
    value = now;
    last_register_[e.detail] = now;
  } else {
    if (e.kind == EventKind::RegisterWrite) {
      u8 mode;
      if (!byte(mode) || mode != 2) return malformed(start);
    }
    if (!varint(a) || !varint(b) || !varint(c) || !varint(value) || (a | b | c) > 0xFFFFFFFFu) return malformed(start);
    e.a = static_cast<u32>(a);
    e.b = static_cast<u32>(b);
    e.c = static_cast<u32>(c);
  }
  e.value = value;
  last_instruction_ += di;
  last_cycle_ += dc;
  e.instruction = last_instruction_;
  e.cycle = last_cycle_;
  if (!varint(id)) return malformed(start);
  if (id != 0) {
    if (id == strings_.size() + 1) {
      u64 length;
      if (!varint(length) || length > in_.size() - position_) return malformed(start);
      strings_.emplace_back(reinterpret_cast<const char*>(in_.data() + position_), length);
      position_ += length;
    } else if (id > strings_.size()) {
      return malformed(start);
    }
    e.text = strings_[id - 1];
  }
  --left_;
  return true;
}

}  // namespace x86lab::trace_v4
