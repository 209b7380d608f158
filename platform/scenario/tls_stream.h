// The recorded TLS access stream that the tls scenario's stream mode replays (issue 25,
// docs/scenarios/tls.md "Stream mode"; the layout is roms/scenarios/tls/stream.h, shared
// with the guest): writing and reading the file, and the synthetic streams the tests
// and `x86lab compare make-stream` use when no Linux recording is at hand.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "roms/scenarios/tls/stream.h"
#include "trace/types.h"

namespace x86lab {

struct TlsStream {
  u32 threads = 1;                          // T, 1..TLS_STREAM_MAX_THREADS
  std::vector<tls_stream_record> records;  // accesses and switch markers, in order
};

// The access record (size 1, 2 or 4; length 1..15 instruction bytes) and the switch marker.
tls_stream_record tls_access(i32 offset, u8 size, bool write, u8 length, u8 thread = 0);
tls_stream_record tls_switch(u8 thread);

// The file bytes: the 24-byte header, then 8 bytes per record, little-endian.
std::vector<u8> encode_tls_stream(const TlsStream& stream);

// Parses file bytes. Throws InputError "TLS stream '<name>': <problem>" for a short
// file, a wrong magic, version or reserved word, a size that is not 24 + 8 x N, or a
// thread count of 0.
TlsStream decode_tls_stream(const std::vector<u8>& bytes, const std::string& name);

// Writes encode_tls_stream(stream) to `path`; InputError naming the file when it cannot.
void write_tls_stream(const TlsStream& stream, const std::filesystem::path& path);

// The access pattern of the synthetic tls program (roms/scenarios/tls/user.c as gcc 12
// compiles it, docs/scenarios/tls.md "What runs"): `iterations` calls of tls_operation()
// (+8 read, -4 MOV r->m, +0x14 read, -8 MOV imm->m, +0xc read, -0xc CMP, +0x18 read,
// -0x10 MOV m->r; all 4 bytes, with their instruction lengths) and, after every
// `period`-th call, a switch marker to thread 0 and the store of tls_after_yield()
// (-0x10, MOV moffs, 6 bytes). One thread.
TlsStream synthetic_tls_stream(u32 iterations = 1024, u32 period = 16);

// A named pattern for `x86lab compare make-stream --pattern NAME`: "synthetic" (the
// above), "positive" (the synthetic stream with every offset made non-negative: the
// tcbhead reads only), or "threads:T" (the synthetic stream over T threads, switching
// round-robin at each yield). Throws InputError for another name.
TlsStream tls_stream_pattern(const std::string& name);

}  // namespace x86lab
