// Differential decoder test: x86lab's decoder (cpu/decoder.h) against Zydis 4 on biased
// random byte strings in 16- and 32-bit modes (Intel SDM Vol. 2, "Instruction Format"
// and Appendix A "Opcode Map"). Where the two disagree, the SDM decides; each such
// case is listed in kSdmOverZydis below with the SDM's words.
#include <Zydis/Zydis.h>
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cpu/decoder.h"
#include "cpu/instruction_table.h"
#include "row_cases.h"
#include "hex_bytes.h"

namespace x86lab {
namespace {

constexpr unsigned kSamplesPerMode = 1'000'000;
constexpr unsigned kBufferBytes = 16;  // one more than the 15-byte limit

// ---- documented exclusions: what Zydis decodes and x86lab leaves to #UD ----------------
// x86lab is a P6-class CPU (integer and x87) without MMX or SSE (DESIGN.md section 1;
// CPUID claims neither). Everything in these Zydis ISA sets must raise #UD in x86lab's
// decoder; everything else Zydis decodes x86lab must decode alike.
struct Exclusion {
  const char* name;
  std::vector<ZydisISASet> isa_sets;  // empty (with no mnemonics): every ISA set that is not P6
  std::vector<ZydisMnemonic> mnemonics = {};
};
const Exclusion kExclusions[] = {
    {"MMX", {ZYDIS_ISA_SET_PENTIUMMMX, ZYDIS_ISA_SET_SSE2MMX, ZYDIS_ISA_SET_SSSE3MMX}},
    {"SSE to SSE4 (with prefetch hints, FXSAVE, LDMXCSR, SSE3's FISTTP)",
     {ZYDIS_ISA_SET_SSE, ZYDIS_ISA_SET_SSE2, ZYDIS_ISA_SET_SSE3, ZYDIS_ISA_SET_SSE3X87, ZYDIS_ISA_SET_SSSE3,
      ZYDIS_ISA_SET_SSE4, ZYDIS_ISA_SET_SSE42, ZYDIS_ISA_SET_SSE4A, ZYDIS_ISA_SET_SSEMXCSR,
      ZYDIS_ISA_SET_SSE_PREFETCH, ZYDIS_ISA_SET_FXSAVE}},
    {"later ISA (VEX/EVEX/XOP encodings, AMD, 3DNow!, VMX, TSX, ...)", {}},
};

// The Zydis ISA sets of a P6: 8086 to Pentium Pro integer instructions, CMOV, the long
// NOPs, PAUSE (REP NOP), the x87 FPU with FCMOV. x86lab must decode all of them.
bool is_p6(ZydisISASet set) {
  switch (set) {
    case ZYDIS_ISA_SET_I86: case ZYDIS_ISA_SET_I186: case ZYDIS_ISA_SET_I286REAL:
    case ZYDIS_ISA_SET_I286PROTECTED: case ZYDIS_ISA_SET_I386: case ZYDIS_ISA_SET_I486:
    case ZYDIS_ISA_SET_I486REAL: case ZYDIS_ISA_SET_PENTIUMREAL: case ZYDIS_ISA_SET_PPRO:
    case ZYDIS_ISA_SET_CMOV: case ZYDIS_ISA_SET_FAT_NOP: case ZYDIS_ISA_SET_PAUSE: case ZYDIS_ISA_SET_RDPMC:
    case ZYDIS_ISA_SET_LAHF: case ZYDIS_ISA_SET_X87: case ZYDIS_ISA_SET_FCMOV:
      return true;
    default:
      return false;
  }
}

// The exclusion an instruction falls under, or nullptr for a P6 instruction.
const char* exclusion_of(const ZydisDecodedInstruction& z) {
  const ZydisISASet set = z.meta.isa_set;
  for (const Exclusion& e : kExclusions) {
    for (ZydisISASet s : e.isa_sets)
      if (s == set) return e.name;
    for (ZydisMnemonic m : e.mnemonics)
      if (m == z.mnemonic) return e.name;
  }
  return is_p6(set) ? nullptr : std::end(kExclusions)[-1].name;
}

// ---- documented cases where x86lab follows the SDM and Zydis differs ----------------------
// Each entry names the case; `applies` recognises it from both decoders' results.
struct ZydisResult {
  bool ok;
  ZyanStatus status;
  ZydisDecodedInstruction insn;
  std::array<ZydisDecodedOperand, ZYDIS_MAX_OPERAND_COUNT> operands;
};
struct X86labResult {
  bool ok;
  u8 vector;  // when !ok
  Instruction insn;
};
struct SdmCase {
  const char* text;
  bool (*applies)(const ZydisResult&, const X86labResult&);
};

const SdmCase kSdmOverZydis[] = {
    {"0F 1E with a register operand is a reserved NOP whose operand size follows 66h like "
     "any form (SDM Appendix A); Zydis ignores 66h in some of them (its CET tables: RDSSP, ENDBR)",
     [](const ZydisResult& z, const X86labResult& x) {
       return z.ok && x.ok && x.insn.opcode_index == 0x11E && x.insn.mod == 3 &&
              z.insn.mnemonic == ZYDIS_MNEMONIC_NOP && z.insn.length == x.insn.length;
     }},
    {"UD0 (0F FF) and UD1 (0F B9) exist only to raise #UD; x86lab raises it at the opcode "
     "byte (SDM \"UD - Undefined Instruction\"), so the length Zydis decodes does not matter",
     [](const ZydisResult& z, const X86labResult& x) {
       return z.ok && !x.ok && x.vector == 6 &&
              (z.insn.mnemonic == ZYDIS_MNEMONIC_UD0 || z.insn.mnemonic == ZYDIS_MNEMONIC_UD1);
     }},
    {"RSM outside system-management mode raises #UD (SDM \"RSM - Resume from System Management Mode\"); "
     "x86lab models no SMM",
     [](const ZydisResult& z, const X86labResult& x) {
       return z.ok && !x.ok && x.vector == 6 && z.insn.mnemonic == ZYDIS_MNEMONIC_RSM;
     }},
};

// ---- the random instruction generator ----------------------------------------------------
// Biased so that every part of the format is well covered: legacy prefixes (alone, in
// pairs, in long runs up to the 15-byte limit), the one-byte and 0F maps, ModRM forms
// with SIB and 8/16/32-bit displacements, and random immediates.
class Generator {
 public:
  explicit Generator(u64 seed) : rng_(seed) {}
  std::vector<u8> next() {
    static constexpr u8 kPrefixes[] = {0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x66, 0x67, 0xF0, 0xF2, 0xF3};
    std::vector<u8> out;
    const unsigned r = below(100);
    const unsigned prefixes = r < 40 ? 0 : r < 70 ? 1 : r < 85 ? 2 : r < 96 ? 3 + below(3) : 6 + below(10);
    for (unsigned i = 0; i < prefixes; ++i) out.push_back(kPrefixes[below(std::size(kPrefixes))]);
    if (below(100) < 35) {
      out.push_back(0x0F);
      out.push_back(byte());
    } else {
      out.push_back(byte());
    }
    // ModRM: every mod equally; rm biased to 4 (SIB) and 5/6 (displacement-only forms).
    const unsigned mod = below(4), reg = below(8);
    const unsigned pick = below(8);
    const unsigned rm = pick < 2 ? 4 : pick == 2 ? 5 : pick == 3 ? 6 : below(8);
    out.push_back(static_cast<u8>(mod << 6 | reg << 3 | rm));
    // SIB: base 5 (no base with mod 0) and index 4 (no index) more often.
    const unsigned base = below(4) == 0 ? 5 : below(8), index = below(4) == 0 ? 4 : below(8);
    out.push_back(static_cast<u8>(below(4) << 6 | index << 3 | base));
    while (out.size() < kBufferBytes) out.push_back(byte());
    out.resize(kBufferBytes);
    return out;
  }

