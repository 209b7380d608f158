// The three trace sinks and the text form of an event.
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "trace/binary_format.h"
#include "trace/fault.h"
#include "trace/output_file.h"
#include "trace/sink.h"

namespace x86lab {
namespace {

constexpr const char* kSegmentRegisterNames[8] = {"es", "cs", "ss", "ds", "fs", "gs", "ldtr", "tr"};
constexpr const char* kControlNames[12] = {"cr0", "cr1", "cr2", "cr3", "cr4", "?", "?", "?", "gdtr", "idtr", "ldtr", "tr"};
constexpr const char* kExceptionNames[32] = {"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF", "#MF9",
                                             "#TS", "#NP", "#SS", "#GP", "#PF", "#15", "#MF", "#AC", "#MC", "#XM",
                                             "#20", "#21", "#22", "#23", "#24", "#25", "#26", "#27", "#28", "#29",
                                             "#30", "#31"};
constexpr const char* kSourceNames[8] = {"exception", "int", "external", "nmi", "int1", "?", "?", "?"};

std::string hex(u64 value, int digits) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%0*llx", digits, static_cast<unsigned long long>(value));
  return buffer;
}

}  // namespace

// Appends each piece to `line` (plain appends sidestep a GCC 12 -Wrestrict false
// positive on chained std::string concatenation).
template <class... Pieces>
void add(std::string& line, const Pieces&... pieces) {
  (line.append(pieces), ...);
}

