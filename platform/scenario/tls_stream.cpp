#include "platform/scenario/tls_stream.h"

#include <cstring>
#include <fstream>

#include "platform/input_error.h"

namespace x86lab {
namespace {

void put32(std::vector<u8>& out, u32 v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<u8>(v >> (8 * i)));
}

u32 get32(const std::vector<u8>& in, std::size_t at) {
  return in[at] | u32{in[at + 1]} << 8 | u32{in[at + 2]} << 16 | u32{in[at + 3]} << 24;
}

}  // namespace

tls_stream_record tls_access(i32 offset, u8 size, bool write, u8 length, u8 thread) {
  return {offset, size, static_cast<u8>(write ? TLS_STREAM_WRITE : 0), length, thread};
}

tls_stream_record tls_switch(u8 thread) { return {0, 0, TLS_STREAM_SWITCH, 0, thread}; }

std::vector<u8> encode_tls_stream(const TlsStream& stream) {
  std::vector<u8> out(TLS_STREAM_MAGIC, TLS_STREAM_MAGIC + 8);
  put32(out, TLS_STREAM_VERSION);
  put32(out, static_cast<u32>(stream.records.size()));
  put32(out, stream.threads);
  put32(out, 0);
  for (const tls_stream_record& r : stream.records) {
    put32(out, static_cast<u32>(r.offset));
    out.insert(out.end(), {r.size, r.flags, r.length, r.thread});
  }
  return out;
}

TlsStream decode_tls_stream(const std::vector<u8>& bytes, const std::string& name) {
  const auto fail = [&](const std::string& problem) { throw InputError("TLS stream '" + name + "': " + problem); };
  if (bytes.size() < TLS_STREAM_HEADER_BYTES) fail("shorter than the 24-byte header");
  if (std::memcmp(bytes.data(), TLS_STREAM_MAGIC, 8) != 0) fail("no X86LTLS1 magic");
  if (get32(bytes, 8) != TLS_STREAM_VERSION) fail("version " + std::to_string(get32(bytes, 8)) + ", not 1");
  const u64 count = get32(bytes, 12);
  TlsStream stream;
  stream.threads = get32(bytes, 16);
  if (stream.threads == 0) fail("thread count 0");
  if (stream.threads > TLS_STREAM_MAX_THREADS)
    fail("thread count " + std::to_string(stream.threads) + " above " + std::to_string(TLS_STREAM_MAX_THREADS) +
         " (the replay guests' limit)");
  if (get32(bytes, 20) != 0) fail("reserved header word is not 0");
  if (bytes.size() != TLS_STREAM_HEADER_BYTES + count * TLS_STREAM_RECORD_BYTES)
    fail(std::to_string(bytes.size()) + " bytes, not 24 + 8 x " + std::to_string(count) + " records");
  for (std::size_t at = TLS_STREAM_HEADER_BYTES; at < bytes.size(); at += TLS_STREAM_RECORD_BYTES)
    stream.records.push_back({static_cast<i32>(get32(bytes, at)), bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]});
  return stream;
}

void write_tls_stream(const TlsStream& stream, const std::filesystem::path& path) {
  const std::vector<u8> bytes = encode_tls_stream(stream);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw InputError("cannot write TLS stream '" + path.string() + "'");
}

namespace {

// The synthetic program over `threads` threads; `positive` folds every offset to >= 0.
TlsStream synthetic(u32 iterations, u32 period, u32 threads, bool positive) {
  struct Access {
    i32 offset;
    bool write;
    u8 length;
  };
  // tls_operation() as gcc 12 emits it (docs/scenarios/tls.md, tls.user.lst).
  static constexpr Access kOperation[] = {{0x8, false, 6},   {-0x4, true, 7},  {0x14, false, 7}, {-0x8, true, 11},
                                          {0xc, false, 7},   {-0xc, false, 7}, {0x18, false, 7}, {-0x10, false, 7}};
  static constexpr Access kAfterYield = {-0x10, true, 6};  // mov %eax,%gs:0xfffffff0 (A3, moffs)
  TlsStream s;
  s.threads = threads;
  u8 thread = 0;
  auto add = [&](const Access& a) {
    const i32 offset = positive && a.offset < 0 ? -a.offset : a.offset;
    s.records.push_back(tls_access(offset, 4, a.write, a.length, thread));
  };
  for (u32 i = 0; i < iterations; ++i) {
    for (const Access& a : kOperation) add(a);
    if ((i + 1) % period == 0) {
      thread = static_cast<u8>((thread + 1) % threads);
      s.records.push_back(tls_switch(thread));
      add(kAfterYield);
    }
  }
  return s;
}

}  // namespace

TlsStream synthetic_tls_stream(u32 iterations, u32 period) { return synthetic(iterations, period, 1, false); }

TlsStream tls_stream_pattern(const std::string& name) {
  if (name == "synthetic") return synthetic(1024, 16, 1, false);
  if (name == "positive") return synthetic(1024, 16, 1, true);
  if (name.rfind("threads:", 0) == 0) {
    const std::string count = name.substr(8);
    if (count.empty() || count.size() > 2 || count.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(count) < 1 || std::stoul(count) > TLS_STREAM_MAX_THREADS)
      throw InputError("--pattern " + name + ": the thread count must be 1.." + std::to_string(TLS_STREAM_MAX_THREADS));
    return synthetic(1024, 16, static_cast<u32>(std::stoul(count)), false);
  }
  throw InputError("unknown --pattern '" + name + "' (synthetic, positive, threads:T)");
}

}  // namespace x86lab
