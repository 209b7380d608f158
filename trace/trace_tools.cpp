// Binary trace tools: dump, stats and diff.
#include "trace/trace_tools.h"

#include <array>
#include <map>
#include <ostream>

#include <set>

#include "trace/binary_format.h"
#include "trace/output_file.h"
#include "trace/sink.h"

namespace x86lab {
namespace {

bool open_or_report(BinaryTraceReader& reader, const std::string& path, std::ostream& err) {
  std::string error;
  if (reader.open(path, error)) return true;
  err << "x86lab: " << error << "\n";
  return false;
}

// The code size of each Instruction event of a trace read back, which the binary
// format does not record: CS.D of the last CS load in the trace (the descriptor's D
// bit, bit 54; 16-bit after a real or virtual-8086 mode load), in force from the
// instruction after the one that loaded it (a far transfer runs in the size it started
// in); before any CS load, 16-bit when the linear address is CS * 16 + EIP (real mode;
// or FFFF0000h + EIP with CS F000h, the reset state of SDM Vol. 3 "First Instruction
// Executed"), else 32-bit. A trace filtered without `seg` events, or started by a trigger
// after 16-bit protected-mode code was entered, can be shown in the wrong size.
class CodeSizes {
 public:
  void fill(Event& e) {
    if (pending_ && e.instruction != pending_instruction_) apply();
    if (e.kind == EventKind::SegmentLoad) {
      const auto load = events::from_event<events::SegmentLoad>(e);
      if (load.reg != 1 || load.null_selector) return;  // CS only
      pending_ = load.no_descriptor || !((load.descriptor >> 54) & 1) ? 16 : 32;
      pending_instruction_ = e.instruction;
    } else if (e.kind == EventKind::Instruction && e.code_size == 0) {
      const bool real_mode_address = e.c == (e.a << 4) + e.b || (e.a == 0xF000 && e.c == 0xFFFF0000u + e.b);
      e.code_size = size_ ? size_ : real_mode_address ? 16 : 32;
      if (pending_) apply();
    }
  }

