// Bit tests and scans: BT BTS BTR BTC (register and memory bit-offset forms), BSF, BSR
// (Intel SDM Vol. 2, "BT", "BTS", "BTR", "BTC", "BSF", "BSR").
#include "cpu/alu.h"
#include "cpu/cpu.h"
#include "cpu/instruction_table.h"

namespace x86lab {
namespace {

enum class BitOp { Test, Set, Reset, Complement };

// With a register bit offset and a memory operand, the offset is signed and selects
// any bit relative to the address (SDM "BT": "bit string"); with an immediate it is
// taken modulo the operand width.
template <class T, BitOp kOp>
void bit_test(Cpu& c, const Instruction& i) {
  constexpr unsigned bits = alu::kBits<T>;
  const bool immediate = i.operands[1].method == OperandMethod::I;
  T raw_offset = static_cast<T>(i.immediate);
  if (!immediate && !read_operand<T>(c, i, 1, raw_offset)) return;
  unsigned bit = static_cast<unsigned>(raw_offset) & (bits - 1);
  bool was_set = false;
  auto apply = [&](T v) -> T {
    was_set = (v >> bit) & 1;
    switch (kOp) {
      case BitOp::Test: return v;
      case BitOp::Set: return static_cast<T>(v | (T{1} << bit));
      case BitOp::Reset: return static_cast<T>(v & ~(T{1} << bit));
      case BitOp::Complement: return static_cast<T>(v ^ (T{1} << bit));
    }
    return v;
  };
  if (!immediate && i.is_memory()) {
    using S = alu::Signed<T>;
    const i64 element = static_cast<i64>(static_cast<S>(raw_offset)) >> (sizeof(T) == 2 ? 4 : 5);
    const u32 mask = i.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
    const u32 offset = (c.effective_address(i) + static_cast<u32>(element * static_cast<i64>(sizeof(T)))) & mask;
    T value;
    if (kOp != BitOp::Test && i.lock) {
      c.locked_rmw<T>(i.segment, offset, AccessKind::LockPrefix, apply);
    } else {
      if (!c.try_read<T>(i.segment, offset, value)) return;
      if (kOp == BitOp::Test) apply(value);
      else if (!c.try_write<T>(i.segment, offset, apply(value))) return;
    }
  } else if constexpr (kOp == BitOp::Test) {
    T value;
    if (!read_operand<T>(c, i, 0, value)) return;
    apply(value);
  } else {
    if (!modify_operand<T>(c, i, 0, apply)) return;
  }
  c.set_flags(was_set ? flag::CF : 0, flag::CF);
}

// BSF/BSR: a zero source sets ZF and leaves the destination unchanged.
template <class T>
void bsf(Cpu& c, const Instruction& i) {
  T source;
  if (!read_operand<T>(c, i, 1, source)) return;
  if (source == 0) return c.set_flags(flag::ZF, flag::ZF);
  if (!write_operand<T>(c, i, 0, static_cast<T>(std::countr_zero(source)))) return;
  c.set_flags(0, flag::ZF);
}
template <class T>
void bsr(Cpu& c, const Instruction& i) {
  T source;
  if (!read_operand<T>(c, i, 1, source)) return;
  if (source == 0) return c.set_flags(flag::ZF, flag::ZF);
  if (!write_operand<T>(c, i, 0, static_cast<T>(alu::kBits<T> - 1 - std::countl_zero(source)))) return;
  c.set_flags(0, flag::ZF);
}

// The rows of cpu/opcode_map.tsv whose family is exec_bits (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_bits.inc"
};

}  // namespace

FormList bit_forms() { return kForms; }

}  // namespace x86lab
