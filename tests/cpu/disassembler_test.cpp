// Our instruction text (cpu/disassembler.h) against Zydis 4's Intel formatter, the
// independent oracle: every row of the opcode map (cpu/opcode_map.tsv) with several
// ModRM forms, immediates and prefixes, in 16- and 32-bit code, must give Zydis's text
// after the normalisation below; where the SDM's notation and Zydis's differ on
// purpose, the case is in kAcceptedDifferences with the reason. Directed cases check
// what the normalisation hides (the "ptr" sizes, number spelling).
#include <Zydis/Zydis.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cpu/decoder.h"
#include "cpu/disassembler.h"
#include "hex_bytes.h"

namespace x86lab {
namespace {

// ---- normalisation of Zydis's text to our notation ----------------------------------
// 1. Numbers: Zydis writes every number "0x..." in hex. Ours writes 0-9 in decimal and
//    others with an "h" suffix (0FFh), and branch targets and far pointers as
//    addresses: 4 or 8 hex digits by operand size, "0008:00101000". Zydis's numbers
//    are rewritten in ours (for a relative branch or far pointer, as addresses).
// 2. "far" before a far pointer ("jmp far 0x0008:...") is dropped: ours writes the
//    pointer alone, as the SDM's "JMP ptr16:32" does.
// 3. Sizes: "byte ptr " ... are dropped on both sides (Zydis leaves the size of a lone
//    memory operand out, ours writes it; the directed tests check ours).
// 4. Zydis writes an index without scale as "*1" ([bp+di*1]): dropped.
// 5. x87 registers: Zydis "st1", ours the SDM's "st(1)".
// 6. Condition codes: Zydis spells z/nz/nb/nbe/nl/nle, ours the opcode map's
//    e/ne/ae/a/ge/g (SDM Vol. 1, Appendix B "EFLAGS Condition Codes": synonyms).
//    Zydis "ret far" is ours "retf".
std::string normalise_zydis(std::string text, const Instruction& insn) {
  bool relative = false, far_pointer = false;
  for (const OperandSpec& spec : insn.operands) {
    relative |= spec.method == OperandMethod::J;
    far_pointer |= spec.method == OperandMethod::A;
  }
  text = std::regex_replace(text, std::regex(R"(\b(byte|word|dword|fword|qword|tbyte) ptr )"), "");
  text = std::regex_replace(text, std::regex(R"(\*1\b)"), "");
  text = std::regex_replace(text, std::regex(R"(\bst([0-7])\b)"), "st($1)");
  text = std::regex_replace(text, std::regex(R"(^ret far\b)"), "retf");
  text = std::regex_replace(text, std::regex(R"(\bfar (0x))"), "$1");
  static const std::vector<std::pair<std::regex, std::string>> kConditions = {
      {std::regex(R"(^(j|set|cmov)nbe\b)"), "$1a"}, {std::regex(R"(^(j|set|cmov)nb\b)"), "$1ae"},
      {std::regex(R"(^(j|set|cmov)nz\b)"), "$1ne"}, {std::regex(R"(^(j|set|cmov)z\b)"), "$1e"},
      {std::regex(R"(^(j|set|cmov)nle\b)"), "$1g"}, {std::regex(R"(^(j|set|cmov)nl\b)"), "$1ge"}};
  for (const auto& [pattern, replacement] : kConditions) text = std::regex_replace(text, pattern, replacement);
  // Numbers.
  std::string out;
  const std::regex number(R"(0x([0-9A-Fa-f]+))");
  auto begin = std::sregex_iterator(text.begin(), text.end(), number);
  std::size_t last = 0;
  bool first_of_pointer = true;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += text.substr(last, static_cast<std::size_t>(it->position()) - last);
    const unsigned long long value = std::stoull((*it)[1].str(), nullptr, 16);
    char buffer[24];
    if (relative || far_pointer) {
      const bool wide = far_pointer && first_of_pointer ? false : insn.operand_size_32;
      std::snprintf(buffer, sizeof buffer, wide ? "%08llX" : "%04llX", value);
      first_of_pointer = false;
    } else if (value < 10) {
      std::snprintf(buffer, sizeof buffer, "%llu", value);
    } else {
      std::snprintf(buffer, sizeof buffer, "%llX", value);
      const bool letter = !std::isdigit(static_cast<unsigned char>(buffer[0]));
      std::snprintf(buffer, sizeof buffer, letter ? "0%llXh" : "%llXh", value);
    }
    out += buffer;
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  out += text.substr(last);
  return out;
}

std::string normalise_ours(std::string text) {
  text = std::regex_replace(text, std::regex(R"(\b(byte|word|dword|fword|qword|tbyte) ptr )"), "");
  return text;
}

// ---- accepted differences: each names the case, the reason, and recognises it --------
struct Accepted {
  const char* name;
  const char* reason;
  std::function<bool(const Instruction&, bool code32)> applies;
};
const std::vector<Accepted> kAcceptedDifferences = {
    {"string instruction with a segment override or a 67h prefix",
     "Zydis writes the short form (movsd), losing the override and the address size; ours writes the SDM's "
     "explicit form (MOVS m32, m32: movs es:[di], fs:[si]) when the short form would hide them",
     [](const Instruction& i, bool code32) {
       return (i.form->attributes & kStringOp) && (i.segment_override || i.address_size_32 != code32);
     }},
    {"absolute 32-bit address in 16-bit code (67h)",
     "Zydis truncates an absolute address to the 16-bit code's address width ([0xFF80]); with 67h the "
     "address size is 32 bits and so is the displacement (SDM Vol. 2, \"Instruction Format\": "
     "displacement of 1, 2 or 4 bytes by the address size); ours writes the whole displacement",
     [](const Instruction& i, bool code32) {
       const bool absolute = (i.is_memory() && i.base == kNoRegister && i.index == kNoRegister) ||
                             i.operands[0].method == OperandMethod::O || i.operands[1].method == OperandMethod::O;
       return !code32 && i.address_size_32 && absolute;
     }},
    {"shift group /6 (D0-D3, C0, C1)",
     "the opcode map's row for /6 names SAL (the encoding the SDM leaves out; SAL and SHL share /4); Zydis "
     "writes shl",
     [](const Instruction& i, bool) { return i.form->mnemonic == "SAL" && i.reg == 6; }},
    {"relative branch with a 32-bit operand size in 16-bit code (66h)",
     "Zydis truncates the target to the 16-bit code's address width; with a 32-bit operand size the new EIP "
     "is not truncated (SDM \"JMP\": \"tempEIP <- EIP + rel32\" with OperandSize 32)",
     [](const Instruction& i, bool code32) {
       return !code32 && i.operand_size_32 && i.operands[0].method == OperandMethod::J;
     }},
    {"LAR, LSL, SMSW register forms with a 32-bit operand size",
     "the opcode map's notation Ew (Appendix A: LAR Gv,Ew; SMSW Ew) gives a 16-bit register; Zydis follows "
     "the instruction pages' r32/m16 and writes the 32-bit register",
     [](const Instruction& i, bool) {
       const std::string_view m = i.form->mnemonic;
       return (m == "LAR" || m == "LSL" || m == "SMSW") && i.mod == 3 && i.operand_size_32;
     }},
    {"x87 forms whose row names only ST(i)",
     "Zydis writes the implicit ST(0) too (fucomp st0, st1); ours writes the row's operands (FUCOMP ST(i))",
     [](const Instruction& i, bool) {
       return i.operands[0].method == OperandMethod::StackRegister && i.operands[1].method == OperandMethod::None;
     }},
    {"FENI, FDISI, FSETPM",
     "Zydis names them feni8087_nop, fdisi8087_nop, fsetpm287_nop; ours as the SDM's x87 tables (NOPs on the "
     "387 and later)",
     [](const Instruction& i, bool) {
       const std::string_view m = i.form->mnemonic;
       return m == "FENI" || m == "FDISI" || m == "FSETPM";
     }},
    {"multi-byte NOP and hint NOPs (0F 18-0F 1F)",
     "Zydis shows ModRM.reg as a second register operand; the SDM writes NOP r/m16 and NOP r/m32",
     [](const Instruction& i, bool) { return i.opcode_index >= 0x118 && i.opcode_index <= 0x11F; }},
};

// The Zydis text of `bytes` decoded at offset 1000h, or "" when Zydis refuses them.
// As in tests/cpu/zydis_test.cpp, the later ISA extensions that re-use P6 encodings
// (MPX's BNDLDX on 0F 1A, CET's ENDBR32 on F3 0F 1E, LZCNT, TZCNT, CLDEMOTE) are off.
std::string zydis_text(const std::vector<u8>& bytes, bool code32) {
  ZydisDecoder decoder;
  ZydisDecoderInit(&decoder, code32 ? ZYDIS_MACHINE_MODE_LEGACY_32 : ZYDIS_MACHINE_MODE_LEGACY_16,
                   code32 ? ZYDIS_STACK_WIDTH_32 : ZYDIS_STACK_WIDTH_16);
  for (ZydisDecoderMode m : {ZYDIS_DECODER_MODE_MPX, ZYDIS_DECODER_MODE_CET, ZYDIS_DECODER_MODE_LZCNT,
                             ZYDIS_DECODER_MODE_TZCNT, ZYDIS_DECODER_MODE_CLDEMOTE})
    ZydisDecoderEnableMode(&decoder, m, ZYAN_FALSE);
  ZydisFormatter formatter;
  ZydisFormatterInit(&formatter, ZYDIS_FORMATTER_STYLE_INTEL);
  ZydisDecodedInstruction insn;
  ZydisDecodedOperand operands[ZYDIS_MAX_OPERAND_COUNT];
  if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, bytes.data(), bytes.size(), &insn, operands))) return "";
  char text[256];
  if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&formatter, &insn, operands, insn.operand_count_visible, text,
                                                    sizeof text, 0x1000, nullptr)))
    return "";
  return text;
}