namespace {

// ---- the text format: one row per record -------------------------------------------

void format_record(std::string& line, const events::Instruction& r, InstructionText text) {
  add(line, "insn ", hex(r.cs, 4), ":", hex(r.eip, 8), " lin=", hex(r.linear, 8), " cpl=", std::to_string(r.cpl), " ");
  for (const u8 byte : r.bytes) add(line, hex(byte, 2));
  add(line, " ", text && r.code_size ? text(r.bytes, r.code_size == 32, r.eip) : std::string(r.mnemonic));
}

void format_record(std::string& line, const events::RegisterWrite& r) {
  add(line, "reg ", std::string(r.reg < kRegisterNames.size() ? kRegisterNames[r.reg] : "?"), " ", hex(r.old_value, 8),
      "->", hex(r.new_value, 8));
}
void format_record(std::string& line, const events::MemoryAccess& r) {
  if (r.access == AccessKind::InterruptAcknowledge) {
    add(line, "mem inta LOCK vector=", hex(r.value, 2));
    return;
  }
  const auto kind = static_cast<std::size_t>(r.access);
  add(line, "mem ", r.locked ? "rmw " : r.write ? "w " : "r ",
      std::string(kind < kAccessKindCount ? kAccessKindNames[kind] : "?"), r.locked ? " LOCK" : "", " lin=",
      hex(r.linear, 8), " phys=", hex(r.physical, 8), " size=", std::to_string(r.size), " value=");
  if (r.locked) add(line, hex(r.old_value, r.size * 2), "->");
  add(line, hex(r.value, r.size * 2));
}
void format_record(std::string& line, const events::SegmentLoad& r) {
  add(line, "seg ", kSegmentRegisterNames[r.reg & 7], " sel=", hex(r.selector, 4));
  if (r.null_selector) {
    add(line, " null");
  } else if (r.no_descriptor) {
    add(line, " base=", hex(r.base, 8), " limit=", hex(r.limit, 8), " no-descriptor");
  } else {
    add(line, r.from_ldt ? " ldt[" : " gdt[", std::to_string(r.selector >> 3), "] desc=", hex(r.descriptor, 16),
        " base=", hex(r.base, 8), " limit=", hex(r.limit, 8), r.accessed_written ? " accessed-bit-written" : "");
  }
}
void format_record(std::string& line, const events::Exception& r) {
  add(line, "exc ", r.vector < 32 ? kExceptionNames[r.vector] : "int", " vector=", std::to_string(r.vector));
  if (r.has_error_code) add(line, " error=", hex(r.error_code, 4));
  add(line, " src=", kSourceNames[r.source & 7], " at ", hex(r.cs, 4), ":", hex(r.eip, 8),
      r.double_fault ? " double-fault" : "", r.shutdown ? " SHUTDOWN" : "");
  if (!r.cause.empty()) add(line, " cause=\"", std::string(r.cause), "\"");
}
void format_record(std::string& line, const events::TaskSwitch& r) {
  add(line, "task ", hex(r.old_tr, 4), "->", hex(r.new_tr, 4), " reason=", std::to_string(r.reason));
}
void format_record(std::string& line, const events::Io& r) {
  add(line, "io ", r.write ? "out" : "in", " port=", hex(r.port, 4), " size=", std::to_string(r.size),
      " value=", hex(r.value, r.size * 2));
  if (!r.device.empty()) add(line, " device=", std::string(r.device));
}
void format_record(std::string& line, const events::ControlRegister& r) {
  add(line, "cr ", kControlNames[r.which < 12 ? r.which : 5], " ", hex(r.old_value, 8), "->", hex(r.new_value, 8));
}
void format_record(std::string& line, const events::PageWalk& r) {
  add(line, "walk lin=", hex(r.linear, 8), " phys=", hex(r.physical, 8), " pde=", hex(r.entries >> 32, 8), " pte=",
      hex(r.entries & 0xFFFFFFFFu, 8), r.write ? " write" : "");
}
void format_record(std::string& line, const events::TlbMiss& r) { add(line, "tlb-miss lin=", hex(r.linear, 8)); }
void format_record(std::string& line, const events::Halt&) { add(line, "halt"); }
void format_record(std::string& line, const events::Wake& r) { add(line, "wake vector=", std::to_string(r.vector)); }

// The APIC rows: vectors, priorities and APIC IDs in hex (as the SDM's register
// figures give them).
std::string delivery_mode(u8 mode) { return std::string(events::kApicDeliveryModeNames[mode & 7]); }
std::string destination(bool logical, u8 value) { return (logical ? "logical:" : "physical:") + hex(value, 2); }

void format_record(std::string& line, const events::LapicAccept& r) {
  const auto source = static_cast<std::size_t>(r.source);
  add(line, "lapic-accept vector=", hex(r.vector, 2), " mode=", delivery_mode(r.delivery_mode),
      r.level ? " level" : " edge", " src=",
      std::string(source < events::kApicSourceNames.size() ? events::kApicSourceNames[source] : "?"));
  if (r.source == events::ApicSource::Ipi) add(line, " from=", hex(r.source_apic_id, 2));
  add(line, " apic=", hex(r.apic_id, 2));
}
void format_record(std::string& line, const events::LapicDispatch& r) {
  add(line, "lapic-dispatch vector=", hex(r.vector, 2), " ppr=", hex(r.ppr, 2), r.spurious ? " spurious" : "",
      " apic=", hex(r.apic_id, 2));
}
void format_record(std::string& line, const events::LapicEoi& r) {
  add(line, "lapic-eoi vector=", hex(r.vector, 2), r.level ? " level broadcast" : " edge", " apic=", hex(r.apic_id, 2));
}
void format_record(std::string& line, const events::LapicIpi& r) {
  static constexpr const char* kShorthands[4] = {"none", "self", "all-including-self", "all-excluding-self"};
  add(line, "lapic-ipi vector=", hex(r.vector, 2), " mode=", delivery_mode(r.delivery_mode), " dest=",
      destination(r.logical, r.destination), " shorthand=", kShorthands[r.shorthand & 3], r.level ? " level" : " edge",
      r.assert ? " assert" : " deassert", " apic=", hex(r.apic_id, 2));
}
void format_record(std::string& line, const events::LapicTimer& r) {
  add(line, "lapic-timer vector=", hex(r.vector, 2), r.periodic ? " periodic" : " one-shot", " initial=",
      hex(r.initial_count, 8), " at=", std::to_string(r.cycle), " apic=", hex(r.apic_id, 2));
}
void format_record(std::string& line, const events::IoApicDelivery& r) {
  add(line, "ioapic-delivery pin=", std::to_string(r.pin), " vector=", hex(r.vector, 2), " mode=",
      delivery_mode(r.delivery_mode), " dest=", destination(r.logical, r.destination), r.level ? " level" : " edge",
      r.taken ? " taken" : " not-taken");
}

}  // namespace

std::string format_event(const Event& e, InstructionText text) {
  std::string line;
  add(line, "#", std::to_string(e.instruction), " c=", std::to_string(e.cycle), " ");
  events::visit(e, [&]<class Record>(const Record& record) {
    if constexpr (std::is_same_v<Record, events::Instruction>) format_record(line, record, text);
    else format_record(line, record);
  });
  return line;
}

namespace {

std::unique_ptr<OutputFile> create(const std::string& path) { return std::make_unique<OutputFile>(path, "trace file"); }

// The file part of every file sink.
class FileSink : public TraceSink {
 public:
  explicit FileSink(std::unique_ptr<OutputFile> output) : output_(std::move(output)), file_(output_->stream()) {}
  void start() override { output_->start(); }

 protected:
  std::unique_ptr<OutputFile> output_;
  std::FILE* file_;
};

class TextSink : public FileSink {
 public:
  TextSink(std::unique_ptr<OutputFile> output, InstructionText text) : FileSink(std::move(output)), text_(text) {}
  void write(const Event& event) override {
    const std::string line = format_event(event, text_);
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fputc('\n', file_);
  }
  void finish() override { output_->finish(); }

 private:
  InstructionText text_;
};

class BinarySink : public FileSink {
 public:
  explicit BinarySink(std::unique_ptr<OutputFile> output) : FileSink(std::move(output)), writer_(file_) {}
  void write(const Event& event) override { writer_.write(event); }
  void finish() override {
    writer_.finish();
    output_->finish();
  }

