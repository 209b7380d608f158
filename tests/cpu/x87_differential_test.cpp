// Differential test of x86lab's x87 against the host CPU's x87 (tests/cpu/x87_host.h):
// every load/store/convert, arithmetic, compare and control instruction of the P6 in
// every rounding mode and precision, from random FPU states with masked and unmasked
// exceptions, in two scopes (x87_host.h, Scope):
// - Architectural, on every x86-64 host: the forms whose results IEEE 754 and the SDM
//   define exactly (the basic operations +, -, *, /, sqrt, round to integer, sign
//   changes; loads, stores and conversions; comparisons; the control instructions)
//   from inputs without implementation-specific encodings, compared without the
//   reserved environment halves and the condition codes each SDM page leaves undefined.
// - Intel, on Intel hosts only: every form and input, the whole FPU state (control,
//   status and tag words, all eight registers), the memory operand, EFLAGS and AX bit
//   for bit, which holds x86lab to the choices Intel processors make where the SDM
//   leaves one open.
// The FPU pointers are never compared. Each test prints its case counts (LastTest.log).
// The transcendental instructions are checked to 1 ulp in x87_transcendental_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <ostream>
#include <set>
#include <string>

#include "x87_host.h"

namespace x86lab::x87_testing {
namespace {

enum class Source : u8 {
  None, Float32, Float64, Float80, Int16, Int32, Int64, Bcd, ControlWord,
  Environment14, Environment28, State94, State108, Store,
};

struct Form {
  const char* name;
  std::vector<u8> bytes;
  Source source = Source::None;
  unsigned stored_environment = 0;  // FNSTENV/FNSAVE: the environment bytes stored
};

// ModRM for [EBX] (mod 0, rm 3) with ModRM.reg = `reg`.
u8 memory_modrm(unsigned reg) { return static_cast<u8>(reg << 3 | 3); }
u8 register_modrm(unsigned reg, unsigned i) { return static_cast<u8>(0xC0 | reg << 3 | i); }

void add_memory(std::vector<Form>& forms, const char* name, u8 opcode, unsigned reg, Source source,
                unsigned stored = 0, bool operand16 = false) {
  Form f{name, {}, source, stored};
  if (operand16) f.bytes.push_back(0x66);
  f.bytes.push_back(opcode);
  f.bytes.push_back(memory_modrm(reg));
  forms.push_back(f);
}
void add_registers(std::vector<Form>& forms, const char* name, u8 opcode, unsigned reg) {
  for (unsigned i = 0; i < 8; ++i) forms.push_back({name, {opcode, register_modrm(reg, i)}});
}
void add_fixed(std::vector<Form>& forms, const char* name, u8 opcode, u8 modrm) {
  forms.push_back({name, {opcode, modrm}});
}

// A memory operand type: its name in the SDM's notation, the escape opcode that takes
// it and the random source for it.
struct Operand {
  const char* name;
  u8 opcode;
  Source source;
};
// "<mnemonic> <operand>", kept for the whole run (Form names are plain pointers).
const char* named(const char* mnemonic, const Operand& o) {
  static std::deque<std::string> names;
  return names.emplace_back(std::string(mnemonic) + " " + o.name).c_str();
}

std::vector<Form> load_store_forms() {
  std::vector<Form> f;
  add_memory(f, "FLD m32fp", 0xD9, 0, Source::Float32);
  add_memory(f, "FST m32fp", 0xD9, 2, Source::Store);
  add_memory(f, "FSTP m32fp", 0xD9, 3, Source::Store);
  add_memory(f, "FLD m64fp", 0xDD, 0, Source::Float64);
  add_memory(f, "FST m64fp", 0xDD, 2, Source::Store);
  add_memory(f, "FSTP m64fp", 0xDD, 3, Source::Store);
  add_memory(f, "FLD m80fp", 0xDB, 5, Source::Float80);
  add_memory(f, "FSTP m80fp", 0xDB, 7, Source::Store);
  add_memory(f, "FILD m16int", 0xDF, 0, Source::Int16);
  add_memory(f, "FILD m32int", 0xDB, 0, Source::Int32);
  add_memory(f, "FILD m64int", 0xDF, 5, Source::Int64);
  add_memory(f, "FIST m16int", 0xDF, 2, Source::Store);
  add_memory(f, "FISTP m16int", 0xDF, 3, Source::Store);
  add_memory(f, "FIST m32int", 0xDB, 2, Source::Store);
  add_memory(f, "FISTP m32int", 0xDB, 3, Source::Store);
  add_memory(f, "FISTP m64int", 0xDF, 7, Source::Store);
  add_memory(f, "FBLD", 0xDF, 4, Source::Bcd);
  add_memory(f, "FBSTP", 0xDF, 6, Source::Store);
  add_registers(f, "FLD ST(i)", 0xD9, 0);
  add_registers(f, "FXCH", 0xD9, 1);
  add_registers(f, "FSTPNCE (D9 D8+i)", 0xD9, 3);
  add_registers(f, "FXCH (DD C8+i)", 0xDD, 1);
  add_registers(f, "FST ST(i)", 0xDD, 2);
  add_registers(f, "FSTP ST(i)", 0xDD, 3);
  add_registers(f, "FXCH (DF C8+i)", 0xDF, 1);
  add_registers(f, "FSTP (DF D0+i)", 0xDF, 2);
  add_registers(f, "FSTP (DF D8+i)", 0xDF, 3);
  const char* fcmov[] = {"FCMOVB", "FCMOVE", "FCMOVBE", "FCMOVU", "FCMOVNB", "FCMOVNE", "FCMOVNBE", "FCMOVNU"};
  for (unsigned k = 0; k < 8; ++k) add_registers(f, fcmov[k], k < 4 ? 0xDA : 0xDB, k % 4);
  const char* constants[] = {"FLD1", "FLDL2T", "FLDL2E", "FLDPI", "FLDLG2", "FLDLN2", "FLDZ"};
  for (unsigned k = 0; k < 7; ++k) add_fixed(f, constants[k], 0xD9, static_cast<u8>(0xE8 + k));
  return f;
}

std::vector<Form> arithmetic_forms() {
  std::vector<Form> f;
  const char* names[] = {"FADD", "FMUL", nullptr, nullptr, "FSUB", "FSUBR", "FDIV", "FDIVR"};
  const char* integer_names[] = {"FIADD", "FIMUL", nullptr, nullptr, "FISUB", "FISUBR", "FIDIV", "FIDIVR"};
  for (unsigned reg = 0; reg < 8; ++reg) {
    if (!names[reg]) continue;
    add_memory(f, names[reg], 0xD8, reg, Source::Float32);
    add_memory(f, names[reg], 0xDC, reg, Source::Float64);
    add_memory(f, integer_names[reg], 0xDA, reg, Source::Int32);
    add_memory(f, integer_names[reg], 0xDE, reg, Source::Int16);
    add_registers(f, names[reg], 0xD8, reg);
    add_registers(f, names[reg], 0xDC, reg);
    add_registers(f, names[reg], 0xDE, reg);  // the P forms
  }
  const std::pair<const char*, u8> d9[] = {{"FCHS", 0xE0},   {"FABS", 0xE1},  {"FXTRACT", 0xF4}, {"FPREM1", 0xF5},
                                           {"FPREM", 0xF8},  {"FSQRT", 0xFA}, {"FRNDINT", 0xFC}, {"FSCALE", 0xFD}};
  for (const auto& [name, modrm] : d9) add_fixed(f, name, 0xD9, modrm);
  return f;
}

std::vector<Form> compare_forms() {
  std::vector<Form> f;
  // FCOM/FCOMP (/2, /3) with m32fp and m64fp, FICOM/FICOMP with m32int and m16int.
  const Operand operands[] = {{"m32fp", 0xD8, Source::Float32}, {"m64fp", 0xDC, Source::Float64},
                              {"m32int", 0xDA, Source::Int32}, {"m16int", 0xDE, Source::Int16}};
  for (const Operand& o : operands) {
    const bool integer = o.source == Source::Int32 || o.source == Source::Int16;
    add_memory(f, named(integer ? "FICOM" : "FCOM", o), o.opcode, 2, o.source);
    add_memory(f, named(integer ? "FICOMP" : "FCOMP", o), o.opcode, 3, o.source);
  }
  add_registers(f, "FCOM ST(i)", 0xD8, 2);
  add_registers(f, "FCOMP ST(i)", 0xD8, 3);
  add_registers(f, "FCOM (DC D0+i)", 0xDC, 2);
  add_registers(f, "FCOMP (DC D8+i)", 0xDC, 3);
  add_registers(f, "FCOMP (DE D0+i)", 0xDE, 2);
  add_fixed(f, "FCOMPP", 0xDE, 0xD9);
  add_registers(f, "FUCOM", 0xDD, 4);
  add_registers(f, "FUCOMP", 0xDD, 5);
  add_fixed(f, "FUCOMPP", 0xDA, 0xE9);
  add_registers(f, "FUCOMI", 0xDB, 5);
  add_registers(f, "FCOMI", 0xDB, 6);
  add_registers(f, "FUCOMIP", 0xDF, 5);
  add_registers(f, "FCOMIP", 0xDF, 6);
  add_fixed(f, "FTST", 0xD9, 0xE4);
  add_fixed(f, "FXAM", 0xD9, 0xE5);
  return f;
}

std::vector<Form> control_forms() {
  std::vector<Form> f;
  add_fixed(f, "FNINIT", 0xDB, 0xE3);
  add_fixed(f, "FNCLEX", 0xDB, 0xE2);
  add_fixed(f, "FENI", 0xDB, 0xE0);
  add_fixed(f, "FDISI", 0xDB, 0xE1);
  add_fixed(f, "FSETPM", 0xDB, 0xE4);
  add_fixed(f, "FNOP", 0xD9, 0xD0);
  add_fixed(f, "FDECSTP", 0xD9, 0xF6);
  add_fixed(f, "FINCSTP", 0xD9, 0xF7);
  add_fixed(f, "FNSTSW AX", 0xDF, 0xE0);
  add_registers(f, "FFREE", 0xDD, 0);
  add_registers(f, "FFREEP", 0xDF, 0);
  add_memory(f, "FLDCW", 0xD9, 5, Source::ControlWord);
  add_memory(f, "FNSTCW", 0xD9, 7, Source::Store);
  add_memory(f, "FNSTSW m2byte", 0xDD, 7, Source::Store);
  add_memory(f, "FNSTENV (32-bit)", 0xD9, 6, Source::Store, 28);
  add_memory(f, "FNSTENV (16-bit)", 0xD9, 6, Source::Store, 14, true);
  add_memory(f, "FLDENV (32-bit)", 0xD9, 4, Source::Environment28);
  add_memory(f, "FLDENV (16-bit)", 0xD9, 4, Source::Environment14, 0, true);
  add_memory(f, "FNSAVE (32-bit)", 0xDD, 6, Source::Store, 28);
  add_memory(f, "FNSAVE (16-bit)", 0xDD, 6, Source::Store, 14, true);
  add_memory(f, "FRSTOR (32-bit)", 0xDD, 4, Source::State108);
  add_memory(f, "FRSTOR (16-bit)", 0xDD, 4, Source::State94, 0, true);
  return f;
}

template <class T>
void put(Memory& m, T value) {
  std::memcpy(m.data(), &value, sizeof value);
}

// The condition codes (of C0-C3) that the SDM's page for a form calls undefined after
// it, and whether the form is architectural: its results are defined by IEEE 754 and
// the SDM alone, so every x86-64 host's x87 must produce them (Scope::Architectural).
struct SdmRule {
  u16 undefined_codes;
  bool architectural;
};
SdmRule sdm_rule(const std::string& name) {
  // Intel only: opcodes the SDM's opcode map leaves reserved (aliases that Intel
  // processors execute), FENI/FDISI/FSETPM (8087/80287 instructions the SDM gives no
  // page), the instructions whose result the SDM leaves to the implementation (FPREM
  // and FPREM1 reduce by an implementation-dependent amount when the exponents differ by
  // 64 or more), and those outside IEEE 754's basic operations whose exact results were
  // only measured on Intel processors: the irrational constants (rounded from an
  // internal constant), FSCALE, FXTRACT, and FCMOVcc (whether an empty ST(i) raises
  // #IS when the condition is false is not stated).
  static const std::set<std::string> kIntelOnly = {
      "FSTPNCE (D9 D8+i)", "FXCH (DD C8+i)", "FXCH (DF C8+i)", "FSTP (DF D0+i)", "FSTP (DF D8+i)",
      "FCOM (DC D0+i)", "FCOMP (DC D8+i)", "FCOMP (DE D0+i)", "FFREEP", "FENI", "FDISI", "FSETPM",
      "FPREM", "FPREM1", "FSCALE", "FXTRACT", "FLDL2T", "FLDL2E", "FLDPI", "FLDLG2", "FLDLN2",
      "FCMOVB", "FCMOVE", "FCMOVBE", "FCMOVU", "FCMOVNB", "FCMOVNE", "FCMOVNBE", "FCMOVNU"};
  // Every condition code defined: the comparisons and FXAM set C0-C3 (FCOMI and its
  // kin leave C0, C2, C3 "not affected"); FNINIT and FNSAVE clear them; FLDENV and
  // FRSTOR load them.
  static const std::set<std::string> kAllDefined = {
      "FCOM ST(i)", "FCOMP ST(i)", "FCOMPP", "FUCOM", "FUCOMP", "FUCOMPP", "FUCOMI", "FCOMI", "FUCOMIP",
      "FCOMIP", "FTST", "FXAM", "FNINIT", "FNSAVE (32-bit)", "FNSAVE (16-bit)", "FLDENV (32-bit)",
      "FLDENV (16-bit)", "FRSTOR (32-bit)", "FRSTOR (16-bit)"};
  // C0-C3 all undefined ("The C0, C1, C2, and C3 flags are undefined").
  static const std::set<std::string> kNoneDefined = {
      "FNCLEX", "FNOP", "FFREE", "FLDCW", "FNSTCW", "FNSTSW AX", "FNSTSW m2byte", "FNSTENV (32-bit)",
      "FNSTENV (16-bit)"};
  const bool architectural = !kIntelOnly.count(name);
  if (kAllDefined.count(name) || name.starts_with("FCOM m") || name.starts_with("FCOMP m") ||
      name.starts_with("FICOM"))
    return {0, architectural};
  if (kNoneDefined.count(name)) return {fsw::kConditionCodes, architectural};
  // The rest: "C1 set ...; C0, C2, C3 undefined".
  return {static_cast<u16>(fsw::C0 | fsw::C2 | fsw::C3), architectural};
}

// A control word as FLDCW may load it. Scope::Architectural keeps to the defined
// fields: masks, precision 0, 2 or 3 (1 is reserved), rounding; bit 6 as FNINIT sets
// it, bits 7 and 13-15 (reserved) and 12 (the 8087's infinity control, which the SDM
// says is ignored) clear.
u16 random_control(Random& r, Scope scope) {
  u16 control = static_cast<u16>(r.next());
  if (scope == Scope::Intel) return control;
  control = static_cast<u16>((control & 0x0F3F) | 0x0040);
  if ((control & 0x0300) == 0x0100) control |= 0x0200;
  return control;
}

// A status word as FLDENV/FRSTOR may load it. Scope::Architectural keeps it
// consistent: SF only with IE, ES (and B, its copy) set exactly when an exception flag
// is set whose mask in `control` is clear (Vol. 1 "x87 FPU Status Register").
u16 random_status(Random& r, u16 control, Scope scope) {
  u16 status = static_cast<u16>(r.next());
  if (scope == Scope::Intel) return status;
  status &= static_cast<u16>(~(fsw::ES | 0x8000));
  if (!(status & fsw::IE)) status &= static_cast<u16>(~fsw::SF);
  if (status & ~control & 0x3F) status |= fsw::ES | 0x8000;
  return status;
}

// A random environment or state image as FLDENV/FRSTOR would read it.
void random_image(Random& r, Memory& m, x87::ImageLayout layout, bool with_registers, Scope scope) {
  FpuState s;
  for (auto& reg : s.registers) reg = random_extended(r, scope);
  s.control = random_control(r, scope);
  s.status = random_status(r, s.control, scope);
  s.tag = static_cast<u16>(r.next());
  s.fip = static_cast<u32>(r.next());
  s.fdp = static_cast<u32>(r.next());
  s.fcs = static_cast<u16>(r.next());
  s.fds = static_cast<u16>(r.next());
  s.fop = static_cast<u16>(r.next() & 0x7FF);
  std::array<u8, 108> image{};
  if (with_registers) x87::store_state(s, layout, image.data());
  else x87::store_environment(s, layout, image.data());
  std::memcpy(m.data(), image.data(), image.size());
}

void fill_source(Random& r, Memory& m, Source source, Scope scope) {
  for (auto& b : m) b = static_cast<u8>(r.next());
  switch (source) {
    case Source::Float32: put(m, random_single(r)); break;
    case Source::Float64: put(m, random_double(r)); break;
    case Source::Float80: {
      const x87::Float80 v = random_extended(r, scope);
      put(m, v.significand);
      std::memcpy(m.data() + 8, &v.sign_exponent, 2);
      break;
    }
    case Source::Int16: put(m, static_cast<i16>(random_integer(r, 16))); break;
    case Source::Int32: put(m, static_cast<i32>(random_integer(r, 32))); break;
    case Source::Int64: put(m, random_integer(r, 64)); break;
    case Source::Bcd: put(m, random_bcd(r)); break;
    case Source::ControlWord:  // random bytes for Scope::Intel
      if (scope == Scope::Architectural) put(m, random_control(r, scope));
      break;
    case Source::Environment14: random_image(r, m, x87::ImageLayout::Protected16, false, scope); break;
    case Source::Environment28: random_image(r, m, x87::ImageLayout::Protected32, false, scope); break;
    case Source::State94: random_image(r, m, x87::ImageLayout::Protected16, true, scope); break;
    case Source::State108: random_image(r, m, x87::ImageLayout::Protected32, true, scope); break;
    case Source::None:
    case Source::Store: break;
  }
}

struct Tally {
  unsigned long forms = 0;
  unsigned long cases = 0;
  unsigned long mismatches = 0;
  std::map<std::string, unsigned long> by_form;  // mismatches by form name
};

// Runs `per_mode` cases of every form in `scope` (for Scope::Architectural, only the
// architectural forms) in each of the 4 rounding modes x 3 precisions.
Tally run_forms(const std::vector<Form>& forms, unsigned per_mode, u64 seed, Scope scope) {
  HostX87 host;
  SimulatedX87 simulated;
  Random r(seed);
  Tally t;
  static constexpr u16 kPrecisions[] = {0, 2, 3};
  for (const Form& form : forms) {
    const SdmRule rule = sdm_rule(form.name);
    if (scope == Scope::Architectural && !rule.architectural) continue;
    ++t.forms;
    for (u16 rc = 0; rc < 4; ++rc) {
      for (u16 pc : kPrecisions) {
        for (unsigned n = 0; n < per_mode; ++n) {
          u16 masks = r.percent(50) ? 0x3F : static_cast<u16>(r.next() & 0x3F);
          const bool infinity_control = r.percent(50) && scope == Scope::Intel;
          const u16 control = static_cast<u16>(0x0040 | masks | (pc << 8) | (rc << 10) | (infinity_control ? 0x1000 : 0));
          Case c;
          c.bytes = form.bytes;
          c.state = random_state(r, control, scope);
          fill_source(r, c.memory, form.source, scope);
          c.eflags = static_cast<u32>(r.next());
          const Observation expected = host.run(c);
          const Observation actual = simulated.run(c);
          ++t.cases;
          const std::string diff = differences(expected, actual, form.stored_environment, scope, rule.undefined_codes);
          if (!diff.empty()) {
            ++t.mismatches;
            if (++t.by_form[form.name] <= 2) ADD_FAILURE() << form.name << ": " << describe(c) << diff;
          }
        }
      }
    }
  }
  return t;
}

const char* scope_name(Scope scope) { return scope == Scope::Intel ? "Intel scope" : "architectural scope"; }

void report(const char* what, Scope scope, const Tally& t) {
  std::printf("x87 differential, %s, %s: %lu forms, %lu cases, %lu mismatches\n", what, scope_name(scope), t.forms,
              t.cases, t.mismatches);
  for (const auto& [name, count] : t.by_form) std::printf("  %s: %lu mismatches\n", name.c_str(), count);
  ::testing::Test::RecordProperty("cases", static_cast<int>(t.cases));
  ::testing::Test::RecordProperty("mismatches", static_cast<int>(t.mismatches));
}

// Runs `forms` (run_forms) in `scope` and expects no mismatch. Scope::Intel runs on
// an Intel host only, and says so (with a count of 0) elsewhere.
void expect_host_agrees(const char* what, const std::vector<Form>& forms, unsigned per_mode, u64 seed, Scope scope) {
  if (scope == Scope::Intel && !host_is_intel()) {
    std::printf("x87 differential, %s, %s: 0 cases: the host is not an Intel processor\n", what, scope_name(scope));
    GTEST_SKIP() << "Intel scope: the host is not an Intel processor (the architectural scope runs)";
  }
  const Tally t = run_forms(forms, per_mode, seed, scope);
  report(what, scope, t);
  EXPECT_GT(t.cases, 0u);
  EXPECT_EQ(t.mismatches, 0u);
}

// One run of a family of forms in a scope; the architectural runs use other seeds than
// the Intel ones.
struct HostRun {
  const char* name;  // the test's name: scope and family
  const char* family;
  std::vector<Form> (*forms)();
  unsigned per_mode;
  u64 seed;
  Scope scope;
};
const HostRun kRuns[] = {
    {"IntelLoadStoreAndConvert", "load/store/convert", load_store_forms, 20, 1, Scope::Intel},
    {"IntelArithmetic", "arithmetic", arithmetic_forms, 20, 2, Scope::Intel},
    {"IntelComparisons", "compare", compare_forms, 20, 3, Scope::Intel},
    {"IntelControl", "control", control_forms, 40, 4, Scope::Intel},
    {"ArchitecturalLoadStoreAndConvert", "load/store/convert", load_store_forms, 20, 11, Scope::Architectural},
    {"ArchitecturalArithmetic", "arithmetic", arithmetic_forms, 20, 12, Scope::Architectural},
    {"ArchitecturalComparisons", "compare", compare_forms, 20, 13, Scope::Architectural},
    {"ArchitecturalControl", "control", control_forms, 40, 14, Scope::Architectural},
};

// GoogleTest prints a parameter in the test list (and so in ctest's names): the name.
void PrintTo(const HostRun& run, std::ostream* out) { *out << run.name; }

class HostAgreement : public ::testing::TestWithParam<HostRun> {};

TEST_P(HostAgreement, InEveryRoundingAndPrecisionMode) {
  const HostRun& run = GetParam();
  expect_host_agrees(run.family, run.forms(), run.per_mode, run.seed, run.scope);
}

INSTANTIATE_TEST_SUITE_P(X87Differential, HostAgreement, ::testing::ValuesIn(kRuns),
                         [](const ::testing::TestParamInfo<HostRun>& info) { return std::string(info.param.name); });

// The architectural comparison leaves out exactly what the SDM leaves open: the
// undefined condition codes of the form and the reserved environment halves, nothing
// else (C1, the flags, TOP, the registers, a stored environment's defined words).
TEST(X87Differential, TheArchitecturalComparisonIgnoresOnlyWhatTheSdmLeavesOpen) {
  Observation a;
  a.completed = true;
  const auto differs = [&](unsigned at, u8 bit, unsigned stored, Scope scope, u16 undefined) {
    Observation b = a;
    if (at < kImageBytes) b.state[at] ^= bit;
    else b.memory[at - kImageBytes] ^= bit;
    return !differences(a, b, stored, scope, undefined).empty();
  };
  const u16 c0c2c3 = fsw::C0 | fsw::C2 | fsw::C3;
  EXPECT_FALSE(differs(5, fsw::C0 >> 8, 0, Scope::Architectural, c0c2c3));  // C0 undefined
  EXPECT_FALSE(differs(5, fsw::C3 >> 8, 0, Scope::Architectural, c0c2c3));
  EXPECT_TRUE(differs(5, fsw::C1 >> 8, 0, Scope::Architectural, c0c2c3));   // C1 defined
  EXPECT_TRUE(differs(5, fsw::C0 >> 8, 0, Scope::Architectural, 0));        // a comparison's C0
  EXPECT_TRUE(differs(5, fsw::C0 >> 8, 0, Scope::Intel, c0c2c3));
  EXPECT_TRUE(differs(4, fsw::PE, 0, Scope::Architectural, fsw::kConditionCodes));
  EXPECT_TRUE(differs(5, 0x38, 0, Scope::Architectural, fsw::kConditionCodes));  // TOP
  EXPECT_FALSE(differs(2, 0xFF, 0, Scope::Architectural, 0));               // CW's upper half
  EXPECT_FALSE(differs(11, 0x01, 0, Scope::Architectural, 0));              // TW's upper half
  EXPECT_TRUE(differs(2, 0xFF, 0, Scope::Intel, 0));
  EXPECT_TRUE(differs(8, 0x01, 0, Scope::Architectural, 0));                // TW
  EXPECT_TRUE(differs(28, 0x01, 0, Scope::Architectural, 0));               // ST(0)
  EXPECT_FALSE(differs(kImageBytes + 6, 0x01, 28, Scope::Architectural, 0));  // stored SW's upper half
  EXPECT_TRUE(differs(kImageBytes + 4, 0x01, 28, Scope::Architectural, 0));   // stored SW
  EXPECT_TRUE(differs(kImageBytes + 6, 0x01, 28, Scope::Intel, 0));
  EXPECT_TRUE(differs(kImageBytes + 2, 0x01, 14, Scope::Architectural, 0));   // 16-bit SW: no reserved half
}

// The architectural inputs hold no pseudo-denormal or unsupported encoding; the Intel
// ones do (so the Intel scope still tests them).
TEST(X87Differential, ArchitecturalInputsAvoidImplementationSpecificEncodings) {
  Random intel(7), architectural(7);
  unsigned intel_specific = 0, architectural_specific = 0;
  for (int n = 0; n < 2000; ++n) {
    intel_specific += implementation_specific(random_extended(intel));
    architectural_specific += implementation_specific(random_extended(architectural, Scope::Architectural));
  }
  EXPECT_GT(intel_specific, 50u);
  EXPECT_EQ(architectural_specific, 0u);
  EXPECT_TRUE(implementation_specific({x87::kIntegerBit, 0}));          // pseudo-denormal
  EXPECT_TRUE(implementation_specific({0x4000000000000000ull, 0x3FFF}));  // unnormal
  EXPECT_TRUE(implementation_specific({0, 0x7FFF}));                    // pseudo-infinity
  EXPECT_FALSE(implementation_specific({1, 0}));                        // denormal
  EXPECT_FALSE(implementation_specific({0, 0x8000}));                   // -0
  EXPECT_FALSE(implementation_specific({x87::kIntegerBit, 0x7FFF}));    // infinity
}

}  // namespace
}  // namespace x86lab::x87_testing
