// Binary trace writer (format version 4) and reader (versions 2 to 4;
// docs/trace-format.md).
#include "trace/binary_format.h"

#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "trace/input_file.h"

namespace x86lab {

using namespace trace_v4;

namespace {
// How many chunks wait for the compressor before write() waits for it.
constexpr std::size_t kQueuedChunks = 4;
}  // namespace

BinaryTraceWriter::BinaryTraceWriter(std::FILE* file, int zstd_level) : file_(file), level_(zstd_level) {
  std::vector<u8> header(std::begin(kTraceMagic), std::end(kTraceMagic));
  put_u32(header, kTraceVersion);
  put_u32(header, 0);
  std::fwrite(header.data(), 1, header.size(), file_);
}

BinaryTraceWriter::~BinaryTraceWriter() {
  if (thread_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    ready_.notify_all();
    thread_.join();
  }
}

void BinaryTraceWriter::write(const Event& e) {
  if (encoder_ && e.instruction != last_instruction_ &&
      (current_.records.size() >= kChunkTargetBytes || current_.header.records >= kChunkTargetRecords))
    cut_chunk();
  if (!encoder_) {
    encoder_.emplace(e.instruction, e.cycle);
    current_.header = {};
    current_.header.first_instruction = e.instruction;
    current_.header.first_cycle = e.cycle;
    current_.records.reserve(kChunkTargetBytes + 4096);
  }
  encoder_->encode(e, current_.records);
  ++current_.header.records;
  last_instruction_ = e.instruction;
}

void BinaryTraceWriter::cut_chunk() {
  if (!encoder_) return;
  encoder_.reset();
  if (!thread_.joinable()) thread_ = std::thread([this] { compress_loop(); });
  std::unique_lock lock(mutex_);
  room_.wait(lock, [this] { return queue_.size() < kQueuedChunks; });
  queue_.push_back(std::move(current_));
  current_ = {};
  lock.unlock();
  ready_.notify_one();
}

void BinaryTraceWriter::compress_loop() {
  for (;;) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return done_ || !queue_.empty(); });
    if (queue_.empty()) return;  // done
    Pending chunk = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    room_.notify_one();
    write_chunk(chunk);
  }
}

void BinaryTraceWriter::write_chunk(Pending& chunk) {
  std::vector<u8> compressed(ZSTD_compressBound(chunk.records.size()));
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level_);
  ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1);
  const std::size_t size =
      ZSTD_compress2(context, compressed.data(), compressed.size(), chunk.records.data(), chunk.records.size());
  ZSTD_freeCCtx(context);
  if (ZSTD_isError(size)) {  // cannot happen with a bound-sized buffer; make the file unreadable rather than wrong
    std::fputs("x86lab: trace compression failed\n", stderr);
    return;
  }
  chunk.header.compressed = static_cast<u32>(size);
  chunk.header.uncompressed = static_cast<u32>(chunk.records.size());
  const std::vector<u8> header = encode_header(chunk.header);
  std::fwrite(header.data(), 1, header.size(), file_);
  std::fwrite(compressed.data(), 1, size, file_);
  index_.push_back({offset_, chunk.header.first_instruction, chunk.header.first_cycle, chunk.header.records});
  offset_ += header.size() + size;
}

void BinaryTraceWriter::finish() {
  if (finished_) return;
  finished_ = true;
  cut_chunk();
  if (thread_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    ready_.notify_all();
    thread_.join();
  }
  std::vector<u8> index(std::begin(kIndexMagic), std::end(kIndexMagic));
  put_u32(index, static_cast<u32>(index_.size()));
  for (const IndexEntry& entry : index_) {
    put_u64(index, entry.offset);
    put_u64(index, entry.first_instruction);
    put_u64(index, entry.first_cycle);
    put_u32(index, entry.records);
    put_u32(index, 0);
  }
  put_u64(index, offset_);
  index.insert(index.end(), std::begin(kTrailerMagic), std::end(kTrailerMagic));
  std::fwrite(index.data(), 1, index.size(), file_);
  std::fflush(file_);
}

// ---- reader ----

BinaryTraceReader::~BinaryTraceReader() {
  if (file_) std::fclose(file_);
}

bool BinaryTraceReader::fail(const std::string& problem) {
  error_ = "'" + path_ + "': " + problem;
  decoder_.reset();
  chunk_ = chunks_.size();
  return false;
}

