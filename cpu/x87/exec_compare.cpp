// x87 comparison and classification: FCOM, FCOMP, FCOMPP, FUCOM, FUCOMP, FUCOMPP,
// FICOM, FICOMP, FCOMI, FCOMIP, FUCOMI, FUCOMIP, FTST, FXAM (Intel SDM Vol. 1,
// "Comparison and Classification Instructions"; Vol. 2, each instruction's page).
#include "cpu/x87/exec_families.h"

namespace x86lab::x87 {
namespace {

// The 3-bit encoding of a comparison shared by FCOM (C3 C2 C0) and FCOMI (ZF PF CF):
// 000 greater, 001 less, 100 equal, 111 unordered; `high`, `middle` and `low` are
// the three bits.
constexpr u32 relation_bits(Relation r, u32 high, u32 middle, u32 low) {
  switch (r) {
    case Relation::Greater: return 0;
    case Relation::Less: return low;
    case Relation::Equal: return high;
    case Relation::Unordered: return high | middle | low;
  }
  return 0;
}

// FCOM-style results in C3 C2 C0; C1 = 0.
void set_condition_codes(Fpu& f, Relation r) {
  f.set_condition(fsw::kConditionCodes, static_cast<u16>(relation_bits(r, fsw::C3, fsw::C2, fsw::C0)));
}

// FCOMI-style results in ZF PF CF; OF, SF and AF are cleared. QUIRK: C1 keeps its
// value (FCOM clears it).
void set_eflags(Fpu& f, Relation r) {
  f.cpu().set_flags(relation_bits(r, flag::ZF, flag::PF, flag::CF),
                    flag::ZF | flag::PF | flag::CF | flag::OF | flag::SF | flag::AF);
}

// Compares ST(0) with `source`, writes the result with `set`, pops `kPops` times.
// QUIRK: a stack underflow or invalid operand reports "unordered" whether #I is
// masked or not (measured on Intel hardware); an unmasked #I or #D keeps the stack
// from popping.
template <bool kQuiet, unsigned kPops, class Set>
void compare_with(Fpu& f, bool source_empty, const Operand& source, Set set) {
  u8 exceptions;
  if (f.empty(0) || source_empty) {
    f.stack_underflow();
    set(f, Relation::Unordered);
    exceptions = exception::IE;
  } else {
    const Comparison c = compare(f.operand(0), source, kQuiet);
    f.raise(c.exceptions);
    set(f, c.relation);
    exceptions = c.exceptions;
  }
  if (f.stops(exceptions)) return;
  for (unsigned n = 0; n < kPops; ++n) f.pop();
}

template <class Source, unsigned kPops>
void fcom_memory(Fpu& f) {
  const Operand source = Source::read(f);
  compare_with<false, kPops>(f, false, source, set_condition_codes);
}

// FCOM/FUCOM ST(i) (kIndex = -1) or ST(1) for FCOMPP/FUCOMPP.
template <bool kQuiet, unsigned kPops, int kIndex = -1>
void fcom_register(Fpu& f) {
  const unsigned i = kIndex < 0 ? f.insn().rm : static_cast<unsigned>(kIndex);
  compare_with<kQuiet, kPops>(f, f.empty(i), f.operand(i), set_condition_codes);
}

template <bool kQuiet, unsigned kPops>
void fcomi(Fpu& f) {
  const unsigned i = f.insn().rm;
  compare_with<kQuiet, kPops>(f, f.empty(i), f.operand(i), set_eflags);
}

void ftst(Fpu& f) { compare_with<false, 0>(f, false, Operand{}, set_condition_codes); }

// FXAM: C1 = sign; C3 C2 C0 = the class (000 unsupported, 001 NaN, 010 normal, 011
// infinity, 100 zero, 101 empty, 110 denormal). No exception, even for an empty ST(0).
void fxam(Fpu& f) {
  u16 codes = f.st(0).sign() ? fsw::C1 : 0;
  if (f.empty(0)) {
    codes |= fsw::C3 | fsw::C0;
  } else {
    switch (classify(f.st(0))) {
      case Category::Unsupported: break;
      case Category::QuietNaN:
      case Category::SignalingNaN: codes |= fsw::C0; break;
      case Category::Normal: codes |= fsw::C2; break;
      case Category::Infinity: codes |= fsw::C2 | fsw::C0; break;
      case Category::Zero: codes |= fsw::C3; break;
      case Category::Denormal: codes |= fsw::C3 | fsw::C2; break;
    }
  }
  f.set_condition(fsw::kConditionCodes, codes);
}

// The rows of cpu/opcode_map.tsv whose family is x87/exec_compare (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/x87/exec_compare.inc"
};

}  // namespace

FormList compare_forms() { return kForms; }

}  // namespace x86lab::x87
