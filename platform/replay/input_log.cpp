// The replay log's file format and the recording and replaying serial hosts.
#include "platform/replay/input_log.h"

#include <zlib.h>

#include <cstring>

#include "platform/input_error.h"

namespace x86lab {

namespace {

constexpr u8 kSerialByteTag = 1;
constexpr u8 kSerialEndTag = 2;
constexpr u8 kEndTag = 0xFF;
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8;  // magic, version, flags, RTC start
constexpr std::size_t kSerialByteBytes = 1 + 8 + 8 + 8 + 1;
constexpr std::size_t kSerialEndBytes = 1 + 8 + 8;
constexpr std::size_t kTrailerBytes = 1 + 8 + 4;  // tag, event count, CRC-32

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

}  // namespace

std::vector<u8> InputLog::encode() const {
  std::vector<u8> out(kMagic, kMagic + sizeof kMagic);
  put_le(out, kVersion, 4);
  put_le(out, rtc_from_host ? 1 : 0, 4);
  put_le(out, static_cast<u64>(rtc_start), 8);
  for (const SerialByte& event : serial) {
    out.push_back(kSerialByteTag);
    put_le(out, event.call, 8);
    put_le(out, event.cycle, 8);
    put_le(out, event.step, 8);
    out.push_back(event.byte);
  }
  if (serial_end) {
    out.push_back(kSerialEndTag);
    put_le(out, serial_end->call, 8);
    put_le(out, serial_end->cycle, 8);
  }
  out.push_back(kEndTag);
  put_le(out, serial.size() + (serial_end ? 1 : 0), 8);
  put_le(out, crc32_of(out.data(), out.size()), 4);
  return out;
}

InputLog InputLog::decode(const std::vector<u8>& bytes) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw InputError("not an x86lab replay log (no X86LREPL magic at its start)");
  if (bytes.size() < kHeaderBytes + kTrailerBytes) throw InputError("truncated: shorter than a header and a trailer");
  const u32 version = static_cast<u32>(get_le(bytes.data() + 8, 4));
  if (version != kVersion)
    throw InputError("replay log format version " + std::to_string(version) + "; this x86lab reads version " +
                     std::to_string(kVersion));
  const std::size_t body = bytes.size() - 4;
  if (crc32_of(bytes.data(), body) != get_le(bytes.data() + body, 4))
    throw InputError("CRC-32 does not match (truncated or corrupt)");
  InputLog log;
  const u32 flags = static_cast<u32>(get_le(bytes.data() + 12, 4));
  if (flags > 1) throw InputError("unknown flags " + std::to_string(flags));
  log.rtc_from_host = flags & 1;
  log.rtc_start = static_cast<i64>(get_le(bytes.data() + 16, 8));
  std::size_t at = kHeaderBytes;
  u64 events = 0;
  for (;;) {
    if (at >= body) throw InputError("truncated: no end record");
    const u8 tag = bytes[at];
    if (tag == kEndTag) {
      if (at + kTrailerBytes != bytes.size()) throw InputError("bytes after the end record");
      if (get_le(bytes.data() + at + 1, 8) != events) throw InputError("the end record's event count does not match");
      return log;
    }
    if (log.serial_end) throw InputError("an event after the end of the serial input");
    if (tag == kSerialByteTag) {
      if (at + kSerialByteBytes > body) throw InputError("truncated in event " + std::to_string(events + 1));
      SerialByte event{get_le(&bytes[at + 1], 8), get_le(&bytes[at + 9], 8), get_le(&bytes[at + 17], 8), bytes[at + 25]};
      if (!log.serial.empty() && event.call <= log.serial.back().call)
        throw InputError("event " + std::to_string(events + 1) + " is not after the one before it");
      log.serial.push_back(event);
      at += kSerialByteBytes;
    } else if (tag == kSerialEndTag) {
      if (at + kSerialEndBytes > body) throw InputError("truncated in event " + std::to_string(events + 1));
      log.serial_end = SerialEnd{get_le(&bytes[at + 1], 8), get_le(&bytes[at + 9], 8)};
      at += kSerialEndBytes;
    } else {
      throw InputError("event " + std::to_string(events + 1) + " has unknown type " + std::to_string(tag));
    }
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

std::optional<u8> RecordingSerialHost::receive() {
  const u64 call = calls_++;
  const std::optional<u8> byte = host_.receive();
  if (byte) log_.serial.push_back({call, clock_.cycle ? clock_.cycle() : 0, clock_.step ? clock_.step() : 0, *byte});
  return byte;
}

bool RecordingSerialHost::input_open() const {
  const bool open = host_.input_open();
  if (!open && !log_.serial_end) log_.serial_end = InputLog::SerialEnd{calls_, clock_.cycle ? clock_.cycle() : 0};
  return open;
}

std::optional<u8> ReplaySerialHost::receive() {
  const u64 call = calls_++;
  if (next_ >= log_.serial.size() || log_.serial[next_].call != call) return std::nullopt;
  const InputLog::SerialByte& event = log_.serial[next_++];
  const u64 cycle = clock_.cycle ? clock_.cycle() : 0;
  if (clock_.cycle && cycle != event.cycle)
    throw InputError("the replay diverged: serial input byte " + std::to_string(next_) + " was received at cycle " +
                     std::to_string(event.cycle) + " in the recorded run, here at cycle " + std::to_string(cycle) +
                     " (another guest or other options?)");
  return event.byte;
}

bool ReplaySerialHost::input_open() const {
  if (next_ < log_.serial.size()) return true;
  if (!log_.serial_end || calls_ < log_.serial_end->call) return true;
  return clock_.cycle && clock_.cycle() < log_.serial_end->cycle;
}

}  // namespace x86lab
