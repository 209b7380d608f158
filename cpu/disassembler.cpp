// Intel-syntax text of decoded instructions (cpu/disassembler.h).
#include "cpu/disassembler.h"

#include <cctype>
#include <cstdio>
#include <vector>

#include "cpu/decoder.h"

namespace x86lab {
namespace {

using M = OperandMethod;
using S = OperandSize;

constexpr const char* kRegisters8[8] = {"al", "cl", "dl", "bl", "ah", "ch", "dh", "bh"};
constexpr const char* kRegisters16[8] = {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di"};
constexpr const char* kRegisters32[8] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"};
constexpr const char* kSegments[8] = {"es", "cs", "ss", "ds", "fs", "gs", "?", "?"};

// The pieces joined (appends sidestep a GCC 12 -Wrestrict false positive on chained
// std::string concatenation).
template <class... Pieces>
std::string cat(const Pieces&... pieces) {
  std::string out;
  (out.append(pieces), ...);
  return out;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// 0-9 in decimal, else hex with an "h" suffix and a leading 0 before a letter.
std::string number(u64 value) {
  char buffer[24];
  if (value < 10) {
    std::snprintf(buffer, sizeof buffer, "%u", static_cast<unsigned>(value));
  } else {
    std::snprintf(buffer, sizeof buffer, "%llX", static_cast<unsigned long long>(value));
    if (!std::isdigit(static_cast<unsigned char>(buffer[0])))
      std::snprintf(buffer, sizeof buffer, "0%llXh", static_cast<unsigned long long>(value));
    else
      std::snprintf(buffer, sizeof buffer, "%llXh", static_cast<unsigned long long>(value));
  }
  return buffer;
}

std::string address(u32 value, bool wide) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, wide ? "%08X" : "%04X", value);
  return buffer;
}

// The width in bits an operand of `size` has in `insn` (0: none given, as for "M").
unsigned width_of(const Instruction& insn, S size) {
  switch (size) {
    case S::b: return 8;
    case S::w: return 16;
    case S::d: return 32;
    case S::v: case S::z: return insn.operand_size_32 ? 32 : 16;
    case S::p: return insn.operand_size_32 ? 48 : 32;
    case S::a: return insn.operand_size_32 ? 64 : 32;
    case S::q: return 64;
    case S::s: return 48;
    default: return 0;
  }
}

const char* register_name(unsigned width, u8 number) {
  return width == 8 ? kRegisters8[number & 7] : width == 16 ? kRegisters16[number & 7] : kRegisters32[number & 7];
}

const char* size_name(unsigned width) {
  switch (width) {
    case 8: return "byte ptr ";
    case 16: return "word ptr ";
    case 32: return "dword ptr ";
    case 48: return "fword ptr ";
    case 64: return "qword ptr ";
    case 80: return "tbyte ptr ";
    default: return "";
  }
}

bool is_string(const Instruction& insn) { return insn.form->attributes & kStringOp; }

// The ModRM memory operand: [base+index*scale+disp] by the address size.
// LEA computes only the offset: a segment override does not change it and is not written
// (SDM "LEA - Load Effective Address": it stores the offset part of the address).
std::string modrm_memory(const Instruction& insn) {
  const bool segment = insn.segment_override && insn.form->mnemonic != "LEA";
  std::string text = segment ? cat(kSegments[insn.segment], ":[") : std::string("[");
  const auto& names = insn.address_size_32 ? kRegisters32 : kRegisters16;
  bool any = false;
  if (insn.base != kNoRegister) {
    text += names[insn.base];
    any = true;
  }
  if (insn.index != kNoRegister) {
    if (any) text += "+";
    text += names[insn.index];
    if (insn.scale) text.append("*").append(std::to_string(1u << insn.scale));
    any = true;
  }
  if (!any) {
    text += number(insn.displacement);
  } else if (insn.displacement) {
    const i32 disp = insn.address_size_32 ? static_cast<i32>(insn.displacement)
                                          : static_cast<i16>(static_cast<u16>(insn.displacement));
    text.append(disp < 0 ? "-" : "+").append(number(static_cast<u32>(disp < 0 ? -static_cast<i64>(disp) : disp)));
  }
  return text + "]";
}

// A string operand: DS:[ESI] (X, segment override allowed) or ES:[EDI] (Y).
std::string string_memory(const Instruction& insn, M method) {
  const bool wide = insn.address_size_32;
  if (method == M::Y) return cat("es:[", wide ? "edi" : "di", "]");
  return cat(insn.segment_override ? kSegments[insn.segment] : "", insn.segment_override ? ":" : "", "[",
             wide ? "esi" : "si", "]");
}

struct Operand {
  std::string text;
  unsigned width = 0;    // bits, when the operand has a size
  bool memory = false;
  bool sized = false;    // a register or immediate whose width tells a memory operand's
};

class Formatter {
 public:
  Formatter(const Instruction& insn, bool code32, u32 eip) : insn_(insn), code32_(code32), eip_(eip) {}

