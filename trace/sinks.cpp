// The three trace sinks and the text form of an event.
#include <cerrno>
#include <cstring>
#include <stdexcept>
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

std::string format_event(const Event& e) {
  std::string line;
  add(line, "#", std::to_string(e.instruction), " c=", std::to_string(e.cycle), " ");
  switch (e.kind) {
    case EventKind::Instruction:
      add(line, "insn ", hex(e.a, 4), ":", hex(e.b, 8), " lin=", hex(e.c, 8), " cpl=", std::to_string(e.detail), " ");
      for (unsigned i = 0; i < e.size && i < 15; ++i) add(line, hex(e.bytes[i], 2));
      add(line, " ", std::string(e.text));
      break;
    case EventKind::RegisterWrite:
      add(line, "reg ", std::string(e.detail < kRegisterNames.size() ? kRegisterNames[e.detail] : "?"), " ",
          hex(e.c, 8), "->", hex(e.value, 8));
      break;
    case EventKind::MemoryAccess:
      if (e.detail == static_cast<u8>(AccessKind::InterruptAcknowledge)) {
        add(line, "mem inta LOCK vector=", hex(e.value, 2));
        break;
      }
      add(line, "mem ", (e.flags & kEventLocked) ? "rmw " : (e.flags & kEventWrite) ? "w " : "r ",
          std::string(e.detail < kAccessKindCount ? name_of(static_cast<AccessKind>(e.detail)) : "?"), (e.flags & kEventLocked) ? " LOCK" : "",
          " lin=", hex(e.a, 8), " phys=", hex(e.b, 8), " size=", std::to_string(e.size), " value=");
      if (e.flags & kEventLocked) add(line, hex(e.c, e.size * 2), "->");
      add(line, hex(e.value, e.size * 2));
      break;
    case EventKind::SegmentLoad:
      add(line, "seg ", kSegmentRegisterNames[e.detail & 7], " sel=", hex(e.a, 4));
      if (e.flags & kEventNullSelector) {
        add(line, " null");
      } else if (e.flags & kEventNoDescriptor) {
        add(line, " base=", hex(e.b, 8), " limit=", hex(e.c, 8), " no-descriptor");
      } else {
        add(line, (e.flags & kEventFromLdt) ? " ldt[" : " gdt[", std::to_string(e.a >> 3), "] desc=",
            hex(e.value, 16), " base=", hex(e.b, 8), " limit=", hex(e.c, 8),
            (e.flags & kEventAccessedWritten) ? " accessed-bit-written" : "");
      }
      break;
    case EventKind::Exception:
      add(line, "exc ", e.detail < 32 ? kExceptionNames[e.detail] : "int", " vector=", std::to_string(e.detail));
      if (e.flags & kEventHasErrorCode) add(line, " error=", hex(e.a, 4));
      add(line, " src=", kSourceNames[e.size & 7], " at ", hex(e.b, 4), ":", hex(e.c, 8),
          (e.flags & kEventDoubleFault) ? " double-fault" : "", (e.flags & kEventShutdown) ? " SHUTDOWN" : "");
      if (!e.text.empty()) add(line, " cause=\"", std::string(e.text), "\"");
      break;
    case EventKind::TaskSwitch:
      add(line, "task ", hex(e.a, 4), "->", hex(e.b, 4), " reason=", std::to_string(e.detail));
      break;
    case EventKind::Io:
      add(line, "io ", (e.flags & kEventWrite) ? "out" : "in", " port=", hex(e.a, 4), " size=", std::to_string(e.size),
          " value=", hex(e.value, e.size * 2));
      if (!e.text.empty()) add(line, " device=", std::string(e.text));
      break;
    case EventKind::ControlRegister:
      add(line, "cr ", kControlNames[e.detail < 12 ? e.detail : 5], " ", hex(e.c, 8), "->", hex(e.value, 8));
      break;
    case EventKind::PageWalk:
      add(line, "walk lin=", hex(e.a, 8), " phys=", hex(e.b, 8), " pde=", hex(e.value >> 32, 8), " pte=",
          hex(e.value & 0xFFFFFFFFu, 8), (e.flags & kEventWrite) ? " write" : "");
      break;
    case EventKind::TlbMiss: add(line, "tlb-miss lin=", hex(e.a, 8)); break;
    case EventKind::Halt: add(line, "halt"); break;
    case EventKind::Wake: add(line, "wake vector=", std::to_string(e.detail)); break;
  }
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
  using FileSink::FileSink;
  void write(const Event& event) override {
    const std::string line = format_event(event);
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fputc('\n', file_);
  }
  void finish() override { output_->finish(); }
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
// retired-instruction count as a counter track ("ph":"C"). ts is in microseconds
// derived from modeled cycles and the CPU clock.
class PerfettoSink : public FileSink {
 public:
  PerfettoSink(std::unique_ptr<OutputFile> output, double cpu_mhz)
      : FileSink(std::move(output)), mhz_(cpu_mhz > 0 ? cpu_mhz : 1) {
    std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", file_);
  }
  void write(const Event& e) override {
    const double ts = static_cast<double>(e.cycle) / mhz_;
    switch (e.kind) {
      case EventKind::Exception:
        emit("{\"name\":\"vector " + std::to_string(e.detail) + "\",\"cat\":\"exception\",\"ph\":\"X\",\"ts\":" +
             number(ts) + ",\"dur\":" + number(1 / mhz_) + ",\"pid\":1,\"tid\":1,\"args\":{\"cause\":\"" +
             std::string(e.text) + "\"}}");
        break;
      case EventKind::TaskSwitch:
        emit("{\"name\":\"task switch\",\"cat\":\"task\",\"ph\":\"X\",\"ts\":" + number(ts) + ",\"dur\":" +
             number(1 / mhz_) + ",\"pid\":1,\"tid\":2}");
        break;
      case EventKind::Instruction:
        if (++instructions_ % 1000 == 0)
          emit("{\"name\":\"instructions\",\"ph\":\"C\",\"ts\":" + number(ts) + ",\"pid\":1,\"args\":{\"retired\":" +
               std::to_string(instructions_) + "}}");
        break;
      case EventKind::MemoryAccess:
        if (e.flags & kEventLocked)
          emit("{\"name\":\"locked accesses\",\"ph\":\"C\",\"ts\":" + number(ts) + ",\"pid\":1,\"args\":{\"locked\":" +
               std::to_string(++locked_) + "}}");
        break;
      default: break;
    }
  }
  void finish() override {
    std::fputs("\n]}\n", file_);
    output_->finish();
  }

 private:
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

std::unique_ptr<TraceSink> open_sink(const std::string& spec, double cpu_mhz) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos || colon + 1 == spec.size())
    throw std::invalid_argument("--trace must be text:PATH, bin:PATH or perfetto:PATH, not '" + spec + "'");
  const std::string kind = spec.substr(0, colon), path = spec.substr(colon + 1);
  if (kind == "text") return std::make_unique<TextSink>(create(path));
  if (kind == "bin") return std::make_unique<BinarySink>(create(path));
  if (kind == "perfetto") return std::make_unique<PerfettoSink>(create(path), cpu_mhz);
  throw std::invalid_argument("--trace kind must be text, bin or perfetto, not '" + kind + "'");
}

}  // namespace x86lab
