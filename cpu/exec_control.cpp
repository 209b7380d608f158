// Near control transfer and interrupts: JMP, CALL, RET, Jcc, JCXZ/JECXZ, LOOP/LOOPE/
// LOOPNE, INT n, INT3, INTO, BOUND, HLT (Intel SDM Vol. 2, each instruction's page).
// Far transfers and IRET are in cpu/far_transfer.cpp.
#include "cpu/alu.h"
#include "cpu/cpu.h"
#include "cpu/far_transfer.h"
#include "cpu/instruction_table.h"
#include "cpu/privilege.h"
#include "trace/tracer.h"

namespace x86lab {

void branch(Cpu& c, const Instruction& i, u32 target) {
  if (!i.operand_size_32) target &= 0xFFFF;
  const DescriptorCache& cs = c.state.segments[CS].cache;
  if (target < cs.valid_min || target > cs.valid_max) throw gp(0, "branch target outside the code segment");
  c.state.eip = target;
}

namespace {

template <class T>
void jmp_relative(Cpu& c, const Instruction& i) { branch(c, i, c.state.eip + i.immediate); }

template <class T>
void jmp_indirect(Cpu& c, const Instruction& i) {
  T target;
  if (read_operand<T>(c, i, 0, target)) branch(c, i, target);
}

template <class T>
void jcc(Cpu& c, const Instruction& i) {
  if (c.condition(i.opcode & 0xF)) branch(c, i, c.state.eip + i.immediate);
}

template <class T>
void call_relative(Cpu& c, const Instruction& i) {
  const u32 target = c.state.eip + i.immediate;
  c.push<T>(static_cast<T>(c.state.eip));
  branch(c, i, target);
}

template <class T>
void call_indirect(Cpu& c, const Instruction& i) {
  T target;
  if (!read_operand<T>(c, i, 0, target)) return;
  c.push<T>(static_cast<T>(c.state.eip));
  branch(c, i, target);
}

// RET and RET imm16: the immediate is added to the stack pointer after the pop.
template <class T>
void ret(Cpu& c, const Instruction& i) {
  const u32 target = c.pop<T>();
  if (i.operands[0].method == OperandMethod::I) c.state.gpr[ESP] = c.stack_pointer_plus(i.immediate & 0xFFFF);
  branch(c, i, target);
}

// The loop counter is CX or ECX by address size.
u32 counter(const Cpu& c, const Instruction& i) {
  return i.address_size_32 ? c.state.gpr[ECX] : c.state.gpr[ECX] & 0xFFFF;
}
void decrement_counter(Cpu& c, const Instruction& i) {
  if (i.address_size_32) --c.state.gpr[ECX];
  else c.set_reg<u16>(ECX, static_cast<u16>(c.state.gpr[ECX] - 1));
}

template <class T>
void jcxz(Cpu& c, const Instruction& i) {
  if (counter(c, i) == 0) branch(c, i, c.state.eip + i.immediate);
}

template <class T>
void loop(Cpu& c, const Instruction& i) {
  decrement_counter(c, i);
  bool taken = counter(c, i) != 0;
  if (i.opcode == 0xE1) taken = taken && c.flag_set(flag::ZF);   // LOOPE
  if (i.opcode == 0xE0) taken = taken && !c.flag_set(flag::ZF);  // LOOPNE
  if (taken) branch(c, i, c.state.eip + i.immediate);
}

// INT n is IOPL-sensitive in virtual-8086 mode (SDM "INT n/INTO/INT3").
void int_n(Cpu& c, const Instruction& i) {
  if (c.virtual_8086() && c.iopl() < 3) throw gp(0, "INT n in V86 mode with IOPL < 3");
  c.deliver(static_cast<u8>(i.immediate), std::nullopt, EventSource::SoftwareInterrupt, c.state.eip);
}

void int3(Cpu& c, const Instruction&) { c.deliver(3, std::nullopt, EventSource::SoftwareInterrupt, c.state.eip); }

// INT1 (ICEBP): a #DB trap that leaves DR6 alone; no gate DPL check and no IOPL
// check in virtual-8086 mode (SDM Vol. 2 "INT n/INTO/INT3/INT1").
void int1(Cpu& c, const Instruction&) { c.deliver(1, std::nullopt, EventSource::PrivilegedSoftwareException, c.state.eip); }

void into(Cpu& c, const Instruction&) {
  if (c.flag_set(flag::OF)) c.deliver(4, std::nullopt, EventSource::SoftwareInterrupt, c.state.eip);
}

// BOUND Gv,Ma: #BR (a fault) when the signed index is outside [lower, upper].
template <class T>
void bound(Cpu& c, const Instruction& i) {
  using S = alu::Signed<T>;
  const u32 mask = i.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
  const u32 ea = c.effective_address(i);
  const S lower = static_cast<S>(c.read<T>(i.segment, ea));
  const S upper = static_cast<S>(c.read<T>(i.segment, (ea + sizeof(T)) & mask));
  const S index = static_cast<S>(c.reg<T>(i.reg));
  if (index < lower || index > upper) throw Fault{5, std::nullopt, "BOUND range exceeded"};
}

void hlt(Cpu& c, const Instruction&) {
  c.halt();
  emit(c.tracer(), events::Halt{});
}

// The rows of cpu/opcode_map.tsv whose family is exec_control (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_control.inc"
};

}  // namespace

FormList control_forms() { return kForms; }

}  // namespace x86lab
