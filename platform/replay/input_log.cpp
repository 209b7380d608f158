// The replay log's file format (docs/snapshots.md "Log format").
#include "platform/replay/input_log.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "platform/input_error.h"

namespace x86lab {

namespace {

constexpr u8 kSerialByteTag = 1;
constexpr u8 kSerialEndTag = 2;
constexpr u8 kKeyTag = 3;
constexpr u8 kEndTag = 0xFF;
// magic, version, flags, RTC start, first serial byte's and first key's numbers
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8 + 8;
constexpr std::size_t kMomentBytes = 8 + 8;
constexpr std::size_t kSerialByteBytes = 1 + kMomentBytes + 1;
constexpr std::size_t kSerialEndBytes = 1 + kMomentBytes;
constexpr std::size_t kKeyBytes = 1 + kMomentBytes + 2;
constexpr std::size_t kTrailerBytes = 1 + 8 + 4;  // tag, event count, CRC-32
constexpr u8 kKeyExtended = 1, kKeyReleased = 2;

void put_le(std::vector<u8>& out, u64 value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out.push_back(static_cast<u8>(value >> (8 * i)));
}

u64 get_le(const u8* p, unsigned bytes) {
  u64 value = 0;
  for (unsigned i = 0; i < bytes; ++i) value |= u64{p[i]} << (8 * i);
  return value;
}

u32 crc32_of(const u8* data, std::size_t size) {
  return static_cast<u32>(crc32(crc32(0, nullptr, 0), data, static_cast<uInt>(size)));
}

void put_moment(std::vector<u8>& out, u8 tag, const InputMoment& at) {
  out.push_back(tag);
  put_le(out, at.step, 8);
  put_le(out, at.cycle, 8);
}

InputMoment get_moment(const u8* p) { return {get_le(p, 8), get_le(p + 8, 8)}; }

}  // namespace

std::vector<u8> InputLog::encode() const {
  std::vector<u8> out(kMagic, kMagic + sizeof kMagic);
  put_le(out, kVersion, 4);
  put_le(out, rtc_from_host ? 1 : 0, 4);
  put_le(out, static_cast<u64>(rtc_start), 8);
  put_le(out, first.serial, 8);
  put_le(out, first.keys, 8);
  // In moment order; at one moment the serial bytes, then the input's end, then the keys.
  struct Entry {
    InputMoment at;
    u8 tag;
    std::size_t index;
  };
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < serial.size(); ++i) entries.push_back({serial[i].at, kSerialByteTag, i});
  if (serial_end) entries.push_back({*serial_end, kSerialEndTag, 0});
  for (std::size_t i = 0; i < keys.size(); ++i) entries.push_back({keys[i].at, kKeyTag, i});
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.at < b.at; });
  for (const Entry& entry : entries) {
    put_moment(out, entry.tag, entry.at);
    if (entry.tag == kSerialByteTag) {
      out.push_back(serial[entry.index].byte);
    } else if (entry.tag == kKeyTag) {
      const Key& key = keys[entry.index];
      out.push_back(key.set1);
      out.push_back(static_cast<u8>((key.extended ? kKeyExtended : 0) | (key.released ? kKeyReleased : 0)));
    }
  }
  out.push_back(kEndTag);
  put_le(out, entries.size(), 8);
  put_le(out, crc32_of(out.data(), out.size()), 4);
  return out;
}

InputLog InputLog::decode(const std::vector<u8>& bytes) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw InputError("not an x86lab replay log (no X86LREPL magic at its start)");
  if (bytes.size() < 12) throw InputError("truncated: shorter than a header and a trailer");
  const u32 version = static_cast<u32>(get_le(bytes.data() + 8, 4));
  if (version != kVersion)
    throw InputError("replay log format version " + std::to_string(version) + "; this x86lab reads version " +
                     std::to_string(kVersion));
  if (bytes.size() < kHeaderBytes + kTrailerBytes) throw InputError("truncated: shorter than a header and a trailer");
  const std::size_t body = bytes.size() - 4;
  if (crc32_of(bytes.data(), body) != get_le(bytes.data() + body, 4))
    throw InputError("CRC-32 does not match (truncated or corrupt)");
  InputLog log;
  const u32 flags = static_cast<u32>(get_le(bytes.data() + 12, 4));
  if (flags > 1) throw InputError("unknown flags " + std::to_string(flags));
  log.rtc_from_host = flags & 1;
  log.rtc_start = static_cast<i64>(get_le(bytes.data() + 16, 8));
  log.first = {get_le(bytes.data() + 24, 8), get_le(bytes.data() + 32, 8)};
  std::size_t at = kHeaderBytes;
  u64 events = 0;
  InputMoment last;
  for (;;) {
    if (at >= body) throw InputError("truncated: no end record");
    const u8 tag = bytes[at];
    if (tag == kEndTag) {
      if (at + kTrailerBytes != bytes.size()) throw InputError("bytes after the end record");
      if (get_le(bytes.data() + at + 1, 8) != events) throw InputError("the end record's event count does not match");
      return log;
    }
    const std::string which = "event " + std::to_string(events + 1);
    if (log.serial_end && tag != kKeyTag) throw InputError(which + " comes after the end of the serial input");
    const std::size_t size = tag == kSerialByteTag ? kSerialByteBytes
                             : tag == kSerialEndTag ? kSerialEndBytes
                             : tag == kKeyTag       ? kKeyBytes
                                                    : 0;
    if (size == 0) throw InputError(which + " has unknown type " + std::to_string(tag));
    if (at + size > body) throw InputError("truncated in " + which);
    const InputMoment moment = get_moment(&bytes[at + 1]);
    if (moment < last) throw InputError(which + " is before the one before it");
    last = moment;
    if (tag == kSerialByteTag) {
      log.serial.push_back({moment, bytes[at + 17]});
    } else if (tag == kSerialEndTag) {
      log.serial_end = moment;
    } else {
      const u8 key_flags = bytes[at + 18];
      if (key_flags > (kKeyExtended | kKeyReleased)) throw InputError(which + " (a key) has unknown flags");
      log.keys.push_back({moment, bytes[at + 17], (key_flags & kKeyExtended) != 0, (key_flags & kKeyReleased) != 0});
    }
    at += size;
    ++events;
  }
}

InputLog InputLog::read(const std::string& path) {
  const std::vector<u8> bytes = read_input_bytes(path, "replay log", kAnyInputSize);
  try {
    return decode(bytes);
  } catch (const InputError& error) {
    throw InputError("replay log '" + path + "': " + error.what());
  }
}

}  // namespace x86lab
