// The binary trace format (docs/trace-format.md). The writer writes version 4: a
// 16-byte header (magic "x86ltrc\0", u32 version, u32 zero), then chunks of records,
// each one zstd frame that decodes on its own (trace/trace_chunks.h), then a chunk
// index and a trailer. It compresses on a thread of its own, so the traced run does not
// wait for compression. The reader reads versions 2 to 4, streaming: version 4 a chunk
// at a time in constant memory, with seek_instruction() through the index; versions 2
// and 3 (one record after another, no chunks) are read whole.
#pragma once
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "trace/events.h"
#include "trace/trace_chunks.h"

namespace x86lab {

inline constexpr char kTraceMagic[8] = {'x', '8', '6', 'l', 't', 'r', 'c', '\0'};
inline constexpr u32 kTraceVersion = 4;          // what the writer writes
inline constexpr u32 kOldestTraceVersion = 2;    // the oldest the reader reads (2: no APIC kinds)
inline constexpr u32 kUnchunkedTraceVersion = 3; // the last version without chunks

// Encodes events into chunks, compresses them on its own thread and writes them to
// `file` in order; finish() writes the last chunk, the index and the trailer. The
// output is the same bytes for the same events whatever the thread timing.
class BinaryTraceWriter {
 public:
  // `zstd_level`: the zstd compression level (1-19; docs/trace-format.md gives the
  // measured size and speed of the default).
  explicit BinaryTraceWriter(std::FILE* file, int zstd_level = kDefaultZstdLevel);
  ~BinaryTraceWriter();
  BinaryTraceWriter(const BinaryTraceWriter&) = delete;
  BinaryTraceWriter& operator=(const BinaryTraceWriter&) = delete;
  void write(const Event& event);
  void finish();
  static constexpr int kDefaultZstdLevel = 3;

 private:
  struct Pending {
    trace_v4::ChunkHeader header;
    std::vector<u8> records;
  };
  void cut_chunk();
  void compress_loop();
  void write_chunk(Pending& chunk);
  std::FILE* file_;
  int level_;
  u64 offset_ = 16;  // where the next chunk goes
  std::vector<trace_v4::IndexEntry> index_;
  // The chunk being filled.
  std::optional<trace_v4::ChunkEncoder> encoder_;
  Pending current_;
  u64 last_instruction_ = 0;
  // The compressor thread and its queue.
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<Pending> queue_;
  bool done_ = false, finished_ = false;
  std::thread thread_;
};

// Reads a binary trace. Errors are one line naming the file and the problem.
class BinaryTraceReader {
 public:
  ~BinaryTraceReader();
  // Opens `path`; on failure returns false and sets `error`.
  bool open(const std::string& path, std::string& error);
  // Reads the next event; returns false at the end or on a malformed record (then
  // error() is non-empty). An event's `text` stays valid until the call after next.
  bool next(Event& event);
  // Version 4: moves to the first event of instruction `instruction` or later (through
  // the chunk index, without reading the chunks before). False with error() set on a
  // damaged file; false with error() empty when the trace has no such instruction.
  bool seek_instruction(u64 instruction);
  const std::string& error() const { return error_; }
  u32 version() const { return version_; }

 private:
  // Versions 2 and 3.
  bool next_unchunked(Event& event);
  bool get_varint(u64& value);
  bool get_byte(u8& value);
  // Version 4.
  bool load_index();
  bool load_chunk(std::size_t index);
  bool scan_chunks();
  bool fail(const std::string& problem);
  std::string path_;
  std::FILE* file_ = nullptr;
  u64 file_size_ = 0;
  std::vector<u8> data_;  // versions 2 and 3: the whole file
  std::size_t position_ = 0;
  u64 last_instruction_ = 0, last_cycle_ = 0;
  std::deque<std::string> strings_;  // stable storage for Event::text (versions 2, 3)
  u32 version_ = kTraceVersion;      // the file's
  std::vector<trace_v4::IndexEntry> chunks_;
  u64 chunks_end_ = 0;                // where the chunks end (the index, or the file's end)
  std::size_t chunk_ = 0;             // the next chunk to load
  std::vector<u8> compressed_, plain_, previous_plain_;
  std::unique_ptr<trace_v4::ChunkDecoder> decoder_, previous_decoder_;
  u64 decoder_offset_ = 0;
  std::string error_;
};

}  // namespace x86lab
