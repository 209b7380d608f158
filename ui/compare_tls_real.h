// `x86lab compare tls-real` (docs/compare.md, "compare tls-real"): a real workload of
// the Linux compare guest (scripts/fetch-linux-compare-guest.sh; default `ls -R` of
// 1,000 files with Debian's glibc) is booted and its TLS stream recorded between the
// workload markers (cached in the guest cache), then the tls-stream scenario replays
// that stream through every TLS design. This module does the recording and, after the
// replay, the summary: per design the faults, replays, flips, instructions, modeled
// cycles and the slowdown of the real workload beside the seed's figures.
#pragma once
#include <functional>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "platform/scenario/scenario_runner.h"
#include "platform/scenario/tls_real.h"

namespace x86lab {

struct TlsRealRun {
  std::string workload;  // the tls-real variant (ls, find, threads, boot)
  RecordedWorkload recorded;
  // The stack-protector knob: "as recorded", or "none" (without_canary_reads).
  std::string stack_protector = "as recorded";
  u64 canary_reads_removed = 0;
};

// The recording without the stack protector's canary reads, approximating binaries built
// before GCC's -fstack-protector (2006; the seed measured in 2004): glibc's i386 TCB keeps
// the guard at %gs:0x14 (tcbhead_t.stack_guard), which protected functions read in their
// prologue and epilogue, so every 4-byte read at offset 0x14 is dropped. The stream goes to
// a temporary file; the workload's own cycles W stay as recorded (the two reads per call
// it no longer makes are a small part of W).
TlsRealRun without_canary_reads(const TlsRealRun& run);

// Loads `scenario_dir`/tls-real/variants.json, boots the workload variant `workload`
// (InputError for an unknown one, a missing guest, or a run that does not reach its
// markers and halt) with the model of `base`, and returns the recording. `use_cache`:
// take/store it in guest_cache_dir()/tls-streams/. Says on stderr what it does (a boot
// takes minutes).
TlsRealRun record_tls_real(const std::filesystem::path& scenario_dir, const std::string& workload,
                           const MachineConfig& base, bool use_cache, const std::function<void()>& before_recording = {});

// The summary of the replay `results` (the tls-stream variants, native first) for the
// recording: a table and the comparison with the seed in words (text), and the same
// as JSON (tls-real.json: the workload's counts, the stream's and each design's).
// `model` prices the runs' ledgers for the slowdowns' intervals over the assumption ranges.
void write_tls_real_text(std::ostream& out, const TlsRealRun& run, const std::vector<VariantResult>& results,
                         const CostModel& model);
void write_tls_real_json(std::ostream& out, const TlsRealRun& run, const std::vector<VariantResult>& results,
                         const CostModel& model);

}  // namespace x86lab