 private:
  BinaryTraceWriter writer_;
};

// Chrome trace-event JSON (read by Perfetto and chrome://tracing): exceptions,
// interrupts and task switches as complete slices ("ph":"X") of their delivery, the
// retired-instruction count as a counter track ("ph":"C"), the APIC events as
// instant events ("ph":"i"). ts is in microseconds
// derived from modeled cycles and the CPU clock.
class PerfettoSink : public FileSink {
 public:
  PerfettoSink(std::unique_ptr<OutputFile> output, double cpu_mhz)
      : FileSink(std::move(output)), mhz_(cpu_mhz > 0 ? cpu_mhz : 1) {
    std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", file_);
  }
  void write(const Event& e) override {
    const double ts = static_cast<double>(e.cycle) / mhz_;
    events::visit(e, [&](const auto& record) { row(ts, record); });
  }
  void finish() override {
    std::fputs("\n]}\n", file_);
    output_->finish();
  }

 private:
  // One row per record the JSON shows; the other kinds leave no record.
  void row(double ts, const events::Exception& r) {
    emit("{\"name\":\"vector " + std::to_string(r.vector) + "\",\"cat\":\"exception\",\"ph\":\"X\",\"ts\":" +
         number(ts) + ",\"dur\":" + number(1 / mhz_) + ",\"pid\":1,\"tid\":1,\"args\":{\"cause\":\"" +
         std::string(r.cause) + "\"}}");
  }
  void row(double ts, const events::TaskSwitch&) {
    emit("{\"name\":\"task switch\",\"cat\":\"task\",\"ph\":\"X\",\"ts\":" + number(ts) + ",\"dur\":" +
         number(1 / mhz_) + ",\"pid\":1,\"tid\":2}");
  }
  void row(double ts, const events::Instruction&) {
    if (++instructions_ % 1000 == 0)
      emit("{\"name\":\"instructions\",\"ph\":\"C\",\"ts\":" + number(ts) + ",\"pid\":1,\"args\":{\"retired\":" +
           std::to_string(instructions_) + "}}");
  }
  void row(double ts, const events::MemoryAccess& r) {
    if (r.locked)
      emit("{\"name\":\"locked accesses\",\"ph\":\"C\",\"ts\":" + number(ts) + ",\"pid\":1,\"args\":{\"locked\":" +
           std::to_string(++locked_) + "}}");
  }
  // The APICs: instant events ("ph":"i") on a local APIC track (tid 3) and an I/O APIC
  // track (tid 4), named as the text format names them.
  void row(double ts, const events::LapicAccept& r) { instant(ts, 3, "accept", r.vector); }
  void row(double ts, const events::LapicDispatch& r) { instant(ts, 3, r.spurious ? "spurious" : "dispatch", r.vector); }
  void row(double ts, const events::LapicEoi& r) { instant(ts, 3, "eoi", r.vector); }
  void row(double ts, const events::LapicIpi& r) { instant(ts, 3, "ipi", r.vector); }
  void row(double ts, const events::LapicTimer& r) { instant(ts, 3, "timer", r.vector); }
  void row(double ts, const events::IoApicDelivery& r) {
    instant(ts, 4, "pin " + std::to_string(r.pin), r.vector);
  }
  template <class Record>
  void row(double, const Record&) {}
  void instant(double ts, int tid, const std::string& what, u8 vector) {
    emit("{\"name\":\"" + what + " " + hex(vector, 2) + "h\",\"cat\":\"apic\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" +
         number(ts) + ",\"pid\":1,\"tid\":" + std::to_string(tid) + ",\"args\":{\"vector\":" +
         std::to_string(vector) + "}}");
  }
  static std::string number(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6f", value);
    return buffer;
  }
  void emit(const std::string& record) {
    if (!first_) std::fputs(",\n", file_);
    first_ = false;
    std::fwrite(record.data(), 1, record.size(), file_);
  }
  double mhz_;
  bool first_ = true;
  u64 instructions_ = 0, locked_ = 0;
};

}  // namespace

std::unique_ptr<TraceSink> open_sink(const std::string& spec, double cpu_mhz, InstructionText text) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos || colon + 1 == spec.size())
    throw std::invalid_argument("--trace must be text:PATH, bin:PATH or perfetto:PATH, not '" + spec + "'");
  const std::string kind = spec.substr(0, colon), path = spec.substr(colon + 1);
  if (kind == "text") return std::make_unique<TextSink>(create(path), text);
  if (kind == "bin") return std::make_unique<BinarySink>(create(path));
  if (kind == "perfetto") return std::make_unique<PerfettoSink>(create(path), cpu_mhz);
  throw std::invalid_argument("--trace kind must be text, bin or perfetto, not '" + kind + "'");
}

}  // namespace x86lab