bool BinaryTraceReader::open(const std::string& path, std::string& error) {
  path_ = path;
  u8 header[16];
  error = check_input_file(path, "trace");
  if (!error.empty()) return false;
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) {
    error = "cannot open trace '" + path + "': " + std::strerror(errno);
    return false;
  }
  const std::size_t got = std::fread(header, 1, 16, file_);
  if (got < 16 || std::memcmp(header, kTraceMagic, 8) != 0) {
    error = "'" + path + "' is not an x86lab binary trace (bad magic)";
    return false;
  }
  const u32 version = get_u32(header + 8);
  if (version < kOldestTraceVersion || version > kTraceVersion) {
    error = "'" + path + "' is binary trace version " + std::to_string(version) + "; this x86lab reads versions " +
            std::to_string(kOldestTraceVersion) + " to " + std::to_string(kTraceVersion);
    return false;
  }
  version_ = version;
  if (get_u32(header + 12) != 0) {
    error = "'" + path + "' is not an x86lab binary trace (reserved header bytes 12-15 are not zero)";
    return false;
  }
  std::fseek(file_, 0, SEEK_END);
  file_size_ = static_cast<u64>(std::ftell(file_));
  if (version_ <= kUnchunkedTraceVersion) {
    error = read_input_file(path, "trace", kAnyInputSize, data_);
    if (!error.empty()) return false;
    position_ = 16;
    return true;
  }
  if (!load_index()) {
    error = error_;
    return false;
  }
  return true;
}

// The index (when the trailer is there) or, for a trace whose writer never finished,
// the chunk headers read one after another from the first.
bool BinaryTraceReader::load_index() {
  u8 trailer[kTrailerBytes];
  if (file_size_ >= 16 + kTrailerBytes && std::fseek(file_, static_cast<long>(file_size_ - kTrailerBytes), SEEK_SET) == 0 &&
      std::fread(trailer, 1, kTrailerBytes, file_) == kTrailerBytes &&
      std::memcmp(trailer + 8, kTrailerMagic, 8) == 0) {
    const u64 at = get_u64(trailer);
    auto corrupt = [&] { return fail("corrupt chunk index at byte " + std::to_string(at)); };
    if (at < 16 || at + 8 > file_size_ - kTrailerBytes) return corrupt();
    u8 head[8];
    std::fseek(file_, static_cast<long>(at), SEEK_SET);
    if (std::fread(head, 1, 8, file_) != 8 || std::memcmp(head, kIndexMagic, 4) != 0) return corrupt();
    const u64 count = get_u32(head + 4);
    if (at + 8 + count * kIndexEntryBytes != file_size_ - kTrailerBytes) return corrupt();
    std::vector<u8> entries(count * kIndexEntryBytes);
    if (count && std::fread(entries.data(), 1, entries.size(), file_) != entries.size()) return corrupt();
    u64 previous_end = 16, previous_instruction = 0;
    for (u64 i = 0; i < count; ++i) {
      const u8* p = entries.data() + i * kIndexEntryBytes;
      IndexEntry entry{get_u64(p), get_u64(p + 8), get_u64(p + 16), get_u32(p + 24)};
      if (entry.offset != previous_end || entry.offset + kChunkHeaderBytes > at || get_u32(p + 28) != 0 ||
          entry.first_instruction < previous_instruction)
        return corrupt();
      // The chunk's own header gives its size, so the next entry must start where it ends.
      u8 bytes[kChunkHeaderBytes];
      ChunkHeader header;
      std::fseek(file_, static_cast<long>(entry.offset), SEEK_SET);
      if (std::fread(bytes, 1, kChunkHeaderBytes, file_) != kChunkHeaderBytes || !decode_header(bytes, header) ||
          header.records != entry.records || header.first_instruction != entry.first_instruction ||
          header.first_cycle != entry.first_cycle)
        return corrupt();
      previous_end = entry.offset + kChunkHeaderBytes + header.compressed;
      if (previous_end > at) return corrupt();
      previous_instruction = entry.first_instruction;
      chunks_.push_back(entry);
    }
    if (previous_end != at) return corrupt();
    chunks_end_ = at;
    return true;
  }
  chunks_end_ = file_size_;
  return scan_chunks();
}

bool BinaryTraceReader::scan_chunks() {
  u64 at = 16;
  while (at < chunks_end_) {
    u8 bytes[kChunkHeaderBytes];
    ChunkHeader header;
    std::fseek(file_, static_cast<long>(at), SEEK_SET);
    if (chunks_end_ - at < kChunkHeaderBytes || std::fread(bytes, 1, kChunkHeaderBytes, file_) != kChunkHeaderBytes)
      return fail("truncated chunk at byte " + std::to_string(at));
    if (!decode_header(bytes, header)) return fail("no chunk header at byte " + std::to_string(at));
    if (chunks_end_ - at - kChunkHeaderBytes < header.compressed)
      return fail("truncated chunk at byte " + std::to_string(at));
    chunks_.push_back({at, header.first_instruction, header.first_cycle, header.records});
    at += kChunkHeaderBytes + header.compressed;
  }
  return true;
}

