// String instructions: MOVS CMPS SCAS LODS STOS INS OUTS with REP/REPE/REPNE (Intel SDM
// Vol. 2, each instruction's page and "REP/REPE/REPZ/REPNE/REPNZ"). Each iteration
// commits ECX, ESI and EDI, so a fault part-way leaves them exact and the instruction
// restarts where it stopped (EFLAGS: repeat_comparisons). A repeated instruction runs
// in batches: between batches EIP points back at the instruction, so interrupts are
// taken between iterations, with RF = 1 pushed (Cpu::end_string_step).
#include "cpu/alu.h"
#include "cpu/cpu.h"
#include "cpu/instruction_table.h"
#include "cpu/io_permission.h"

namespace x86lab {
namespace {

constexpr u32 kBatchIterations = 1024;

enum class StringOp { Movs, Cmps, Scas, Lods, Stos, Ins, Outs };

// Adds `delta` to ESI or EDI with the address size.
void advance(Cpu& c, const Instruction& i, unsigned reg, u32 delta) {
  if (i.address_size_32) c.state.gpr[reg] += delta;
  else c.set_reg<u16>(reg, static_cast<u16>(c.state.gpr[reg] + delta));
}

// One iteration; false when an element's access faulted (signalled, nothing of the
// iteration done).
template <class T, StringOp kOp>
[[nodiscard]] bool iterate(Cpu& c, const Instruction& i, u32 delta) {
  const u32 mask = i.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
  const u32 si = c.state.gpr[ESI] & mask, di = c.state.gpr[EDI] & mask;
  T source, destination;
  switch (kOp) {
    case StringOp::Movs:
      if (!c.try_read<T>(i.segment, si, source) || !c.try_write<T>(ES, di, source)) return false;
      advance(c, i, ESI, delta);
      advance(c, i, EDI, delta);
      break;
    case StringOp::Cmps:
      // ES:EDI is read first (so a fault in both elements is the destination's).
      if (!c.try_read<T>(ES, di, destination) || !c.try_read<T>(i.segment, si, source)) return false;
      c.set_flags(alu::sub<T>(source, destination).flags, flag::kStatus);
      advance(c, i, ESI, delta);
      advance(c, i, EDI, delta);
      break;
    case StringOp::Scas:
      if (!c.try_read<T>(ES, di, destination)) return false;
      c.set_flags(alu::sub<T>(c.reg<T>(EAX), destination).flags, flag::kStatus);
      advance(c, i, EDI, delta);
      break;
    case StringOp::Lods:
      if (!c.try_read<T>(i.segment, si, source)) return false;
      c.set_reg<T>(EAX, source);
      advance(c, i, ESI, delta);
      break;
    case StringOp::Stos:
      if (!c.try_write<T>(ES, di, c.reg<T>(EAX))) return false;
      advance(c, i, EDI, delta);
      break;
    case StringOp::Ins: {
      const u16 port = c.reg<u16>(EDX);
      check_io_permission(c, port, sizeof(T));
      c.check_write(ES, di, sizeof(T));
      c.write<T>(ES, di, static_cast<T>(c.ports().read(port, sizeof(T))));
      advance(c, i, EDI, delta);
      break;
    }
    case StringOp::Outs: {
      const u16 port = c.reg<u16>(EDX);
      check_io_permission(c, port, sizeof(T));
      if (!c.try_read<T>(i.segment, si, source)) return false;
      c.ports().write(port, sizeof(T), source);
      advance(c, i, ESI, delta);
      break;
    }
  }
  return true;
}

// Up to one batch of iterations of a repeated string instruction; true when it stops
// with iterations left. After a faulting element (Cpu::fault_signalled) the value
// means nothing.
template <class T, StringOp kOp>
bool repeat_batch(Cpu& c, const Instruction& i, u32 delta) {
  const u32 batch = c.flag_set(flag::TF) ? 1 : kBatchIterations;
  for (u32 n = 0; n < batch; ++n) {
    const u32 count = i.address_size_32 ? c.state.gpr[ECX] : c.state.gpr[ECX] & 0xFFFF;
    if (count == 0) return false;
    if (!iterate<T, kOp>(c, i, delta)) return false;
    c.clock().charge(CostPart::StringIteration);  // the cost model's per-element price
    if (i.address_size_32) --c.state.gpr[ECX];
    else c.set_reg<u16>(ECX, static_cast<u16>(count - 1));
    if constexpr (kOp == StringOp::Cmps || kOp == StringOp::Scas) {
      const bool zf = c.flag_set(flag::ZF);
      if ((i.rep == 0xF3 && !zf) || (i.rep == 0xF2 && zf)) return false;
    }
  }
  const u32 remaining = i.address_size_32 ? c.state.gpr[ECX] : c.state.gpr[ECX] & 0xFFFF;
  return remaining != 0;
}

// REPE/REPNE CMPS and SCAS. QUIRK: the status flags of the comparisons become visible
// only when the instruction completes. Stopped with iterations left (a fault in an
// element, a single-step trap or an interrupt between iterations), EFLAGS keeps the
// values from before the instruction, while ECX, ESI and EDI show the elements done.
// Captured on an Intel host (Xeon): REPE CMPSB after "cmp 0, 1" (CF = SF = 1, ZF = 0)
// over two equal bytes and then an unmapped page faults with RCX less 2 and those
// flags; under TF each iteration's trap shows them too, and the completing iteration's
// trap the last comparison's. The SDM says only that the registers allow the
// instruction to resume. A batch starts with the flags from before the instruction
// (a resumed one had them restored), so restoring the batch's are those, for a
// signalled fault as for a thrown one (#AC). The try costs nothing until a fault is
// thrown.
template <class T, StringOp kOp>
bool repeat_comparisons(Cpu& c, const Instruction& i, u32 delta) {
  const u32 before = c.state.eflags;
  bool unfinished;
  try {
    unfinished = repeat_batch<T, kOp>(c, i, delta);
  } catch (...) {
    c.set_flags(before, flag::kStatus);
    throw;
  }
  if (unfinished || c.fault_signalled()) c.set_flags(before, flag::kStatus);
  return unfinished;
}

template <class T, StringOp kOp>
void string(Cpu& c, const Instruction& i) {
  const u32 delta = c.flag_set(flag::DF) ? static_cast<u32>(-static_cast<i32>(sizeof(T))) : sizeof(T);
  if (!i.rep) {
    (void)iterate<T, kOp>(c, i, delta);  // (nothing follows)
    return;
  }
  bool unfinished;
  if constexpr (kOp == StringOp::Cmps || kOp == StringOp::Scas) unfinished = repeat_comparisons<T, kOp>(c, i, delta);
  else unfinished = repeat_batch<T, kOp>(c, i, delta);
  if (c.fault_signalled()) [[unlikely]] return;
  // Unfinished, EIP points back at the instruction: it continues in the next step, and
  // an event taken before then pushes RF = 1.
  c.end_string_step(unfinished);
}

// The rows of cpu/opcode_map.tsv whose family is exec_string (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_string.inc"
};

}  // namespace

FormList string_forms() { return kForms; }

}  // namespace x86lab