  std::string text() {
    std::vector<Operand> operands;
    unsigned immediates = 0;
    for (const OperandSpec& spec : insn_.operands)
      if (spec.method != M::None) operands.push_back(operand(spec, immediates));
    std::string mnemonic = this->mnemonic();
    if (is_string(insn_) && implicit_string()) operands.clear();
    std::string line = prefixes() + mnemonic;
    // A memory operand's size is written unless a register operand of that size gives it
    // (Intel SDM Vol. 2, "Operand-size and address-size attributes"; "PTR" as MASM writes it).
    for (std::size_t i = 0; i < operands.size(); ++i) {
      Operand& op = operands[i];
      if (!op.memory || !op.width) continue;
      bool implied = false;
      for (std::size_t j = 0; j < operands.size(); ++j)
        if (j != i && operands[j].sized && operands[j].width == op.width && !is_count(j)) implied = true;
      if (!implied && !far_memory()) op.text.insert(0, size_name(op.width));
    }
    for (std::size_t i = 0; i < operands.size(); ++i) line.append(i ? ", " : " ").append(operands[i].text);
    return line;
  }

  std::optional<u32> target() const { return target_; }

 private:
  bool is_count(std::size_t n) const {
    const M method = insn_.operands[n].method;
    return method == M::Counter || method == M::One || (method == M::I && n > 0 && is_shift());
  }
  bool is_shift() const {
    const u16 op = insn_.opcode_index;
    return op == 0xC0 || op == 0xC1 || op == 0xD0 || op == 0xD1 || op == 0xD2 || op == 0xD3 || op == 0x1A4 ||
           op == 0x1A5 || op == 0x1AC || op == 0x1AD || op == 0x1BA;
  }
  // FF /3 and FF /5 (CALL/JMP m16:16 or m16:32): written "far [mem]".
  bool far_memory() const {
    return insn_.opcode_index == 0xFF && (insn_.reg == 3 || insn_.reg == 5);
  }
  // String instructions are written in their short form (MOVSB ...) unless a segment
  // override or an address size other than the code's hides something it would lose.
  bool implicit_string() const { return !insn_.segment_override && insn_.address_size_32 == code32_; }

  std::string prefixes() const {
    std::string text;
    if (insn_.lock) text += "lock ";
    if (insn_.rep && is_string(insn_)) {
      const std::string_view m = insn_.form->mnemonic;
      const bool compares = m == "CMPS" || m == "SCAS";
      text += insn_.rep == 0xF3 ? (compares ? "repe " : "rep ") : "repne ";
    }
    return text;
  }

  std::string mnemonic() const {
    const std::string_view m = insn_.form->mnemonic;
    const bool o32 = insn_.operand_size_32;
    if (insn_.opcode_index == 0x90 && insn_.rep == 0xF3) return "pause";
    if (o32) {
      if (m == "CBW") return "cwde";
      if (m == "CWD") return "cdq";
      if (m == "IRET" || m == "PUSHA" || m == "POPA" || m == "PUSHF" || m == "POPF") return cat(lower(m), "d");
    }
    if (m == "JCXZ" && insn_.address_size_32) return "jecxz";
    if (is_string(insn_) && implicit_string()) {
      unsigned width = 0;
      for (const OperandSpec& spec : insn_.operands)
        if (spec.method == M::X || spec.method == M::Y) width = width_of(insn_, spec.size);
      return cat(lower(m), width == 8 ? "b" : width == 16 ? "w" : "d");
    }
    if (far_memory()) return cat(lower(m), " far");
    return lower(m);
  }

