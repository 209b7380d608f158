// Operand access by addressing method (Intel SDM Vol. 2, Appendix A "Codes for
// Addressing Method"). Included by cpu.h; generic over operand width T.
#pragma once

namespace x86lab {

namespace operand_detail {
// The segment and offset of a memory operand at the ModRM effective address (methods
// E and M; kModrmMemoryOperand).
[[gnu::always_inline]] inline std::pair<u8, u32> modrm_location(const Cpu& cpu, const Instruction& insn) {
  return {insn.segment, cpu.effective_address(insn)};
}
// The segment and offset of a memory operand of method E/M/O/X/Y.
[[gnu::always_inline]] inline std::pair<u8, u32> memory_location(const Cpu& cpu, const Instruction& insn, const OperandSpec& spec) {
  const u32 mask = insn.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
  switch (spec.method) {
    case OperandMethod::O: return {insn.segment, insn.immediate & mask};
    case OperandMethod::X: return {insn.segment, cpu.state.gpr[ESI] & mask};
    case OperandMethod::Y: return {ES, cpu.state.gpr[EDI] & mask};
    default: return modrm_location(cpu, insn);
  }
}

inline bool is_memory(const Instruction& insn, const OperandSpec& spec) {
  switch (spec.method) {
    case OperandMethod::E: return insn.mod != 3;
    case OperandMethod::M: case OperandMethod::O: case OperandMethod::X: case OperandMethod::Y: return true;
    default: return false;
  }
}

// The value of the immediate operand `n`: the first immediate unless an earlier
// operand is also an immediate (ENTER Iw,Ib).
inline u32 immediate_of(const Instruction& insn, unsigned n) {
  return n > 0 && insn.operands[n - 1].method == OperandMethod::I ? insn.immediate2 : insn.immediate;
}

// The general register number of a register operand.
inline unsigned register_number(const Instruction& insn, const OperandSpec& spec) {
  switch (spec.method) {
    case OperandMethod::G: return insn.reg;
    case OperandMethod::E: case OperandMethod::R: return insn.rm;
    case OperandMethod::Z: return insn.opcode & 7;
    case OperandMethod::Counter: return ECX;
    case OperandMethod::Port: return EDX;
    default: return EAX;  // Accumulator
  }
}
// Instruction::register_operand[n] as decoded: the register the generic path below
// would read or write for operand `n`, kImmediateOperand for the first immediate,
// kModrmMemoryOperand for memory at the ModRM effective address (memory_location's
// default case), or kNoRegister.
inline u8 register_operand(const Instruction& insn, unsigned n) {
  const OperandSpec& spec = insn.operands[n];
  switch (spec.method) {
    case OperandMethod::I:
      return n > 0 && insn.operands[n - 1].method == OperandMethod::I ? kNoRegister : kImmediateOperand;
    case OperandMethod::One:  // no row has both an immediate and the constant 1
      return kImmediateOperand;
    case OperandMethod::Segment: case OperandMethod::S:
      return kNoRegister;
    case OperandMethod::E: case OperandMethod::M:
      return is_memory(insn, spec) ? kModrmMemoryOperand : static_cast<u8>(register_number(insn, spec));
    default: return is_memory(insn, spec) ? kNoRegister : static_cast<u8>(register_number(insn, spec));
  }
}
// The value of immediate operand `n` (method I or One) as read_operand<T> returns it
// when cast to T: an Ib operand sign-extended to 32 bits, the constant 1 for One.
inline u32 immediate_value(const Instruction& insn, unsigned n) {
  const OperandSpec& spec = insn.operands[n];
  if (spec.method == OperandMethod::One) return 1;
  const u32 value = immediate_of(insn, n);
  return spec.size == OperandSize::b ? static_cast<u32>(static_cast<i32>(static_cast<i8>(value))) : value;
}
}  // namespace operand_detail

// Operand accesses return false when a memory operand faulted: the fault is signalled
// (Cpu::signal_fault, no unwinding) and nothing was read or written, so the executor
// returns at once: `if (!read_operand<T>(c, i, 1, source)) return;`.

// read_operand and write_operand for operands other than a register resolved at decode
// (immediates, memory, segment registers); out of line, so that the register case is
// inlined into every executor.
// The value (0 after a faulting memory read: Cpu::fault_signalled()).
template <class T>
[[nodiscard, gnu::noinline]] T read_operand_other(Cpu& cpu, const Instruction& insn, unsigned n) {
  const OperandSpec& spec = insn.operands[n];
  using namespace operand_detail;
  switch (spec.method) {
    case OperandMethod::I: case OperandMethod::One: return static_cast<T>(immediate_value(insn, n));
    case OperandMethod::Segment: return static_cast<T>(cpu.state.segments[spec.fixed].selector);
    case OperandMethod::S: return static_cast<T>(cpu.state.segments[insn.reg].selector);
    default: break;
  }
  if (is_memory(insn, spec)) {
    const auto [segment, offset] = memory_location(cpu, insn, spec);
    return cpu.read_or_signal<T>(segment, offset);
  }
  return cpu.reg<T>(register_number(insn, spec));
}

// Memory at the ModRM effective address (kModrmMemoryOperand): what read_operand_other
// and write_operand_other do for it, without looking at the operand's method. Out of
// line and, with GCC, not cloned: its interprocedural clone (.isra) took the address
// fields as arguments, so every call site loaded them and passed some on the stack.
#if defined(__clang__)
#define X86LAB_OUT_OF_LINE [[nodiscard, gnu::noinline]]
#else
#define X86LAB_OUT_OF_LINE [[nodiscard, gnu::noinline, gnu::noclone]]
#endif
// The read returns the value (0 when it faulted: then Cpu::fault_signalled()), which
// keeps it in a register on the way back (an out-parameter cost the faults ROM 1 %).
template <class T>
X86LAB_OUT_OF_LINE T read_modrm_memory(Cpu& cpu, const Instruction& insn) {
  const auto [segment, offset] = operand_detail::modrm_location(cpu, insn);
  return cpu.read_or_signal<T>(segment, offset);
}
template <class T>
X86LAB_OUT_OF_LINE bool write_modrm_memory(Cpu& cpu, const Instruction& insn, T value) {
  const auto [segment, offset] = operand_detail::modrm_location(cpu, insn);
  return cpu.try_write<T>(segment, offset, value);
}

template <class T>
[[nodiscard, gnu::noinline]] bool write_operand_other(Cpu& cpu, const Instruction& insn, unsigned n, T value) {
  const OperandSpec& spec = insn.operands[n];
  using namespace operand_detail;
  if (is_memory(insn, spec)) {
    const auto [segment, offset] = memory_location(cpu, insn, spec);
    return cpu.try_write<T>(segment, offset, value);
  }
  cpu.set_reg<T>(register_number(insn, spec), value);
  return true;
}

// The value of an operand that decode resolved: `r` is its register_operand, a
// register or kImmediateOperand.
template <class T>
[[gnu::always_inline]] inline T resolved_operand(const Cpu& cpu, const Instruction& insn, u8 r) {
  return r == kImmediateOperand ? static_cast<T>(insn.immediate_operand) : cpu.reg<T>(r);
}

// read_operand, write_operand and modify_operand take `kResolved` = true only where
// the caller knows Instruction::operands_resolved (dispatch_resolved's fast form):
// then they compile to register and immediate accesses alone.
template <class T, bool kResolved>
[[nodiscard, gnu::always_inline]] inline bool read_operand(Cpu& cpu, const Instruction& insn, unsigned n, T& value) {
  const u8 r = insn.register_operand[n];
  if (kResolved) {
    value = resolved_operand<T>(cpu, insn, r);
    return true;
  }
  if (r < kModrmMemoryOperand) [[likely]] {
    value = cpu.reg<T>(r);
    return true;
  }
  if (r == kImmediateOperand) {
    value = static_cast<T>(insn.immediate_operand);
    return true;
  }
  if (r == kModrmMemoryOperand) {
    value = read_modrm_memory<T>(cpu, insn);
    return !cpu.fault_signalled();
  }
  value = read_operand_other<T>(cpu, insn, n);
  return !cpu.fault_signalled();
}

template <class T, bool kResolved>
[[nodiscard, gnu::always_inline]] inline bool write_operand(Cpu& cpu, const Instruction& insn, unsigned n, T value) {
  const u8 r = insn.register_operand[n];
  if (kResolved || r < kModrmMemoryOperand) [[likely]] {
    cpu.set_reg<T>(r, value);
    return true;
  }
  if (r == kModrmMemoryOperand) return write_modrm_memory<T>(cpu, insn, value);
  return write_operand_other<T>(cpu, insn, n, value);
}

template <Executor kExecutor>
[[gnu::noinline]] void out_of_line(Cpu& cpu, const Instruction& insn) {
  kExecutor(cpu, insn);
}
// Runs `kResolvedForm` (an executor's form with kResolved = true: no memory operand,
// hence no call and no saved registers) for instructions whose operands decode
// resolved, and `kGeneralForm` out of line for any other.
template <Executor kResolvedForm, Executor kGeneralForm>
[[gnu::always_inline]] inline void dispatch_resolved(Cpu& cpu, const Instruction& insn) {
  if (insn.operands_resolved) [[likely]] return kResolvedForm(cpu, insn);
  return out_of_line<kGeneralForm>(cpu, insn);
}

// The executor cpu/generate_forms.cmake gives a row of kind BR or VR: `kExecutor` with
// kResolved = true inline for resolved operands, the general form out of line.
template <Executor kResolvedForm, Executor kGeneralForm>
void resolved_or_general(Cpu& cpu, const Instruction& insn) {
  dispatch_resolved<kResolvedForm, kGeneralForm>(cpu, insn);
}

// A memory operand with the LOCK prefix is one locked bus operation whose faults are
// thrown (rare). Without LOCK, a fault of the write leaves `modify` called and memory
// unchanged.
template <class T, bool kResolved, class Modify>
[[nodiscard]] bool modify_operand(Cpu& cpu, const Instruction& insn, unsigned n, Modify modify) {
  const u8 r = insn.register_operand[n];
  if (kResolved || r < kModrmMemoryOperand) {
    cpu.set_reg<T>(r, static_cast<T>(modify(cpu.reg<T>(r))));
    return true;
  }
  const OperandSpec& spec = insn.operands[n];
  using namespace operand_detail;
  if (r != kModrmMemoryOperand && !is_memory(insn, spec)) {
    const unsigned number = register_number(insn, spec);
    cpu.set_reg<T>(number, static_cast<T>(modify(cpu.reg<T>(number))));
    return true;
  }
  const auto [segment, offset] = r == kModrmMemoryOperand ? modrm_location(cpu, insn) : memory_location(cpu, insn, spec);
  if (insn.lock) {
    cpu.locked_rmw<T>(segment, offset, AccessKind::LockPrefix, modify);  // explicit LOCK prefix
    return true;
  }
  T old;
  return cpu.try_read<T>(segment, offset, old) && cpu.try_write<T>(segment, offset, static_cast<T>(modify(old)));
}

}  // namespace x86lab
