// Instruction decoding (Intel SDM Vol. 2, "Instruction Format"): prefixes in any
// order and number (the last segment override wins), operand and address size from
// the code segment's D bit toggled by 66h/67h, ModRM, SIB, displacements and
// immediates as the row's operand notation asks, the 15-byte limit (#GP(0)) and the
// LOCK rules (#UD unless the form is lockable and has a memory destination).
#pragma once
#include "cpu/instruction_table.h"
#include "trace/fault.h"

namespace x86lab {

inline constexpr unsigned kMaxInstructionBytes = 15;

// Decodes one instruction. `fetch(i)` returns byte i of the instruction (raising
// whatever fault the fetch causes). `default32` is CS.D. Unknown opcodes and
// forbidden forms raise #UD; more than 15 bytes raises #GP(0).
template <class Fetch>
void decode(Fetch&& fetch, bool default32, Instruction& out);

// The same on a byte buffer; returns false instead of raising when the bytes run out.
// For tools and tests (disassembly, the Zydis comparison).
bool decode_bytes(const u8* bytes, unsigned size, bool default32, Instruction& out);

// ---- implementation ------------------------------------------------------------

namespace decoder_detail {
// 16-bit addressing: base and index registers by ModRM.rm (SDM Table 2-1).
inline constexpr u8 kBase16[8] = {3, 3, 5, 5, kNoRegister, kNoRegister, 5, 3};       // BX BX BP BP - - BP BX
inline constexpr u8 kIndex16[8] = {6, 7, 6, 7, 6, 7, kNoRegister, kNoRegister};        // SI DI SI DI SI DI - -
}  // namespace decoder_detail

template <class Fetch>
void decode(Fetch&& fetch, bool default32, Instruction& out) {
  out = Instruction{};
  unsigned n = 0;
  auto next = [&]() -> u8 {
    if (n >= kMaxInstructionBytes) throw gp(0, "instruction longer than 15 bytes");
    return fetch(n++);
  };
  auto next16 = [&]() -> u32 { const u32 lo = next(); return lo | (u32{next()} << 8); };
  auto next32 = [&]() -> u32 { const u32 lo = next16(); return lo | (next16() << 16); };

  bool operand_toggle = false, address_toggle = false;
  u8 byte;
  for (;;) {
    byte = next();
    switch (byte) {
      case 0x26: out.segment = 0; out.segment_override = true; continue;
      case 0x2E: out.segment = 1; out.segment_override = true; continue;
      case 0x36: out.segment = 2; out.segment_override = true; continue;
      case 0x3E: out.segment = 3; out.segment_override = true; continue;
      case 0x64: out.segment = 4; out.segment_override = true; continue;
      case 0x65: out.segment = 5; out.segment_override = true; continue;
      case 0x66: operand_toggle = true; continue;
      case 0x67: address_toggle = true; continue;
      case 0xF0: out.lock = true; continue;
      case 0xF2: case 0xF3: out.rep = byte; continue;
      default: break;
    }
    break;
  }
  out.operand_size_32 = default32 != operand_toggle;
  out.address_size_32 = default32 != address_toggle;
  u16 opcode = byte;
  if (byte == 0x0F) opcode = 0x100 | next();
  out.opcode = static_cast<u8>(opcode);

  const OpcodeSlot& slot = InstructionTable::get().slot(opcode);
  const TableEntry* entry = nullptr;
  if (slot.needs_modrm) {
    const u8 modrm = next();
    out.has_modrm = true;
    out.mod = modrm >> 6;
    out.reg = (modrm >> 3) & 7;
    out.rm = modrm & 7;
    if (slot.modrm_always_register) out.mod = 3;
    entry = out.mod == 3 ? &slot.registers[out.reg] : &slot.memory[out.reg];
    if (out.mod == 3 && slot.registers_by_rm[out.reg]) entry = &(*slot.registers_by_rm[out.reg])[out.rm];  // x87: by ModRM.rm
    if (out.mod != 3) {
      if (out.address_size_32) {
        u8 base = out.rm;
        if (out.rm == 4) {
          const u8 sib = next();
          out.scale = sib >> 6;
          const u8 index = (sib >> 3) & 7;
          out.index = index == 4 ? kNoRegister : index;
          base = sib & 7;
        }
        if (base == 5 && out.mod == 0) {
          out.base = kNoRegister;
          out.displacement = next32();
        } else {
          out.base = base;
        }
        if (out.mod == 1) out.displacement = static_cast<u32>(static_cast<i8>(next()));
        if (out.mod == 2) out.displacement = next32();
        if (!out.segment_override && (out.base == 4 || out.base == 5)) out.segment = 2;  // ESP/EBP-based: SS
      } else {
        out.base = decoder_detail::kBase16[out.rm];
        out.index = decoder_detail::kIndex16[out.rm];
        if (out.mod == 0 && out.rm == 6) {
          out.base = kNoRegister;
          out.displacement = next16();
        }
        if (out.mod == 1) out.displacement = static_cast<u32>(static_cast<i8>(next())) & 0xFFFF;
        if (out.mod == 2) out.displacement = next16();
        if (!out.segment_override && out.base == 5) out.segment = 2;  // BP-based: SS
      }
    }
  } else {
    entry = &slot.memory[0];
  }
  if (!entry->form) {
    // Consume nothing more: the length does not matter for #UD.
    out.length = static_cast<u8>(n);
    throw ud("undefined opcode");
  }
  const InstructionForm& form = *entry->form;
  out.form = &form;
  out.row = entry->row;
  out.opcode_index = opcode;
  out.operands = entry->operands;
  if (form.attributes & kDefault32) out.operand_size_32 = true;

  // Immediates, in operand order.
  bool first = true;
  for (const OperandSpec& op : out.operands) {
    u32 value = 0;
    bool has = true;
    using M = OperandMethod;
    using S = OperandSize;
    switch (op.method) {
      case M::I:
        switch (op.size) {
          case S::b: value = next(); break;
          case S::w: value = next16(); break;
          case S::z: case S::v: value = out.operand_size_32 ? next32() : next16(); break;
          case S::d: value = next32(); break;
          default: has = false;
        }
        break;
      case M::J:
        if (op.size == S::b) value = static_cast<u32>(static_cast<i8>(next()));
        else value = out.operand_size_32 ? next32() : static_cast<u32>(static_cast<i16>(next16()));
        break;
      case M::A:
        out.immediate = out.operand_size_32 ? next32() : next16();
        out.immediate2 = next16();
        has = false;
        break;
      case M::O: value = out.address_size_32 ? next32() : next16(); break;
      default: has = false;
    }
    if (!has) continue;
    (first ? out.immediate : out.immediate2) = value;
    first = false;
  }
  out.length = static_cast<u8>(n);
  if (out.lock && (!(form.attributes & kLockable) || !out.is_memory())) throw ud("LOCK on a non-lockable form");
  // ModRM.reg values that name no register raise #UD at decode: segment registers 6 and
  // 7, CS as a MOV destination (SDM "MOV - Move"), CR1 and CR5-CR7 (SDM "MOV - Move
  // to/from Control Registers").
  for (unsigned i = 0; i < out.operands.size(); ++i) {
    const OperandMethod method = out.operands[i].method;
    if (method == OperandMethod::S && (out.reg > 5 || (i == 0 && out.reg == 1))) throw ud("no such segment register");
    if (method == OperandMethod::C && (out.reg == 1 || out.reg > 4)) throw ud("no such control register");
  }
  out.execute = out.form_executor();
}

}  // namespace x86lab