// Byte strings for one row: its opcode, ModRM forms (register, [bx]/[ebx], disp8,
// SIB with disp32, absolute), two immediate patterns, and prefixes.
std::vector<std::vector<u8>> samples_of(const InstructionForm& form) {
  std::vector<u8> opcode;
  if (form.opcode >= 0x100) opcode.push_back(0x0F);
  opcode.push_back(static_cast<u8>(form.opcode));
  const bool modrm = InstructionTable::get().slot(form.opcode).needs_modrm;
  std::vector<std::vector<u8>> modrms;
  if (!modrm) {
    modrms.push_back({});
  } else if (form.rm >= 0) {
    modrms.push_back({static_cast<u8>(0xC0 | (form.extension << 3) | form.rm)});
  } else {
    for (const u8 reg : {u8{2}, u8{5}}) {
      const u8 r = static_cast<u8>((form.extension >= 0 ? form.extension : reg) << 3);
      modrms.push_back({static_cast<u8>(0xC0 | r | 1)});
      modrms.push_back({static_cast<u8>(0xC0 | r | 6)});
      modrms.push_back({static_cast<u8>(0x00 | r | 3)});
      modrms.push_back({static_cast<u8>(0x40 | r | 6), 0xF8});
      modrms.push_back({static_cast<u8>(0x80 | r | 4), 0x75});
      modrms.push_back({static_cast<u8>(0x00 | r | 5)});
      modrms.push_back({static_cast<u8>(0x00 | r | 6)});
      if (form.extension >= 0) break;
    }
  }
  const std::vector<std::vector<u8>> tails = {{0x05, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00},
                                              {0x80, 0xFF, 0x12, 0x34, 0x08, 0x00, 0x56, 0x78, 0x9A, 0xBC}};
  std::vector<std::vector<u8>> prefixes = {{}, {0x66}, {0x67}, {0x64}, {0x26}, {0x3E}};
  if (form.attributes & kLockable) prefixes.push_back({0xF0});
  if (form.attributes & kStringOp) prefixes.insert(prefixes.end(), {{0xF3}, {0xF2}, {0xF3, 0x66}});
  std::vector<std::vector<u8>> out;
  for (const auto& prefix : prefixes)
    for (const auto& m : modrms)
      for (const auto& tail : tails) {
        std::vector<u8> bytes = prefix;
        bytes.insert(bytes.end(), opcode.begin(), opcode.end());
        bytes.insert(bytes.end(), m.begin(), m.end());
        bytes.insert(bytes.end(), tail.begin(), tail.end());
        out.push_back(bytes);
      }
  return out;
}

