// Trace sinks: where events go. Text (one readable line per event), binary (compact,
// versioned, docs/trace-format.md) and Perfetto/Chrome JSON (faults, interrupts and
// task switches as slices, counters as tracks).
#pragma once
#include <cstdio>
#include <memory>
#include <span>
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

// The text of an instruction from its bytes: `code32` is CS.D at its start, `eip` its
// offset in CS. The CPU layer's disassembler gives one (cpu/disassembler.h,
// instruction_text); the trace layer below it only calls it.
using InstructionText = std::string (*)(std::span<const u8> bytes, bool code32, u32 eip);

// The text line of one event, without the newline (shared by the text sink, `x86lab
// trace dump` and the GUI's Trace window). With `text`, an Instruction event whose
// code size is known (Event::code_size) ends with the instruction and its operands
// ("mov eax, [ebx+4]"); otherwise with the opcode map's mnemonic ("MOV").
std::string format_event(const Event& event, InstructionText text = nullptr);

// Opens a sink from "text:PATH", "bin:PATH" or "perfetto:PATH" (an OutputFile: the
// file is emptied only at start()); `text` is the text sink's instruction text. Throws
// std::invalid_argument (a bad spec) or OutputError (a file that cannot be opened),
// each with one line naming the spec or the file.
std::unique_ptr<TraceSink> open_sink(const std::string& spec, double cpu_mhz, InstructionText text = nullptr);

}  // namespace x86lab
