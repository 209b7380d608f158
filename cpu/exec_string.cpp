// String instructions: MOVS CMPS SCAS LODS STOS INS OUTS with REP/REPE/REPNE (Intel SDM
// Vol. 2, each instruction's page and "REP/REPE/REPZ/REPNE/REPNZ"). Each iteration
// commits ECX, ESI and EDI, so a fault part-way leaves them exact and the instruction
// restarts where it stopped. A repeated instruction runs in batches: between batches
// EIP points back at the instruction, so interrupts are taken between iterations.
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

template <class T, StringOp kOp>
void iterate(Cpu& c, const Instruction& i, u32 delta) {
  const u32 mask = i.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
  const u32 si = c.state.gpr[ESI] & mask, di = c.state.gpr[EDI] & mask;
  switch (kOp) {
    case StringOp::Movs:
      c.write<T>(ES, di, c.read<T>(i.segment, si));
      advance(c, i, ESI, delta);
      advance(c, i, EDI, delta);
      break;
    case StringOp::Cmps:
      c.set_flags(alu::sub<T>(c.read<T>(i.segment, si), c.read<T>(ES, di)).flags, flag::kStatus);
      advance(c, i, ESI, delta);
      advance(c, i, EDI, delta);
      break;
    case StringOp::Scas:
      c.set_flags(alu::sub<T>(c.reg<T>(EAX), c.read<T>(ES, di)).flags, flag::kStatus);
      advance(c, i, EDI, delta);
      break;
    case StringOp::Lods:
      c.set_reg<T>(EAX, c.read<T>(i.segment, si));
      advance(c, i, ESI, delta);
      break;
    case StringOp::Stos:
      c.write<T>(ES, di, c.reg<T>(EAX));
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
      c.ports().write(port, sizeof(T), c.read<T>(i.segment, si));
      advance(c, i, ESI, delta);
      break;
    }
  }
}

template <class T, StringOp kOp>
void string(Cpu& c, const Instruction& i) {
  const u32 delta = c.flag_set(flag::DF) ? static_cast<u32>(-static_cast<i32>(sizeof(T))) : sizeof(T);
  if (!i.rep) return iterate<T, kOp>(c, i, delta);
  constexpr bool kConditional = kOp == StringOp::Cmps || kOp == StringOp::Scas;
  const u32 batch = c.flag_set(flag::TF) ? 1 : kBatchIterations;
  for (u32 n = 0; n < batch; ++n) {
    const u32 count = i.address_size_32 ? c.state.gpr[ECX] : c.state.gpr[ECX] & 0xFFFF;
    if (count == 0) return;
    iterate<T, kOp>(c, i, delta);
    c.clock().add_cost(c.clock().costs.string_iteration);  // the cost model's per-element price
    if (i.address_size_32) --c.state.gpr[ECX];
    else c.set_reg<u16>(ECX, static_cast<u16>(count - 1));
    if (kConditional) {
      const bool zf = c.flag_set(flag::ZF);
      if ((i.rep == 0xF3 && !zf) || (i.rep == 0xF2 && zf)) return;
    }
  }
  const u32 remaining = i.address_size_32 ? c.state.gpr[ECX] : c.state.gpr[ECX] & 0xFFFF;
  if (remaining != 0) c.state.eip = c.instruction_eip();  // continue in the next step
}

// The rows of cpu/opcode_map.tsv whose family is exec_string (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_string.inc"
};

}  // namespace

FormList string_forms() { return kForms; }

}  // namespace x86lab
