// Data transfer: MOV, MOVZX, MOVSX, XCHG, XADD, CMPXCHG, CMPXCHG8B, BSWAP, LEA, XLAT,
// CBW/CWDE, CWD/CDQ, LAHF, SAHF, SALC, CMOVcc, SETcc, NOP/PAUSE
// (Intel SDM Vol. 2, each instruction's page).
#include "cpu/alu.h"
#include "cpu/cpu.h"
#include "cpu/instruction_table.h"

namespace x86lab {
namespace {

template <class T>
void mov(Cpu& c, const Instruction& i) {
  T source;
  if (!read_operand<T>(c, i, 1, source)) return;
  (void)write_operand<T>(c, i, 0, source);  // (nothing follows)
}

// MOVZX/MOVSX Gv,Eb and Gv,Ew: the source width is the row's second operand.
template <class T, class Source>
void movzx(Cpu& c, const Instruction& i) {
  Source source;
  if (!read_operand<Source>(c, i, 1, source)) return;
  (void)write_operand<T>(c, i, 0, static_cast<T>(source));
}
template <class T, class Source>
void movsx(Cpu& c, const Instruction& i) {
  using S = std::make_signed_t<Source>;
  Source source;
  if (!read_operand<Source>(c, i, 1, source)) return;
  (void)write_operand<T>(c, i, 0, static_cast<T>(static_cast<std::make_signed_t<T>>(static_cast<S>(source))));
}

// XCHG with a memory operand is locked whether or not LOCK is given
// (SDM "XCHG": "the processor's locking protocol is automatically implemented").
template <class T>
void xchg(Cpu& c, const Instruction& i) {
  T other, mine;
  if (!read_operand<T>(c, i, 1, other)) return;
  if (operand_detail::is_memory(i, i.operands[0])) {
    const auto [segment, offset] = operand_detail::memory_location(c, i, i.operands[0]);
    const T old = c.locked_rmw<T>(segment, offset, AccessKind::XchgMemory, [other](T) { return other; });
    (void)write_operand<T>(c, i, 1, old);  // a register
    return;
  }
  if (!read_operand<T>(c, i, 0, mine) || !write_operand<T>(c, i, 0, other)) return;
  (void)write_operand<T>(c, i, 1, mine);
}

// XADD: SRC <- DEST, then DEST <- SUM (SDM "XADD" operation), so XADD r, r with one
// register leaves the sum. A memory destination is written first so a fault there
// leaves the source register unchanged.
template <class T>
void xadd(Cpu& c, const Instruction& i) {
  T source, destination;
  if (!read_operand<T>(c, i, 1, source)) return;
  if (!i.is_memory()) {
    (void)read_operand<T>(c, i, 0, destination);  // registers: these cannot fault
    const auto r = alu::add<T>(destination, source);
    (void)write_operand<T>(c, i, 1, destination);
    (void)write_operand<T>(c, i, 0, r.value);
    return c.set_flags(r.flags, flag::kStatus);
  }
  T old = 0;
  u32 flags = 0;
  const bool done = modify_operand<T>(c, i, 0, [&](T value) {
    old = value;
    const auto r = alu::add<T>(value, source);
    flags = r.flags;
    return r.value;
  });
  if (!done) return;
  (void)write_operand<T>(c, i, 1, old);  // a register
  c.set_flags(flags, flag::kStatus);
}

// CMPXCHG: the destination is always written (with its own value when unequal),
// as the SDM's operation section says.
template <class T>
void cmpxchg(Cpu& c, const Instruction& i) {
  const T accumulator = c.reg<T>(EAX);
  T source;
  if (!read_operand<T>(c, i, 1, source)) return;
  T old = 0;
  const bool done = modify_operand<T>(c, i, 0, [&](T destination) {
    old = destination;
    return destination == accumulator ? source : destination;
  });
  if (!done) return;
  c.set_flags(alu::sub<T>(accumulator, old).flags, flag::kStatus);
  if (old != accumulator) c.set_reg<T>(EAX, old);
}

void cmpxchg8b(Cpu& c, const Instruction& i) {
  const u64 expected = (u64{c.state.gpr[EDX]} << 32) | c.state.gpr[EAX];
  const u64 replacement = (u64{c.state.gpr[ECX]} << 32) | c.state.gpr[EBX];
  const auto [segment, offset] = operand_detail::memory_location(c, i, i.operands[0]);
  u64 old;
  auto modify = [&](u64 destination) { return destination == expected ? replacement : destination; };
  if (i.lock) {
    old = c.locked_rmw<u64>(segment, offset, AccessKind::LockPrefix, modify);
  } else {
    if (!c.try_read<u64>(segment, offset, old) || !c.try_write<u64>(segment, offset, modify(old))) return;
  }
  if (old == expected) {
    c.set_flags(flag::ZF, flag::ZF);
  } else {
    c.set_flags(0, flag::ZF);
    c.state.gpr[EAX] = static_cast<u32>(old);
    c.state.gpr[EDX] = static_cast<u32>(old >> 32);
  }
}

// BSWAP with a 16-bit operand is undefined; P6 writes zero to the low word (QUIRK).
template <class T>
void bswap(Cpu& c, const Instruction& i) {
  const unsigned r = i.opcode & 7;
  if constexpr (sizeof(T) == 4) c.state.gpr[r] = __builtin_bswap32(c.state.gpr[r]);
  else c.state.gpr[r] &= 0xFFFF0000u;
}

template <class T>
void lea(Cpu& c, const Instruction& i) {
  (void)write_operand<T>(c, i, 0, static_cast<T>(c.effective_address(i)));  // a register
}

void xlat(Cpu& c, const Instruction& i) {
  const u32 offset = c.state.gpr[EBX] + c.reg<u8>(0);
  u8 value;
  if (c.try_read<u8>(i.segment, i.address_size_32 ? offset : offset & 0xFFFF, value)) c.set_reg<u8>(0, value);
}

template <class T>
void cbw(Cpu& c, const Instruction&) {  // CBW / CWDE
  if constexpr (sizeof(T) == 2) c.set_reg<u16>(EAX, static_cast<u16>(static_cast<i8>(c.reg<u8>(0))));
  else c.state.gpr[EAX] = static_cast<u32>(static_cast<i16>(c.reg<u16>(EAX)));
}

template <class T>
void cwd(Cpu& c, const Instruction&) {  // CWD / CDQ
  const bool negative = c.reg<T>(EAX) & alu::kSign<T>;
  c.set_reg<T>(EDX, negative ? static_cast<T>(~T{0}) : T{0});
}

void lahf(Cpu& c, const Instruction&) { c.set_reg<u8>(4, static_cast<u8>(c.state.eflags | flag::Reserved1)); }

void sahf(Cpu& c, const Instruction&) {
  c.set_flags(c.reg<u8>(4), flag::SF | flag::ZF | flag::AF | flag::PF | flag::CF);
}

void salc(Cpu& c, const Instruction&) { c.set_reg<u8>(0, c.flag_set(flag::CF) ? 0xFF : 0x00); }

// CMOVcc reads its source even when the condition is false (a memory source can fault).
template <class T>
void cmovcc(Cpu& c, const Instruction& i) {
  T source;
  if (!read_operand<T>(c, i, 1, source)) return;
  if (c.condition(i.opcode & 0xF)) (void)write_operand<T>(c, i, 0, source);  // a register
}

void setcc(Cpu& c, const Instruction& i) { (void)write_operand<u8>(c, i, 0, c.condition(i.opcode & 0xF) ? 1 : 0); }

void nop(Cpu&, const Instruction&) {}  // also PAUSE (F3 90)

// The rows of cpu/opcode_map.tsv whose family is exec_data (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_data.inc"
};

}  // namespace

FormList data_transfer_forms() { return kForms; }

}  // namespace x86lab