bool BinaryTraceReader::load_chunk(std::size_t index) {
  const IndexEntry& entry = chunks_[index];
  const std::string where = "chunk at byte " + std::to_string(entry.offset);
  u8 bytes[kChunkHeaderBytes];
  ChunkHeader header;
  std::fseek(file_, static_cast<long>(entry.offset), SEEK_SET);
  if (std::fread(bytes, 1, kChunkHeaderBytes, file_) != kChunkHeaderBytes || !decode_header(bytes, header))
    return fail("truncated chunk at byte " + std::to_string(entry.offset));
  if (header.uncompressed > kMaxChunkBytes) return fail(where + " claims " + std::to_string(header.uncompressed) + " bytes");
  compressed_.resize(header.compressed);
  if (std::fread(compressed_.data(), 1, header.compressed, file_) != header.compressed)
    return fail("truncated chunk at byte " + std::to_string(entry.offset));
  std::vector<u8> plain(header.uncompressed);
  const std::size_t size = ZSTD_decompress(plain.data(), plain.size(), compressed_.data(), compressed_.size());
  if (ZSTD_isError(size)) return fail(where + " does not decompress (zstd: " + ZSTD_getErrorName(size) + ")");
  if (size != header.uncompressed)
    return fail(where + " decompresses to " + std::to_string(size) + " bytes, not " + std::to_string(header.uncompressed));
  previous_plain_ = std::move(plain_);
  previous_decoder_ = std::move(decoder_);
  plain_ = std::move(plain);
  decoder_ = std::make_unique<ChunkDecoder>(std::span<const u8>(plain_), header);
  decoder_offset_ = entry.offset;
  chunk_ = index + 1;
  return true;
}

bool BinaryTraceReader::next(Event& event) {
  if (version_ <= kUnchunkedTraceVersion) return next_unchunked(event);
  for (;;) {
    if (decoder_) {
      if (decoder_->next(event)) return true;
      if (!decoder_->error().empty())
        return fail(decoder_->error() + " at byte " + std::to_string(decoder_offset_));
      decoder_.reset();
    }
    if (!error_.empty() || chunk_ >= chunks_.size()) return false;
    if (!load_chunk(chunk_)) return false;
  }
}

bool BinaryTraceReader::seek_instruction(u64 instruction) {
  if (version_ <= kUnchunkedTraceVersion) {
    Event e;
    // No index: read from where we are (versions 2 and 3 are read whole anyway).
    std::size_t before = position_;
    while (true) {
      before = position_;
      const u64 li = last_instruction_, lc = last_cycle_;
      if (!next_unchunked(e)) return false;
      if (e.instruction >= instruction) {
        position_ = before;
        last_instruction_ = li;
        last_cycle_ = lc;
        return true;
      }
    }
  }
  if (!error_.empty()) return false;
  // The last chunk that starts at or before `instruction` (chunks never split one).
  auto it = std::upper_bound(chunks_.begin(), chunks_.end(), instruction,
                             [](u64 n, const IndexEntry& e) { return n < e.first_instruction; });
  std::size_t index = it == chunks_.begin() ? 0 : static_cast<std::size_t>(it - chunks_.begin()) - 1;
  if (chunks_.empty()) return false;
  decoder_.reset();
  for (; index < chunks_.size(); ++index) {
    if (!load_chunk(index)) return false;
    // Skip records before `instruction`: decode into a copy, keep the decoder's state.
    for (;;) {
      ChunkDecoder saved = *decoder_;
      Event e;
      if (!decoder_->next(e)) {
        if (!decoder_->error().empty()) return fail(decoder_->error() + " at byte " + std::to_string(decoder_offset_));
        break;
      }
      if (e.instruction >= instruction) {
        *decoder_ = std::move(saved);
        return true;
      }
    }
  }
  return false;
}

// ---- versions 2 and 3 ----

bool BinaryTraceReader::get_byte(u8& value) {
  if (position_ >= data_.size()) return false;
  value = data_[position_++];
  return true;
}

bool BinaryTraceReader::get_varint(u64& value) { return read_varint(data_, position_, value); }

bool BinaryTraceReader::next_unchunked(Event& e) {
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
