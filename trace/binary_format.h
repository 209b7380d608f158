// The binary trace format, version 3 (docs/trace-format.md): an 8-byte magic
// "x86ltrc\0", a little-endian u32 version, a u32 of zero, then one record per event
// with LEB128 varints. Readers keep a string table built from first uses.
#pragma once
#include <cstdio>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/events.h"

namespace x86lab {

inline constexpr char kTraceMagic[8] = {'x', '8', '6', 'l', 't', 'r', 'c', '\0'};
inline constexpr u32 kTraceVersion = 3;          // what the writer writes
inline constexpr u32 kOldestTraceVersion = 2;    // the oldest the reader reads (2: no APIC kinds)

// Encodes events into a buffer and writes it to a FILE in large chunks.
class BinaryTraceWriter {
 public:
  explicit BinaryTraceWriter(std::FILE* file);
  void write(const Event& event);
  void finish();

 private:
  void put_varint(u64 value);
  void flush();
  std::FILE* file_;
  std::vector<u8> buffer_;
  u64 last_instruction_ = 0, last_cycle_ = 0;
  std::unordered_map<const char*, u32> string_ids_;  // by the static string's address
  std::unordered_map<std::string, u32> string_ids_by_text_;
  u32 next_string_id_ = 1;
  const char* last_text_ = nullptr;  // the previous event's string, to skip the lookup on repeats
  u32 last_text_id_ = 0;
};

// Reads a binary trace. Errors are one line naming the file and the problem.
class BinaryTraceReader {
 public:
  // Opens `path`; on failure returns false and sets `error`.
  bool open(const std::string& path, std::string& error);
  // Reads the next event; returns false at the end or on a malformed record (then
  // error() is non-empty).
  bool next(Event& event);
  const std::string& error() const { return error_; }

 private:
  bool get_varint(u64& value);
  bool get_byte(u8& value);
  std::string path_;
  std::vector<u8> data_;
  std::size_t position_ = 0;
  u64 last_instruction_ = 0, last_cycle_ = 0;
  std::deque<std::string> strings_;  // stable storage for Event::text
  u32 version_ = kTraceVersion;      // the file's
  std::string error_;
};

}  // namespace x86lab
