// Trace sinks: where events go. Text (one readable line per event), binary (compact,
// versioned, docs/trace-format.md) and Perfetto/Chrome JSON (faults, interrupts and
// task switches as slices, counters as tracks).
#pragma once
#include <cstdio>
#include <memory>
#include <string>

#include "trace/events.h"

namespace x86lab {

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void write(const Event& event) = 0;
  // Called once before the run writes (a file sink empties its file here).
  virtual void start() {}
  // Flushes and closes the output; called once at the end of a run. A file sink
  // throws OutputError (trace/output_file.h) when its file could not be written.
  virtual void finish() = 0;
};

// The text line of one event, without the newline (shared by the text sink and
// `x86lab trace dump`).
std::string format_event(const Event& event);

// Opens a sink from "text:PATH", "bin:PATH" or "perfetto:PATH" (an OutputFile: the
// file is emptied only at start()). Throws std::invalid_argument (a bad spec) or
// OutputError (a file that cannot be opened), each with one line naming the spec or
// the file.
std::unique_ptr<TraceSink> open_sink(const std::string& spec, double cpu_mhz);

}  // namespace x86lab