 private:
  void apply() {
    size_ = pending_;
    pending_ = 0;
  }
  u8 size_ = 0, pending_ = 0;  // 0: none
  u64 pending_instruction_ = 0;
};

bool same(const Event& x, const Event& y) {
  return x.kind == y.kind && x.detail == y.detail && x.flags == y.flags && x.size == y.size && x.a == y.a &&
         x.b == y.b && x.c == y.c && x.value == y.value && x.instruction == y.instruction && x.cycle == y.cycle &&
         x.bytes == y.bytes && x.text == y.text;
}

}  // namespace

int trace_dump(const std::string& path, std::ostream& out, std::ostream& err, InstructionText text, u64 from, u64 to) {
  BinaryTraceReader reader;
  if (!open_or_report(reader, path, err)) return 2;
  Event event;
  CodeSizes sizes;
  if (from > 0 && !reader.seek_instruction(from) && reader.error().empty()) return 0;  // nothing from there on
  while (reader.error().empty() && reader.next(event)) {
    if (event.instruction > to) break;
    sizes.fill(event);
    out << format_event(event, text) << "\n";
  }
  if (!reader.error().empty()) {
    err << "x86lab: " << reader.error() << "\n";
    return 2;
  }
  return 0;
}

int trace_convert(const std::string& path, const std::string& out_path, std::ostream& err, u64 from, u64 to) {
  BinaryTraceReader reader;
  if (!open_or_report(reader, path, err)) return 2;
  if (from > 0 && reader.version() >= 4 && !reader.seek_instruction(from) && !reader.error().empty()) {
    err << "x86lab: " << reader.error() << "\n";
    return 2;
  }
  std::set<std::string, std::less<>> strings;  // the writer keeps string views for a chunk
  try {
    OutputFile output(out_path, "trace file");
    output.start();
    {
      BinaryTraceWriter writer(output.stream());
      Event e;
      while (reader.next(e)) {
        if (e.instruction < from) continue;  // (versions 2 and 3: no index to seek with)
        if (e.instruction > to) break;
        if (!e.text.empty()) e.text = *strings.emplace(e.text).first;
        writer.write(e);
      }
      if (!reader.error().empty()) {
        err << "x86lab: " << reader.error() << "\n";
        return 2;
      }
      writer.finish();
    }
    output.finish();
  } catch (const OutputError& error) {
    err << "x86lab: " << error.what() << "\n";
    return 2;
  }
  return 0;
}

int trace_stats(const std::string& path, std::ostream& out, std::ostream& err) {
  BinaryTraceReader reader;
  if (!open_or_report(reader, path, err)) return 2;
  std::array<u64, kEventKindCount> by_kind{};
  std::array<u64, kAccessKindCount> accesses{}, locked{};
  std::map<unsigned, u64> vectors, apic_vectors;
  u64 total = 0, last_instruction = 0, last_cycle = 0;
  Event e;
  while (reader.next(e)) {
    ++total;
    ++by_kind[static_cast<std::size_t>(e.kind)];
    if (e.kind == EventKind::MemoryAccess && e.detail < kAccessKindCount) {
      ++accesses[e.detail];
      if (e.flags & kEventLocked) ++locked[e.detail];
    }
    if (e.kind == EventKind::Exception) ++vectors[e.detail];
    if (e.kind == EventKind::LapicDispatch && !(e.flags & kEventApicSpurious)) ++apic_vectors[e.detail];
    last_instruction = e.instruction;
    last_cycle = e.cycle;
  }
  if (!reader.error().empty()) {
    err << "x86lab: " << reader.error() << "\n";
    return 2;
  }
  out << "events " << total << "\n";
  out << "last-instruction " << last_instruction << "\n";
  out << "last-cycle " << last_cycle << "\n";
  for (std::size_t k = 0; k < kEventKindCount; ++k)
    if (by_kind[k]) out << "kind." << kEventKindNames[k] << " " << by_kind[k] << "\n";
  for (std::size_t k = 0; k < kAccessKindCount; ++k) {
    if (accesses[k]) out << "access." << kAccessKindNames[k] << " " << accesses[k] << "\n";
    if (locked[k]) out << "locked." << kAccessKindNames[k] << " " << locked[k] << "\n";
  }
  for (const auto& [vector, count] : vectors) out << "vector." << vector << " " << count << "\n";
  // As --stats's apic-vector.N: vectors the local APIC dispatched from IRR.
  for (const auto& [vector, count] : apic_vectors) out << "apic-vector." << vector << " " << count << "\n";
  return 0;
}

int trace_diff(const std::string& path_a, const std::string& path_b, std::ostream& out, std::ostream& err,
               InstructionText text) {
  BinaryTraceReader a, b;
  if (!open_or_report(a, path_a, err) || !open_or_report(b, path_b, err)) return 2;
  std::array<u64, kEventKindCount> count_a{}, count_b{};
  Event ea, eb;
  CodeSizes sizes_a, sizes_b;
  u64 index = 0;
  bool differed = false;
  for (;;) {
    const bool more_a = a.next(ea), more_b = b.next(eb);
    if (more_a) sizes_a.fill(ea);
    if (more_b) sizes_b.fill(eb);
    if (more_a) ++count_a[static_cast<std::size_t>(ea.kind)];
    if (more_b) ++count_b[static_cast<std::size_t>(eb.kind)];
    if (!more_a && !more_b) break;
    if (!differed && (more_a != more_b || !same(ea, eb))) {
      differed = true;
      out << "first difference at event " << index << ":\n";
      out << "  A: " << (more_a ? format_event(ea, text) : std::string("(end of trace)")) << "\n";
      out << "  B: " << (more_b ? format_event(eb, text) : std::string("(end of trace)")) << "\n";
    }
    ++index;
  }
  for (const auto* reader : {&a, &b})
    if (!reader->error().empty()) {
      err << "x86lab: " << reader->error() << "\n";
      return 2;
    }
  if (!differed) {
    out << "traces are identical (" << index << " events)\n";
    return 0;
  }
  out << "per-kind counts (A B A-B):\n";
  for (std::size_t k = 0; k < kEventKindCount; ++k)
    if (count_a[k] != count_b[k])
      out << "  " << kEventKindNames[k] << " " << count_a[k] << " " << count_b[k] << " "
          << static_cast<long long>(count_a[k]) - static_cast<long long>(count_b[k]) << "\n";
  return 1;
}

}  // namespace x86lab