  Operand operand(const OperandSpec& spec, unsigned& immediates) {
    Operand op;
    const unsigned width = width_of(insn_, spec.size);
    switch (spec.method) {
      case M::E:
        if (insn_.mod == 3) return reg(register_name(width, insn_.rm), width);
        return memory(modrm_memory(insn_), segment_operand_width(width));
      case M::M: return memory(modrm_memory(insn_), memory_width(spec));
      case M::G: return reg(register_name(width, insn_.reg), width);
      case M::R: return reg(kRegisters32[insn_.rm], 32);
      case M::Z: return reg(register_name(width, insn_.opcode & 7), width);
      case M::S: return reg(kSegments[insn_.reg], 16);
      case M::Segment: return reg(kSegments[spec.fixed & 7], 16);
      case M::C: return reg(cat("cr", std::to_string(insn_.reg)), 32);
      case M::D: return reg(cat("dr", std::to_string(insn_.reg)), 32);
      case M::Accumulator: return reg(register_name(width, 0), width);
      case M::Counter: return reg("cl", 8);
      case M::Port: return reg("dx", 16);
      case M::One: op.text = "1"; return op;  // shifts by one: the SDM's "r/m32, 1"
      case M::StackTop: op.text = "st(0)"; return op;
      case M::StackRegister: op.text = cat("st(", std::to_string(insn_.rm), ")"); return op;
      case M::I: {
        const u32 raw = immediates++ == 0 ? insn_.immediate : insn_.immediate2;
        u64 value = raw;
        unsigned shown = width;
        if (spec.size == S::b && sign_extends_imm8()) {
          shown = insn_.operand_size_32 ? 32 : 16;
          value = static_cast<u32>(static_cast<i32>(static_cast<i8>(raw)));
        }
        if (shown && shown < 64) value &= (u64{1} << shown) - 1;
        op.text = number(value);
        op.width = shown;
        op.sized = false;
        return op;
      }
      case M::J: {
        ++immediates;
        u32 next = eip_ + insn_.length;
        u32 to = next + insn_.immediate;
        if (!insn_.operand_size_32) to &= 0xFFFF;
        target_ = to;
        op.text = address(to, insn_.operand_size_32);
        return op;
      }
      case M::A:
        op.text = cat(address(insn_.immediate2, false), ":", address(insn_.immediate, insn_.operand_size_32));
        return op;
      case M::O: {
        ++immediates;
        return memory(cat(insn_.segment_override ? kSegments[insn_.segment] : "", insn_.segment_override ? ":" : "",
                          "[", number(insn_.immediate), "]"),
                      width);
      }
      case M::X: case M::Y: return memory(string_memory(insn_, spec.method), width);
      case M::None: break;
    }
    return op;
  }

  Operand reg(std::string name, unsigned width) const {
    Operand op;
    op.text = std::move(name);
    op.width = width;
    op.sized = true;
    return op;
  }
  Operand memory(std::string text, unsigned width) const {
    Operand op;
    op.text = std::move(text);
    op.width = width;
    op.memory = true;
    return op;
  }
  // MOV Ev,Sw and MOV Sw,Ew with memory move 16 bits whatever the operand size (SDM "MOV").
  unsigned segment_operand_width(unsigned width) const {
    for (const OperandSpec& spec : insn_.operands)
      if (spec.method == M::S) return 16;
    return width;
  }
  // "M" rows have no size in the notation; the x87 80-bit forms (FLD/FSTP m80, FBLD,
  // FBSTP) are tbyte; LEA, INVLPG and the FPU environment forms have none.
  unsigned memory_width(const OperandSpec& spec) const {
    if (spec.size != S::None) return width_of(insn_, spec.size);
    const std::string_view m = insn_.form->mnemonic;
    if (m == "FLD" || m == "FSTP" || m == "FBLD" || m == "FBSTP") return 80;
    return 0;
  }
  // imm8 sign-extended to the operand size: 6A PUSH, 6B IMUL, 83 group 1 (SDM "PUSH",
  // "IMUL", "ADD" ...: "imm8 sign-extended").
  bool sign_extends_imm8() const {
    return insn_.opcode_index == 0x6A || insn_.opcode_index == 0x6B || insn_.opcode_index == 0x83;
  }

  const Instruction& insn_;
  bool code32_;
  u32 eip_;
  std::optional<u32> target_;
};

}  // namespace

std::string format_instruction(const Instruction& insn, bool code32, u32 eip) {
  return Formatter(insn, code32, eip).text();
}

Disassembly disassemble(std::span<const u8> bytes, bool code32, u32 eip) {
  Disassembly out;
  Instruction insn;
  const unsigned size = bytes.size() < kMaxInstructionBytes ? static_cast<unsigned>(bytes.size()) : kMaxInstructionBytes;
  bool decoded = false;
  try {
    decoded = decode_bytes(bytes.data(), size, code32, insn);
  } catch (const Fault&) {
    decoded = false;
  }
  if (!decoded || !insn.form) {
    out.text = "(bad)";
    return out;
  }
  out.valid = true;
  out.length = insn.length;
  Formatter formatter(insn, code32, eip);
  out.text = formatter.text();
  out.target = formatter.target();
  return out;
}

std::string instruction_text(std::span<const u8> bytes, bool code32, u32 eip) {
  return disassemble(bytes, code32, eip).text;
}

}  // namespace x86lab
