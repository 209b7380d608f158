// A real workload as the source of a TLS stream (issue 25; docs/compare.md, "compare
// tls-real"): a Linux guest booted in-process with its COM1 output captured, the TLS
// accesses between its workload markers recorded (platform/scenario/tls_recorder.h),
// and the recording cached in the guest cache under the content hash of what decides it.
#pragma once
#include <filesystem>
#include <string>

#include "platform/machine.h"
#include "platform/scenario/manifest.h"
#include "platform/scenario/tls_recorder.h"

namespace x86lab {

struct RecordedWorkload {
  TlsStream stream;
  TlsWindowCounts window;       // the workload's own instructions and modeled cycles (between the markers)
  u64 accesses = 0, negative_accesses = 0, switches = 0;
  u64 boot_instructions = 0;    // of the whole run, power-on to halt
  std::string serial;           // COM1's output (empty when the stream came from the cache)
  bool from_cache = false;
  std::filesystem::path stream_file;  // where the stream is (the cache, or a temporary file)
};

// The content hash (FNV-1a, 64 bits, as 16 hex digits) of the kernel and initrd bytes,
// the command line, memory size, window and the model (profile, cost model, cache model):
// everything that decides the guest's run. Throws InputError for an unreadable file.
std::string workload_key(const VariantSpec& workload, const MachineConfig& base, const TlsWindow& window);

// Boots `workload` (a "linux" variant) on a fresh machine with the model of `base`,
// recording between the markers of `window`; the run must end with HLT at IF = 0 (the
// guest's `halt -f`) and the window must have opened and closed, else InputError says
// what happened (with the last COM1 line). With a `cache` folder, a stream recorded
// before under the same workload_key is taken from it and a new one is stored there.
RecordedWorkload record_workload(const VariantSpec& workload, const MachineConfig& base, const TlsWindow& window,
                                 const std::filesystem::path& cache);

}  // namespace x86lab
