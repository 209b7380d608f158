// x86lab's rules 8-13 for the 80286 real-mode suite (see sst286_rules.h, docs/sst286.md).
#include "sst286_rules.h"

namespace x86lab::sst286 {

using nlohmann::json;

namespace {

constexpr const char* kWordRegisters[8] = {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di"};
constexpr u8 kHlt = 0xF4;

u32 initial_register(const json& test, const char* name) { return test["initial"]["regs"][name].get<u32>() & 0xFFFF; }

// The selector of a segment register as the test loads it (ES CS SS DS), nullopt for FS
// and GS (the 286 has none; the runner loads 0).
std::optional<u32> selector_of(const json& test, u8 segment) {
  switch (segment) {
    case ES: return initial_register(test, "es");
    case CS: return initial_register(test, "cs");
    case SS: return initial_register(test, "ss");
    case DS: return initial_register(test, "ds");
    default: return std::nullopt;
  }
}

// The 16-bit offset of the ModRM memory operand, from the initial registers.
u32 modrm_offset(const Instruction& insn, const json& test) {
  auto reg = [&](u8 r) { return r == kNoRegister ? 0u : initial_register(test, kWordRegisters[r]); };
  return (reg(insn.base) + reg(insn.index) + insn.displacement) & 0xFFFF;
}

// The size of a string instruction's element in bytes.
unsigned element_size(const Instruction& insn) {
  for (const OperandSpec& spec : insn.operands)
    if (spec.size == OperandSize::b) return 1;
  return insn.operand_size_32 ? 4 : 2;
}

bool exception_is(const json& test, int vector) {
  return test.contains("exception") && test["exception"]["number"].get<int>() == vector;
}

// The state at the start with nothing changed: what an instruction the P6 completes
// without effect on the compared state leaves, IP aside.
Expectation unchanged(const json& test) {
  Expectation e;
  for (const char* name : {"ax", "bx", "cx", "dx", "cs", "ss", "ds", "es", "sp", "bp", "si", "di", "ip", "flags"})
    e.registers[name] = test["initial"]["regs"][name].get<u32>();
  e.registers["flags"] = loadable_flags(e.registers["flags"]);
  for (const auto& pair : test["initial"]["ram"]) e.initial_ram[pair[0].get<u32>()] = pair[1].get<u8>();
  e.ignored_flags = 0xF000;  // README difference 1
  return e;
}

// The instruction's length before the HLT that ends it in the test's bytes, or nullopt
// when the bytes do not end that way.
std::optional<unsigned> length_before_hlt(const json& test) {
  const auto bytes = test["bytes"].get<std::vector<u8>>();
  if (bytes.empty() || bytes.back() != kHlt) return std::nullopt;
  return static_cast<unsigned>(bytes.size() - 1);
}

}  // namespace

u32 linear(u32 segment, u32 offset) { return (segment << 4) + (offset & 0xFFFF); }

u32 loadable_flags(u32 flags) { return (flags & 0x0FD5u) | flag::Reserved1; }

u8 initial_byte(const Expectation& e, u32 address) {
  const auto found = e.initial_ram.find(address);
  return found == e.initial_ram.end() ? 0 : found->second;
}

Expectation expect_interrupt(const json& test, u8 vector) {
  Expectation e = unchanged(test);
  const u32 flags = e.registers["flags"];
  const u32 ss = e.registers["ss"], sp = e.registers["sp"];
  // The frame: FLAGS at SP-2, CS at SP-4, IP at SP-6.
  const u16 frame[3] = {static_cast<u16>(e.registers["ip"]), static_cast<u16>(e.registers["cs"]), static_cast<u16>(flags)};
  std::map<u32, u8> pushed;
  for (unsigned word = 0; word < 3; ++word) {
    const u32 offset = sp - 6 + 2 * word;
    pushed[linear(ss, offset)] = static_cast<u8>(frame[word]);
    pushed[linear(ss, offset + 1)] = static_cast<u8>(frame[word] >> 8);
  }
  // A handler of one HLT at the first free paragraph from 500h.
  u32 handler = 0x500;
  while (e.initial_ram.count(handler) || pushed.count(handler)) handler += 0x10;
  const u32 handler_cs = handler >> 4;
  const u8 entry[4] = {0, 0, static_cast<u8>(handler_cs), static_cast<u8>(handler_cs >> 8)};
  for (u32 i = 0; i < 4; ++i) e.initial_ram[vector * 4u + i] = entry[i];
  e.initial_ram[handler] = kHlt;
  e.final_ram = pushed;
  e.flag_address = linear(ss, sp - 2);
  e.registers["sp"] = (sp - 6) & 0xFFFF;
  e.registers["cs"] = handler_cs;
  e.registers["ip"] = 1;
  e.registers["flags"] = flags & ~(flag::IF | flag::TF);
  return e;
}

std::optional<Expectation> expect_mov_fs_gs(const Instruction& insn, const json& test) {
  if (!exception_is(test, 6) || !insn.form || insn.form->mnemonic != "MOV") return std::nullopt;
  if ((insn.opcode_index != 0x8C && insn.opcode_index != 0x8E) || (insn.reg != 4 && insn.reg != 5)) return std::nullopt;
  const auto length = length_before_hlt(test);
  if (!length || *length != insn.length || insn.operand_size_32 || insn.address_size_32) return std::nullopt;
  Expectation e = unchanged(test);
  if (insn.is_memory()) {
    const auto selector = selector_of(test, insn.segment);
    const u32 offset = modrm_offset(insn, test);
    if (!selector || offset == 0xFFFF) return std::nullopt;  // an FS/GS override, or a word past the limit
    if (insn.opcode_index == 0x8C)  // MOV m16, FS/GS: the selector the runner loaded, 0
      for (u32 k = 0; k < 2; ++k) e.final_ram[linear(*selector, offset + k)] = 0;
  } else if (insn.opcode_index == 0x8C) {
    e.registers[kWordRegisters[insn.rm]] = 0;  // MOV r16, FS/GS
  }
  e.registers["ip"] = (e.registers["ip"] + *length + 1) & 0xFFFF;  // past the HLT
  return e;
}

bool expect_pop_fault_with_sp_unchanged(Expectation& e, const Instruction& insn, const json& test) {
  if (!exception_is(test, 13) || insn.opcode_index != 0x8F || !insn.is_memory() || insn.reg != 0) return false;
  const u32 ss = initial_register(test, "ss"), sp = initial_register(test, "sp");
  if (sp == 0xFFFF || modrm_offset(insn, test) != 0xFFFF) return false;  // the stack read faults / the write does not
  if (e.registers["sp"] != ((sp + 2 - 6) & 0xFFFF)) return false;        // the 286 did not step SP
  u8 frame[6];
  for (u32 k = 0; k < 6; ++k) {
    const u32 address = linear(ss, sp + 2 - 6 + k);
    const auto found = e.final_ram.find(address);
    frame[k] = found != e.final_ram.end() ? found->second : initial_byte(e, address);
  }
  for (u32 k = 0; k < 6; ++k) e.final_ram.erase(linear(ss, sp + 2 - 6 + k));
  for (u32 k = 0; k < 6; ++k) e.final_ram[linear(ss, sp - 6 + k)] = frame[k];
  e.registers["sp"] = (sp - 6) & 0xFFFF;
  e.flag_address = linear(ss, sp - 2);
  return true;
}

std::optional<StringFault> faulting_string_element(const Instruction& insn, const json& test, const Expectation& e) {
  if (!insn.form || !(insn.form->attributes & kStringOp) || insn.address_size_32) return std::nullopt;
  const unsigned size = element_size(insn);
  bool source = false, destination = false;
  for (const OperandSpec& spec : insn.operands) {
    source = source || spec.method == OperandMethod::X;
    destination = destination || spec.method == OperandMethod::Y;
  }
  const u32 count = insn.rep ? initial_register(test, "cx") : 1;
  const bool down = (test["initial"]["regs"]["flags"].get<u32>() & flag::DF) != 0;
  const u32 si = initial_register(test, "si"), di = initial_register(test, "di");
  const auto source_selector = selector_of(test, insn.segment);
  const u32 es = initial_register(test, "es");
  if (!source_selector) return std::nullopt;
  const std::string_view mnemonic = insn.form->mnemonic;
  const bool compares = mnemonic.starts_with("CMPS") || mnemonic.starts_with("SCAS");
  auto word_at = [&](u32 selector, u32 offset) {
    u32 value = 0;
    for (unsigned k = 0; k < size; ++k) value |= u32{initial_byte(e, linear(selector, offset + k))} << (8 * k);
    return value;
  };
  for (u32 element = 0; element < count; ++element) {
    const u32 step = element * size;
    const u32 source_offset = (down ? si - step : si + step) & 0xFFFF;
    const u32 destination_offset = (down ? di - step : di + step) & 0xFFFF;
    if (source && source_offset + size - 1 > 0xFFFF) return StringFault{element, static_cast<SegmentIndex>(insn.segment)};
    if (destination && destination_offset + size - 1 > 0xFFFF) return StringFault{element, ES};
    // REPE/REPNE CMPS and SCAS stop after an element whose comparison ends the repetition.
    if (compares && insn.rep) {
      const u32 left = source ? word_at(*source_selector, source_offset)
                              : initial_register(test, "ax") & (size == 1 ? 0xFF : 0xFFFF);
      const bool equal = left == word_at(es, destination_offset);
      if (equal != (insn.rep == 0xF3)) return std::nullopt;
    }
  }
  return std::nullopt;
}

void expect_string_registers_after(Expectation& e, const Instruction& insn, const json& test, u32 element) {
  const unsigned size = element_size(insn);
  const bool down = (test["initial"]["regs"]["flags"].get<u32>() & flag::DF) != 0;
  const u32 step = element * size;
  for (const char* name : {"si", "di", "cx"}) e.registers[name] = initial_register(test, name);
  for (const OperandSpec& spec : insn.operands) {
    const char* name = spec.method == OperandMethod::X ? "si" : spec.method == OperandMethod::Y ? "di" : nullptr;
    if (name) e.registers[name] = (down ? e.registers[name] - step : e.registers[name] + step) & 0xFFFF;
  }
  if (insn.rep) e.registers["cx"] = (e.registers["cx"] - element) & 0xFFFF;
}

bool expect_aam_zero_flags_unchanged(Expectation& e, const Instruction& insn, const json& test) {
  if (!exception_is(test, 0) || !insn.form || insn.form->mnemonic != "AAM" || (insn.immediate & 0xFF) != 0) return false;
  constexpr u32 kSfZfPf = flag::SF | flag::ZF | flag::PF;  // all in the low byte
  const u32 initial = test["initial"]["regs"]["flags"].get<u32>() & kSfZfPf;
  e.registers["flags"] = (e.registers["flags"] & ~kSfZfPf) | initial;
  if (e.flag_address) {
    const auto found = e.final_ram.find(*e.flag_address);
    const u8 pushed = found != e.final_ram.end() ? found->second : initial_byte(e, *e.flag_address);
    e.final_ram[*e.flag_address] = static_cast<u8>((pushed & ~kSfZfPf) | initial);
  }
  return true;
}

std::optional<Expectation> expect_idiv_overflow(const Instruction& insn, const json& test) {
  if (test.contains("exception") || !insn.form || insn.form->mnemonic != "IDIV") return std::nullopt;
  if ((insn.opcode_index != 0xF6 && insn.opcode_index != 0xF7) || insn.operand_size_32 || insn.address_size_32)
    return std::nullopt;
  const bool byte = insn.opcode_index == 0xF6;
  i64 divisor;
  if (insn.is_memory()) {
    const auto selector = selector_of(test, insn.segment);
    const u32 offset = modrm_offset(insn, test);
    if (!selector || (!byte && offset == 0xFFFF)) return std::nullopt;
    const Expectation initial = unchanged(test);
    u32 value = initial_byte(initial, linear(*selector, offset));
    if (!byte) value |= u32{initial_byte(initial, linear(*selector, offset + 1))} << 8;
    divisor = byte ? static_cast<i8>(value) : static_cast<i16>(value);
  } else if (byte) {  // AL CL DL BL AH CH DH BH
    const u32 word = initial_register(test, kWordRegisters[insn.rm & 3]);
    divisor = static_cast<i8>(insn.rm < 4 ? word : word >> 8);
  } else {
    divisor = static_cast<i16>(initial_register(test, kWordRegisters[insn.rm]));
  }
  if (divisor == 0) return std::nullopt;
  const u32 ax = initial_register(test, "ax"), dx = initial_register(test, "dx");
  const i64 dividend = byte ? i64{static_cast<i16>(ax)} : i64{static_cast<i32>(dx << 16 | ax)};
  const i64 quotient = dividend / divisor;  // truncated toward zero, as IDIV's "temp"
  const i64 limit = byte ? 0x80 : 0x8000;
  if (quotient >= -limit && quotient < limit) return std::nullopt;
  return expect_interrupt(test, 0);
}

std::optional<Expectation> expect_long_invalid_form(std::optional<u8> decode_vector, const json& test) {
  if (!exception_is(test, 13) || decode_vector != 6) return std::nullopt;
  const auto length = length_before_hlt(test);
  if (!length || *length <= k286MaxInstructionBytes || *length > 15) return std::nullopt;
  return expect_interrupt(test, 6);
}

}  // namespace x86lab::sst286
