// x87 control instructions: FNINIT, FNCLEX, FLDCW, FNSTCW, FNSTSW, FNSTENV, FLDENV,
// FNSAVE, FRSTOR, FFREE, FFREEP, FINCSTP, FDECSTP, FNOP, the 8087/287 leftovers
// FENI, FDISI, FSETPM, and WAIT/FWAIT (Intel SDM Vol. 1, "x87 FPU Control
// Instructions", "Waiting vs. Non-waiting Instructions"; Vol. 2, each page).
// FINIT, FCLEX, FSTCW, FSTSW, FSTENV and FSAVE are FWAIT followed by these.
#include <array>

#include "cpu/x87/environment.h"
#include "cpu/x87/exec_families.h"

namespace x86lab::x87 {
namespace {

void fninit(Fpu& f) { initialize(f.s); }
void fnclex(Fpu& f) { f.s.status &= static_cast<u16>(~(fsw::kExceptions | fsw::SF | fsw::ES | fsw::B)); }
void fldcw(Fpu& f) { f.s.control = static_cast<u16>((f.read<u16>() & fcw::kWritable) | 0x0040u); }
void fnstcw(Fpu& f) { f.write<u16>(f.s.control); }
void fnstsw(Fpu& f) { f.write<u16>(f.s.status); }
void fnstsw_ax(Fpu& f) { f.cpu().set_reg<u16>(EAX, f.s.status); }

ImageLayout layout_of(Fpu& f, bool operand_size_32) {
  return image_layout(operand_size_32, f.cpu().real_mode() || f.cpu().virtual_8086());
}

void write_image(Fpu& f, const u8* bytes, unsigned size) {
  f.check_write(size);
  for (unsigned k = 0; k < size; ++k) f.write<u8>(bytes[k], k);
}
void read_image(Fpu& f, u8* bytes, unsigned size) {
  for (unsigned k = 0; k < size; ++k) bytes[k] = f.read<u8>(k);
}

// The memory image of FNSTENV/FLDENV (the environment, kState = false) or of
// FNSAVE/FRSTOR (the whole state, kState = true) in the layout of the operand size.
template <bool kState, bool kSize32>
void store_image(Fpu& f) {
  const ImageLayout layout = layout_of(f, kSize32);
  std::array<u8, 108> image{};
  if constexpr (kState) store_state(f.s, layout, image.data());
  else store_environment(f.s, layout, image.data());
  write_image(f, image.data(), kState ? state_size(layout) : environment_size(layout));
}
template <bool kState, bool kSize32>
void load_image(Fpu& f) {
  const ImageLayout layout = layout_of(f, kSize32);
  std::array<u8, 108> image{};
  read_image(f, image.data(), kState ? state_size(layout) : environment_size(layout));
  if constexpr (kState) load_state(f.s, layout, image.data());
  else load_environment(f.s, layout, image.data());
}

// FNSTENV stores the environment, then masks every exception (which also clears
// ES and FERR#).
template <bool kSize32>
void fnstenv(Fpu& f) {
  store_image<false, kSize32>(f);
  f.s.control |= fcw::kMasks;
}
template <bool kSize32>
void fldenv(Fpu& f) {
  load_image<false, kSize32>(f);
}

// FNSAVE stores the whole state, then initializes the FPU as FNINIT does.
template <bool kSize32>
void fnsave(Fpu& f) {
  store_image<true, kSize32>(f);
  initialize(f.s);
}
template <bool kSize32>
void frstor(Fpu& f) {
  load_image<true, kSize32>(f);
}

// FFREE tags ST(i) empty and clears C1.
void ffree(Fpu& f) {
  f.free(f.insn().rm);
  f.set_c1(false);
}
// QUIRK: FFREEP (DF C0+i) is undocumented by Intel but decodes on every P6: FFREE, then pop.
void ffreep(Fpu& f) {
  ffree(f);
  f.pop();
}
void fincstp(Fpu& f) {
  f.s.set_top(f.s.top() + 1);
  f.set_c1(false);
}
void fdecstp(Fpu& f) {
  f.s.set_top(f.s.top() - 1);
  f.set_c1(false);
}
// FNOP, and FENI/FDISI (8087) and FSETPM (287), which the 387 and later ignore.
void nothing(Fpu&) {}

// WAIT/FWAIT is no escape opcode: #NM only when CR0.MP and CR0.TS are both set (CR0.EM
// does not matter), then the pending-exception check.
void fwait(Cpu& c, const Instruction&) {
  if ((c.state.cr0 & cr0::MP) && (c.state.cr0 & cr0::TS)) {
    throw Fault{static_cast<u8>(Vector::NM), std::nullopt, "WAIT with CR0.MP and CR0.TS set"};
  }
  x87_check_pending(c);
}

// The rows of cpu/opcode_map.tsv whose family is x87/exec_control (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/x87/exec_control.inc"
};

}  // namespace

FormList control_forms() { return kForms; }

}  // namespace x86lab::x87