 private:
  unsigned below(unsigned n) { return static_cast<unsigned>(rng_() % n); }
  u8 byte() { return static_cast<u8>(rng_()); }
  std::mt19937_64 rng_;
};

// ---- field comparison --------------------------------------------------------------------
std::string lower(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has_method(const Instruction& insn, OperandMethod method) {
  for (const OperandSpec& op : insn.operands)
    if (op.method == method) return true;
  return false;
}

// x86lab names a mnemonic as the SDM's opcode tables do; Zydis spells some condition
// codes and the size-specific forms differently. Returns whether they name the same.
bool same_mnemonic(const Instruction& insn, const ZydisDecodedInstruction& z) {
  const std::string ours = lower(insn.form->mnemonic);
  const std::string theirs = ZydisMnemonicGetString(z.mnemonic);
  if (ours == theirs) return true;
  // Condition codes: SDM first names vs Zydis's (E/Z, NE/NZ, AE/NB, A/NBE, GE/NL, G/NLE).
  static const std::map<std::string, std::string> kConditions = {
      {"e", "z"}, {"ne", "nz"}, {"ae", "nb"}, {"a", "nbe"}, {"ge", "nl"}, {"g", "nle"}};
  for (const char* family : {"j", "set", "cmov"}) {
    const std::string f = family;
    if (ours.rfind(f, 0) == 0 && theirs.rfind(f, 0) == 0) {
      const auto it = kConditions.find(ours.substr(f.size()));
      if (it != kConditions.end() && theirs == f + it->second) return true;
    }
  }
  const char size = z.operand_width == 8 ? 'b' : z.operand_width == 16 ? 'w' : 'd';
  static const std::map<std::string, std::vector<std::string>> kAliases = {
      {"sal", {"shl"}},        {"cbw", {"cbw", "cwde"}},   {"cwd", {"cwd", "cdq"}},
      {"pusha", {"pushad"}},   {"popa", {"popad"}},        {"pushf", {"pushfd"}},
      {"popf", {"popfd"}},     {"iret", {"iretd"}},        {"retf", {"ret"}},
      {"jcxz", {"jecxz"}},     {"nop", {"pause"}},         {"xlat", {"xlat"}},
      {"int3", {"int3"}},      {"fdisi", {"fdisi8087_nop"}}, {"feni", {"feni8087_nop"}},
      {"fsetpm", {"fsetpm287_nop"}},
  };
  if (const auto it = kAliases.find(ours); it != kAliases.end())
    for (const std::string& alias : it->second)
      if (alias == theirs) return true;
  // String instructions: Zydis appends the element size (movsb/movsw/movsd).
  if (insn.form->attributes & kStringOp) return theirs == ours + size;
  return false;
}

bool size_dependent(const Instruction& insn) {
  if (insn.operands[0].method == OperandMethod::None || (insn.form->attributes & kStringOp)) return true;
  for (const OperandSpec& op : insn.operands)
    if (op.size == OperandSize::v || op.size == OperandSize::z || op.size == OperandSize::p || op.size == OperandSize::a)
      return true;
  return false;
}

u32 mask_of_bits(unsigned bits) { return bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1; }

ZydisRegister zydis_gpr(u8 number, bool address32) {
  return static_cast<ZydisRegister>((address32 ? ZYDIS_REGISTER_EAX : ZYDIS_REGISTER_AX) + number);
}

// Compares the fields both decoders report; returns "" when they agree, otherwise what
// differs.
std::string compare(const Instruction& x, const ZydisDecodedInstruction& z,
                    const std::array<ZydisDecodedOperand, ZYDIS_MAX_OPERAND_COUNT>& zops) {
  std::string diff;
  auto check = [&](bool ok, const char* what) {
    if (!ok) diff += std::string(diff.empty() ? "" : ", ") + what;
  };
  check(x.length == z.length, "length");
  check(same_mnemonic(x, z), "mnemonic");
  // Operand size, where it means something: forms with a word/dword operand (v, z, p, a)
  // or with implicit operands (PUSHA, CBW, IRET, string instructions, ...). Zydis reports
  // 16 or 32 there (8 for byte forms, whose 66h prefix changes nothing).
  if (size_dependent(x) && (z.operand_width == 16 || z.operand_width == 32))
    check(x.operand_size_32 == (z.operand_width == 32), "operand size");
  check(x.address_size_32 == (z.address_width == 32), "address size");
  // ModRM fields. MOV to/from CRn/DRn ignore ModRM.mod (SDM: "the 2 bits in the mod field
  // are ignored"), so x86lab reads mod as 3 there.
  check(x.has_modrm == bool(z.attributes & ZYDIS_ATTRIB_HAS_MODRM), "ModRM presence");
  if (x.has_modrm && (z.attributes & ZYDIS_ATTRIB_HAS_MODRM)) {
    if (!has_method(x, OperandMethod::C) && !has_method(x, OperandMethod::D)) check(x.mod == z.raw.modrm.mod, "ModRM.mod");
    check(x.reg == z.raw.modrm.reg, "ModRM.reg");
    check(x.rm == z.raw.modrm.rm, "ModRM.rm");
  }
  if (z.attributes & ZYDIS_ATTRIB_HAS_SIB) {
    check(x.scale == z.raw.sib.scale, "SIB.scale");
    check(x.index == (z.raw.sib.index == 4 ? kNoRegister : z.raw.sib.index), "SIB.index");
  }
  // Displacement (moffs is an immediate in x86lab's Instruction and a displacement in Zydis).
  const u32 address_mask = x.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
  if (has_method(x, OperandMethod::O)) {
    check(z.raw.disp.size != 0 && x.immediate == (static_cast<u32>(z.raw.disp.value) & address_mask), "moffs");
  } else if (x.is_memory()) {
    check((x.displacement & address_mask) == (static_cast<u32>(z.raw.disp.value) & address_mask), "displacement");
  }
  // Immediates in encoding order; x86lab sign-extends relative offsets, so compare the
  // encoded bits.
  const u32 ours[2] = {x.immediate, x.immediate2};
  unsigned zydis_immediates = 0;
  for (unsigned i = 0; i < 2; ++i) {
    if (z.raw.imm[i].size == 0) continue;
    ++zydis_immediates;
    const u32 mask = mask_of_bits(z.raw.imm[i].size);
    check((ours[i] & mask) == (static_cast<u32>(z.raw.imm[i].value.u) & mask), i == 0 ? "immediate" : "second immediate");
  }
  unsigned our_immediates = 0;
  for (const OperandSpec& op : x.operands) {
    if (op.method == OperandMethod::I || op.method == OperandMethod::J) ++our_immediates;
    if (op.method == OperandMethod::A) our_immediates += 2;
  }
  check(our_immediates == zydis_immediates, "number of immediates");
  // Memory operand: base, index and effective segment (default SS for BP/SP/EBP/ESP bases, or the last override).
  for (unsigned i = 0; i < z.operand_count; ++i) {
    const ZydisDecodedOperand& op = zops[i];
    if (op.type != ZYDIS_OPERAND_TYPE_MEMORY || op.mem.type != ZYDIS_MEMOP_TYPE_MEM) continue;
    if (op.encoding != ZYDIS_OPERAND_ENCODING_MODRM_RM) continue;
    check(x.is_memory(), "memory operand");
    if (!x.is_memory()) break;
    const ZydisRegister base = x.base == kNoRegister ? ZYDIS_REGISTER_NONE : zydis_gpr(x.base, x.address_size_32);
    const ZydisRegister index = x.index == kNoRegister ? ZYDIS_REGISTER_NONE : zydis_gpr(x.index, x.address_size_32);
    if (x.address_size_32) {
      check(base == op.mem.base, "base register");
      check(index == op.mem.index, "index register");
    } else {
      // 16-bit forms name up to two registers without scaling; Zydis calls a lone SI or
      // DI the base, the SDM's Table 2-1 lists it beside BX/BP, so compare the pair.
      check((base == op.mem.base && index == op.mem.index) || (base == op.mem.index && index == op.mem.base),
            "base/index registers");
    }
    check(static_cast<ZydisRegister>(ZYDIS_REGISTER_ES + x.segment) == op.mem.segment, "segment");
  }
  // Segment override of string sources and moffs.
  if (has_method(x, OperandMethod::X) || has_method(x, OperandMethod::O)) {
    for (unsigned i = 0; i < z.operand_count; ++i) {
      const ZydisDecodedOperand& op = zops[i];
      if (op.type != ZYDIS_OPERAND_TYPE_MEMORY || op.mem.segment == ZYDIS_REGISTER_ES) continue;
      check(static_cast<ZydisRegister>(ZYDIS_REGISTER_ES + x.segment) == op.mem.segment, "segment");
    }
  }
  // LOCK, and REP/REPE/REPNE where they mean something (string instructions).
  check(x.lock == bool(z.attributes & ZYDIS_ATTRIB_HAS_LOCK), "LOCK");
  if (x.form->attributes & kStringOp) {
    const bool zydis_rep = z.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE);
    check((x.rep == 0xF3) == zydis_rep, "REP/REPE");
    check((x.rep == 0xF2) == bool(z.attributes & ZYDIS_ATTRIB_HAS_REPNE), "REPNE");
  }
  return diff;
}

// ---- the comparison run ------------------------------------------------------------------
struct Tally {
  u64 samples = 0, compared = 0, both_rejected = 0, sdm_cases = 0, mismatches = 0;
  std::map<std::string, u64> excluded;   // by exclusion name
  std::map<std::string, std::set<std::string>> excluded_mnemonics;
  std::map<std::string, u64> compared_by_mnemonic;
  std::map<std::string, std::pair<u64, std::string>> kinds;  // mismatch kind -> count, first bytes
};

void mismatch(Tally& t, bool mode32, const std::vector<u8>& bytes, const std::string& what) {
  ++t.mismatches;
  auto& [count, example] = t.kinds[what];
  if (count++ == 0) example = std::string(mode32 ? "32-bit " : "16-bit ") + testing::hex_bytes(bytes, 15);
}

Tally run_mode(bool mode32, u64 seed) {
  ZydisDecoder decoder;
  ZydisDecoderInit(&decoder, mode32 ? ZYDIS_MACHINE_MODE_LEGACY_32 : ZYDIS_MACHINE_MODE_LEGACY_16,
                   mode32 ? ZYDIS_STACK_WIDTH_32 : ZYDIS_STACK_WIDTH_16);
  // Later ISA extensions that re-use P6 encodings are switched off, so Zydis decodes
  // those bytes as a P6 does: F3 0F BC/BD are REP BSF/BSR (not TZCNT/LZCNT), F2 before a
  // branch is an ignored REPNE (not MPX's BND), 0F 1A/1B/1C/1E are hint NOPs.
  for (ZydisDecoderMode m : {ZYDIS_DECODER_MODE_MPX, ZYDIS_DECODER_MODE_CET, ZYDIS_DECODER_MODE_LZCNT,
                             ZYDIS_DECODER_MODE_TZCNT, ZYDIS_DECODER_MODE_CLDEMOTE})
    ZydisDecoderEnableMode(&decoder, m, ZYAN_FALSE);

  Tally t;
  Generator generator(seed);
  for (unsigned n = 0; n < kSamplesPerMode; ++n) {
    const std::vector<u8> bytes = generator.next();
    ++t.samples;
    ZydisResult z{};
    z.status = ZydisDecoderDecodeFull(&decoder, bytes.data(), bytes.size(), &z.insn, z.operands.data());
    z.ok = ZYAN_SUCCESS(z.status);
    X86labResult x{};
    try {
      x.ok = decode_bytes(bytes.data(), kBufferBytes, mode32, x.insn);
      if (!x.ok) {
        mismatch(t, mode32, bytes, "x86lab ran out of bytes");
        continue;
      }
    } catch (const Fault& fault) {
      x.ok = false;
      x.vector = fault.vector;
    }

    bool documented = false;
    for (const SdmCase& c : kSdmOverZydis) documented = documented || c.applies(z, x);
    if (documented) {
      ++t.sdm_cases;
      continue;
    }
    if (x.ok && z.ok) {
      const std::string diff = compare(x.insn, z.insn, z.operands);
      if (!diff.empty()) {
        mismatch(t, mode32, bytes, std::string(x.insn.form->mnemonic) + " vs " + ZydisMnemonicGetString(z.insn.mnemonic) + ": " + diff);
        continue;
      }
      if (exclusion_of(z.insn)) {
        mismatch(t, mode32, bytes, std::string("x86lab decodes ") + ZydisISASetGetString(z.insn.meta.isa_set) + " " +
                                       ZydisMnemonicGetString(z.insn.mnemonic));
        continue;
      }
      ++t.compared;
      ++t.compared_by_mnemonic[std::string(x.insn.form->mnemonic)];
    } else if (z.ok) {
      if (x.vector != 6) {
        mismatch(t, mode32, bytes, "x86lab raised vector " + std::to_string(x.vector) + ", Zydis decodes " +
                                       ZydisMnemonicGetString(z.insn.mnemonic) + " of " + std::to_string(z.insn.length) + " bytes");
      } else if (const char* exclusion = exclusion_of(z.insn)) {
        ++t.excluded[exclusion];
        t.excluded_mnemonics[exclusion].insert(ZydisMnemonicGetString(z.insn.mnemonic));
      } else {
        mismatch(t, mode32, bytes, std::string("P6 instruction raises #UD: ") + ZydisMnemonicGetString(z.insn.mnemonic) +
                                       " (" + ZydisISASetGetString(z.insn.meta.isa_set) + ")");
      }
    } else if (x.ok) {
      char status[16];
      std::snprintf(status, sizeof status, "%08X", z.status);
      mismatch(t, mode32, bytes, std::string("x86lab decodes ") + std::string(x.insn.form->mnemonic) + " of " +
                                     std::to_string(x.insn.length) + " bytes, Zydis status " + status);
    } else {
      // Both reject. An instruction longer than 15 bytes must be #GP(0) (or #UD when
      // x86lab stopped at an opcode it does not implement).
      if (z.status == ZYDIS_STATUS_INSTRUCTION_TOO_LONG && x.vector != 13 && x.vector != 6)
        mismatch(t, mode32, bytes, "too long: x86lab raised vector " + std::to_string(x.vector));
      else
        ++t.both_rejected;
    }
  }
  return t;
}

void report(const char* mode, const Tally& t) {
  std::printf("Zydis comparison, %s mode: %llu byte strings, %llu instructions compared (%zu mnemonics), "
              "%llu rejected by both, %llu SDM-over-Zydis cases, %llu mismatches\n",
              mode, static_cast<unsigned long long>(t.samples), static_cast<unsigned long long>(t.compared),
              t.compared_by_mnemonic.size(), static_cast<unsigned long long>(t.both_rejected),
              static_cast<unsigned long long>(t.sdm_cases), static_cast<unsigned long long>(t.mismatches));
  for (const auto& [name, count] : t.excluded) {
    const std::set<std::string>& mnemonics = t.excluded_mnemonics.at(name);
    std::string some;
    for (auto it = mnemonics.begin(); it != mnemonics.end() && some.size() < 60; ++it) some += " " + *it;
    std::printf("  #UD as documented exclusion \"%s\": %llu (%zu mnemonics:%s%s)\n", name.c_str(),
                static_cast<unsigned long long>(count), mnemonics.size(), some.c_str(),
                mnemonics.size() > 8 ? " ..." : "");
  }
}

void run_and_check(bool mode32, u64 seed) {
  const Tally t = run_mode(mode32, seed);
  report(mode32 ? "32-bit" : "16-bit", t);
  std::string examples;
  for (const auto& [what, seen] : t.kinds)
    examples += "\n  " + what + " (" + std::to_string(seen.first) + "x, e.g. " + seen.second + ")";
  EXPECT_EQ(t.mismatches, 0u) << examples;
  EXPECT_GE(t.compared, kSamplesPerMode / 4) << "the generator should produce mostly implemented instructions";
}

// What the comparison found, one line per case (SDM "MOV - Move", "MOV - Move to/from
// Control Registers", "NOP - No Operation"): bytes, 32-bit mode, expected length or #UD.
struct FoundCase {
  std::vector<u8> bytes;
  int length;  // -1: #UD
};
const FoundCase kFound[] = {
    {{0x8E, 0xC8}, -1},                      // mov cs, ax
    {{0x8E, 0xF0}, -1},                      // mov (segment register 6), ax
    {{0x8C, 0xF8}, -1},                      // mov eax, (segment register 7)
    {{0x0F, 0x22, 0xC8}, -1},                // mov cr1, eax
    {{0x0F, 0x20, 0xE8}, -1},                // mov eax, cr5
    {{0x0F, 0x20, 0xE0}, 3},                 // mov eax, cr4
    {{0x0F, 0x1F, 0x44, 0x00, 0x00}, 5},     // nop dword [eax+eax*1+0]
    {{0x66, 0x0F, 0x1F, 0x84, 0, 0, 0, 0, 0}, 9},  // nop word [eax+eax*1+0]
    {{0x0F, 0x19, 0x05, 0, 0, 0, 0}, 7},     // reserved NOP with a disp32 operand
    {{0x0F, 0x18, 0xC0}, 3},                 // 0F 18 /0 register form: hint NOP
    {{0x0F, 0x18, 0x00}, -1},                // prefetchnta [eax]: SSE
};

TEST(ZydisDecoder, FoundCasesDecodeAsTheSdmSays) {
  for (const FoundCase& c : kFound) {
    Instruction insn;
    const std::string bytes = testing::hex_bytes(c.bytes, static_cast<unsigned>(c.bytes.size()));
    try {
      ASSERT_TRUE(decode_bytes(c.bytes.data(), static_cast<unsigned>(c.bytes.size()), true, insn)) << bytes;
      EXPECT_EQ(insn.length, c.length) << bytes;
    } catch (const Fault& fault) {
      EXPECT_EQ(c.length, -1) << bytes;
      EXPECT_EQ(fault.vector, 6) << bytes;
    }
  }
}

// Every row of the table has a case in tests/cpu/row_cases.h that x86lab decodes to it
// and Zydis decodes alike (length, mnemonic, operands); a row without one fails here
// with its line of cpu/opcode_map.tsv.
TEST(ZydisDecoder, EveryRowHasACaseThatDecodesAsZydisSays) {
  ZydisDecoder decoder;
  ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
  for (ZydisDecoderMode m : {ZYDIS_DECODER_MODE_MPX, ZYDIS_DECODER_MODE_CET, ZYDIS_DECODER_MODE_LZCNT,
                             ZYDIS_DECODER_MODE_TZCNT, ZYDIS_DECODER_MODE_CLDEMOTE})
    ZydisDecoderEnableMode(&decoder, m, ZYAN_FALSE);
  const auto& rows = InstructionTable::get().rows();
  std::vector<bool> reached(rows.size(), false);
  for (const decode_testing::RowCase& c : decode_testing::kRowCases) {
    std::vector<u8> bytes = c.bytes;
    const std::string text = testing::hex_bytes(bytes, static_cast<unsigned>(bytes.size()));
    bytes.resize(kBufferBytes, 0);
    ZydisResult z{};
    z.status = ZydisDecoderDecodeFull(&decoder, bytes.data(), bytes.size(), &z.insn, z.operands.data());
    z.ok = ZYAN_SUCCESS(z.status);
    X86labResult x{};
    x.ok = decode_bytes(bytes.data(), kBufferBytes, true, x.insn);
    ASSERT_TRUE(x.ok) << text;
    reached[x.insn.row] = true;
    EXPECT_EQ(x.insn.length, c.bytes.size()) << text << " (" << x.insn.form->mnemonic << ")";
    bool documented = false;
    for (const SdmCase& sdm : kSdmOverZydis) documented = documented || sdm.applies(z, x);
    if (documented) continue;
    ASSERT_TRUE(z.ok) << text << ": Zydis rejects what x86lab decodes as " << x.insn.form->mnemonic;
    EXPECT_EQ(compare(x.insn, z.insn, z.operands), "") << text << ": " << x.insn.form->mnemonic << " vs "
                                                       << ZydisMnemonicGetString(z.insn.mnemonic);
  }
  for (std::size_t r = 0; r < rows.size(); ++r)
    EXPECT_TRUE(reached[r]) << "cpu/opcode_map.tsv:" << rows[r]->map_line << ": " << rows[r]->mnemonic << " "
                            << rows[r]->operands << " has no case in tests/cpu/row_cases.h";
}

TEST(ZydisDecoder, RandomBytesDecodeAlikeIn16BitMode) { run_and_check(false, 0x16); }
TEST(ZydisDecoder, RandomBytesDecodeAlikeIn32BitMode) { run_and_check(true, 0x32); }

}  // namespace
}  // namespace x86lab
