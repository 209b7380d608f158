// Trace sinks: where events go. Text (one readable line per event), binary (compact,
// versioned, docs/trace-format.md) and Perfetto/Chrome JSON (faults, interrupts and
// task switches as slices, counters as tracks).
#pragma once
#include <cstdio>
#include <memory>
#include <string>

#include "trace/event.h"

namespace x86lab {

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void write(const Event& event) = 0;
  // Flushes and closes the output; called once at the end of a run.
  virtual void finish() = 0;
};

// The text line of one event, without the newline (shared by the text sink and
// `x86lab trace dump`).
std::string format_event(const Event& event);

// Opens a sink from "text:PATH", "bin:PATH" or "perfetto:PATH". Throws
// std::invalid_argument (a bad spec) or std::runtime_error (a file that cannot be
// created), each with one line naming the spec or the file.
std::unique_ptr<TraceSink> open_sink(const std::string& spec, double cpu_mhz);

}  // namespace x86lab
