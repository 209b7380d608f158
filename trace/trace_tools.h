// `x86lab trace dump|stats|diff`: reading binary traces (docs/trace-format.md).
// Each returns the process exit status: 0 success (diff: no difference), 1 a
// difference found (diff only), 2 bad input (message on `err`, one line).
#pragma once
#include <iosfwd>
#include <string>

#include "trace/sink.h"

namespace x86lab {

// With `text`, instructions are printed with their operands (format_event); the code
// size each was decoded in, which the binary format does not record, is inferred
// (CodeSizes in trace_tools.cpp, docs/tracing.md "Instruction text").
// Only the events of instructions `from` to `to` (inclusive): a version-4 trace starts
// reading at the chunk that holds `from` (its index), so a dump of one instruction of a
// long trace reads one chunk.
int trace_dump(const std::string& path, std::ostream& out, std::ostream& err, InstructionText text = nullptr,
               u64 from = 0, u64 to = ~u64{0});
// Rewrites the binary trace at `path` (any version the reader takes) in the current
// version at `out_path` (an OutputFile: nothing is left behind on failure): the events
// of instructions `from` to `to` (inclusive; all by default). A cut of a full trace is
// byte for byte the trace of a run with --trace-filter window=FROM-(TO+1), which is
// what `x86lab trace window` writes (docs/tracing.md "Trace windows").
int trace_convert(const std::string& path, const std::string& out_path, std::ostream& err, u64 from = 0,
                  u64 to = ~u64{0});
int trace_stats(const std::string& path, std::ostream& out, std::ostream& err);
// Reports the first event that differs (index and both events) and the per-kind
// count differences.
int trace_diff(const std::string& a, const std::string& b, std::ostream& out, std::ostream& err,
               InstructionText text = nullptr);

}  // namespace x86lab
