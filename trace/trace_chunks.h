// The record codec and chunk framing of binary trace format version 4
// (docs/trace-format.md): records are grouped into chunks that decode on their own
// (instruction and cycle deltas, strings, instruction bytes and address predictions
// all restart at a chunk), each chunk compressed as one zstd frame with its checksum,
// and a chunk index at the end so that a reader can start at any chunk.
#pragma once
#include <array>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/event.h"

namespace x86lab::trace_v4 {

inline constexpr char kChunkMagic[4] = {'x', '8', '6', 'c'};
inline constexpr char kIndexMagic[4] = {'x', '8', '6', 'i'};
inline constexpr char kTrailerMagic[8] = {'x', '8', '6', 'l', 't', 'i', 'd', 'x'};
inline constexpr std::size_t kChunkHeaderBytes = 32;  // magic, compressed, uncompressed, records, first instruction, first cycle
inline constexpr std::size_t kIndexEntryBytes = 32;   // offset, first instruction, first cycle, records, reserved
inline constexpr std::size_t kTrailerBytes = 16;      // index offset, kTrailerMagic
// A chunk is cut once it holds this many uncompressed bytes or records, at the first
// record of a new instruction (so one instruction's records are never split).
inline constexpr std::size_t kChunkTargetBytes = 1u << 20;
inline constexpr u32 kChunkTargetRecords = 1u << 16;
// What a reader accepts: a chunk decompresses to at most this (the writer cuts near
// kChunkTargetBytes; one instruction's records add at most a few KiB).
inline constexpr u32 kMaxChunkBytes = 64u << 20;

struct ChunkHeader {
  u32 compressed = 0, uncompressed = 0, records = 0;
  u64 first_instruction = 0, first_cycle = 0;
};
struct IndexEntry {
  u64 offset = 0;  // of the chunk header, from the start of the file
  u64 first_instruction = 0, first_cycle = 0;
  u32 records = 0;
};

// Reads an unsigned LEB128 varint from `in` at `position` (advanced past it): false when
// it runs past the end or does not fit in 64 bits (a tenth byte above 1).
bool read_varint(std::span<const u8> in, std::size_t& position, u64& value);

void put_u32(std::vector<u8>& out, u32 value);
void put_u64(std::vector<u8>& out, u64 value);
u32 get_u32(const u8* p);
u64 get_u64(const u8* p);
std::vector<u8> encode_header(const ChunkHeader& header);
// False when `bytes` (kChunkHeaderBytes) does not start with kChunkMagic.
bool decode_header(const u8* bytes, ChunkHeader& header);

// Encodes one chunk's records (uncompressed). Start a new one per chunk.
class ChunkEncoder {
 public:
  ChunkEncoder(u64 first_instruction, u64 first_cycle) : last_instruction_(first_instruction), last_cycle_(first_cycle) {}
  void encode(const Event& event, std::vector<u8>& out);

 private:
  u64 last_instruction_, last_cycle_;
  u32 next_linear_ = 0, last_cs_ = 0, last_code_base_ = 0, last_offset_ = 0;
  std::array<u32, 32> last_data_linear_{};  // by access kind
  std::array<u32, 16> last_register_{};     // the last new value of each register (reg records)
  u64 last_value_ = 0;                      // the last mem record's value
  std::unordered_map<std::string_view, u32> strings_;
  std::unordered_map<std::string, u32> code_;  // linear (4 bytes) + instruction bytes -> id
  u32 next_string_ = 1, next_code_ = 1;
};

// Decodes one chunk's records. Each next() returns false at the chunk's end (after
// `records` records) or on a malformed record (then error() says at which byte).
class ChunkDecoder {
 public:
  ChunkDecoder(std::span<const u8> bytes, const ChunkHeader& header);
  bool next(Event& event);
  const std::string& error() const { return error_; }
  u32 records_left() const { return left_; }

 private:
  bool byte(u8& value);
  bool varint(u64& value);
  bool zigzag(u32 base, u32& value);
  bool malformed(std::size_t at);
  std::span<const u8> in_;
  std::size_t position_ = 0;
  u32 left_;
  u64 last_instruction_, last_cycle_;
  u32 next_linear_ = 0, last_cs_ = 0, last_code_base_ = 0, last_offset_ = 0;
  std::array<u32, 32> last_data_linear_{};
  std::array<u32, 16> last_register_{};
  u64 last_value_ = 0;
  std::deque<std::string> strings_;
  struct Code {
    u32 linear;
    u8 size;
    std::array<u8, 15> bytes;
  };
  std::vector<Code> code_;
  std::string error_;
};

}  // namespace x86lab::trace_v4