TEST(Disassembler, EveryRowOfTheOpcodeMapMatchesZydisAfterNormalisation) {
  const auto& rows = InstructionTable::get().rows();
  unsigned compared = 0, mismatches = 0;
  std::map<std::string, unsigned> accepted;
  std::vector<std::string> report;
  std::set<std::size_t> reported_rows;  // the first mismatch of each row
  for (const bool code32 : {false, true}) {
    for (std::size_t row = 0; row < rows.size(); ++row) {
      for (const auto& bytes : samples_of(*rows[row])) {
        Instruction insn;
        bool ok = false;
        try {
          ok = decode_bytes(bytes.data(), static_cast<unsigned>(bytes.size()), code32, insn);
        } catch (const Fault&) {
          ok = false;
        }
        if (!ok || insn.form != rows[row]) continue;  // #UD here, or another row's form
        const std::vector<u8> used(bytes.begin(), bytes.begin() + insn.length);
        const std::string z = zydis_text(used, code32);
        ASSERT_FALSE(z.empty()) << "Zydis refuses " << testing::hex_bytes(bytes, insn.length);
        const std::string ours = format_instruction(insn, code32, 0x1000);
        ++compared;
        const std::string want = normalise_zydis(z, insn), got = normalise_ours(ours);
        if (want == got) continue;
        bool is_accepted = false;
        for (const Accepted& a : kAcceptedDifferences)
          if (a.applies(insn, code32)) {
            ++accepted[a.name];
            is_accepted = true;
            break;
          }
        if (is_accepted) continue;
        ++mismatches;
        if (report.size() < 60 && reported_rows.insert(row).second)
          report.push_back(std::string(code32 ? "32 " : "16 ") + testing::hex_bytes(bytes, insn.length) + ": ours '" + ours +
                           "' zydis '" + z + "' (normalised '" + got + "' vs '" + want + "')");
      }
    }
  }
  for (const std::string& line : report) ADD_FAILURE() << line;
  for (const auto& [name, count] : accepted) std::printf("accepted difference '%s': %u samples\n", name.c_str(), count);
  std::printf("compared %u samples of %zu rows\n", compared, rows.size());
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(compared, 10000u);  // every row, several forms each
}

// What the normalisation hides, against the SDM's own spelling of the operands.
std::string text_of(std::vector<u8> bytes, bool code32, u32 eip = 0x1000) {
  return disassemble(bytes, code32, eip).text;
}

TEST(Disassembler, MemorySizesAreWrittenWhenNoRegisterGivesThem) {
  EXPECT_EQ(text_of({0x8B, 0x43, 0x04}, true), "mov eax, [ebx+4]");              // 8B /r MOV r32, r/m32
  EXPECT_EQ(text_of({0xFF, 0x03}, true), "inc dword ptr [ebx]");                 // FF /0 INC r/m32
  EXPECT_EQ(text_of({0xC6, 0x03, 0x01}, true), "mov byte ptr [ebx], 1");         // C6 /0 MOV r/m8, imm8
  EXPECT_EQ(text_of({0x0F, 0xB6, 0x03}, true), "movzx eax, byte ptr [ebx]");     // 0F B6 MOVZX r32, r/m8
  EXPECT_EQ(text_of({0xD1, 0x20}, true), "shl dword ptr [eax], 1");              // D1 /4 SHL r/m32, 1
  EXPECT_EQ(text_of({0xDD, 0x03}, true), "fld qword ptr [ebx]");                 // DD /0 FLD m64fp
  EXPECT_EQ(text_of({0x8C, 0x18}, true), "mov [eax], ds");                       // 8C /r MOV r/m16, Sreg
}

TEST(Disassembler, NumbersTargetsAndFarPointersAreWrittenAsTheTraceWritesAddresses) {
  EXPECT_EQ(text_of({0xEA, 0x00, 0x10, 0x10, 0x00, 0x08, 0x00}, true), "jmp 0008:00101000");
  EXPECT_EQ(text_of({0xE8, 0x00, 0x00, 0x00, 0x00}, true, 0x1000), "call 00001005");
  EXPECT_EQ(text_of({0xEB, 0xFE}, false, 0x0100), "jmp 0100");
  EXPECT_EQ(text_of({0x83, 0xC0, 0xFF}, true), "add eax, 0FFFFFFFFh");  // imm8 sign-extended (SDM "ADD")
  EXPECT_EQ(text_of({0x8B, 0x45, 0xF8}, true), "mov eax, [ebp-8]");
  EXPECT_EQ(text_of({0xCD, 0x21}, true), "int 21h");
}

TEST(Disassembler, ModesPrefixesAndOverridesFollowTheDecoder) {
  EXPECT_EQ(text_of({0x8B, 0x43, 0x04}, false), "mov ax, [bp+di+4]");      // 16-bit ModRM (SDM Table 2-1)
  EXPECT_EQ(text_of({0x66, 0x8B, 0x03}, false), "mov eax, [bp+di]");       // 66h: 32-bit operand
  EXPECT_EQ(text_of({0x67, 0x8B, 0x03}, false), "mov ax, [ebx]");          // 67h: 32-bit address
  EXPECT_EQ(text_of({0x64, 0x8B, 0x03}, true), "mov eax, fs:[ebx]");
  EXPECT_EQ(text_of({0xF0, 0x01, 0x03}, true), "lock add [ebx], eax");
  EXPECT_EQ(text_of({0xF3, 0xA5}, true), "rep movsd");
  EXPECT_EQ(text_of({0xF3, 0xA6}, false), "repe cmpsb");
  EXPECT_EQ(text_of({0x64, 0xA5}, true), "movs dword ptr es:[edi], dword ptr fs:[esi]");
  EXPECT_EQ(text_of({0x98}, true), "cwde");
  EXPECT_EQ(text_of({0x98}, false), "cbw");
  EXPECT_EQ(text_of({0x0F}, true), "(bad)");
}

}  // namespace
}  // namespace x86lab
