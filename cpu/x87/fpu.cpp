// The frame around every x87 instruction and its register-stack and memory helpers
// (Intel SDM Vol. 1, "x87 FPU Floating-Point Exception Handling", "Waiting vs.
// Non-waiting Instructions"; Vol. 3, "Interrupt 7—Device Not Available Exception",
// "Interrupt 16—x87 FPU Floating-Point Error").
#include "cpu/x87/fpu.h"

namespace x86lab::x87 {

void Fpu::set_st(unsigned i, Float80 v) {
  const unsigned r = s.physical(i);
  s.registers[r] = v;
  s.set_tag(r, tag_for(v));
}

void Fpu::push(Float80 v) {
  s.set_top(s.top() - 1);
  set_st(0, v);
}

void Fpu::pop() {
  s.set_tag(s.physical(0), Tag::Empty);
  s.set_top(s.top() + 1);
}

void Fpu::free(unsigned i) { s.set_tag(s.physical(i), Tag::Empty); }

bool Fpu::stack_underflow() {
  raise(exception::IE | fsw::SF);
  set_c1(false);
  return masked(exception::IE);
}

bool Fpu::stack_overflow() {
  raise(exception::IE | fsw::SF);
  set_c1(true);
  return masked(exception::IE);
}

bool Fpu::store(unsigned i, const Result& r) {
  raise(r.exceptions);
  set_c1(r.rounded_up);
  if (stops(r.exceptions)) return false;
  set_st(i, r.value);
  return true;
}

u32 Fpu::offset(u32 at) const {
  const u32 ea = cpu_.effective_address(insn_) + at;
  return insn_.address_size_32 ? ea : ea & 0xFFFF;
}

Float80 Fpu::read_float80(u32 at) {
  const u64 significand = read<u64>(at);
  return {significand, read<u16>(at + 8)};
}

void Fpu::write_float80(Float80 v, u32 at) {
  check_write(at + 10);
  write<u64>(v.significand, at);
  write<u16>(v.sign_exponent, at + 8);
}

void sync_error_summary(FpuState& s) {
  const bool pending = (s.status & ~s.control & fsw::kExceptions) != 0;
  s.status = static_cast<u16>(pending ? s.status | fsw::ES | fsw::B : s.status & ~(fsw::ES | fsw::B));
}

namespace {
bool exception_pending(const FpuState& s) { return (s.status & ~s.control & fsw::kExceptions) != 0; }
}  // namespace

bool x87_check_pending(Cpu& c) {
  if (!exception_pending(c.state.fpu)) return true;
  if (c.state.cr0 & cr0::NE) throw Fault{static_cast<u8>(Vector::MF), std::nullopt, "pending unmasked x87 exception"};
  const X87ErrorPins& pins = c.x87_error_pins();
  if (pins.ignne && pins.ignne()) return true;
  // FERR# is already asserted (since the exception was flagged): wait for its interrupt.
  c.state.eip = c.instruction_eip();
  c.halt();
  return false;
}

bool x87_begin(Cpu& c, Waits waits) {
  if (c.state.cr0 & (cr0::EM | cr0::TS)) {
    throw Fault{static_cast<u8>(Vector::NM), std::nullopt, "x87 instruction with CR0.EM or CR0.TS set"};
  }
  return waits == Waits::No || x87_check_pending(c);
}

void x87_end(Cpu& c, const Instruction& i, Pointers pointers, bool es_before) {
  FpuState& s = c.state.fpu;
  sync_error_summary(s);
  if (pointers == Pointers::Record) {
    s.fip = c.instruction_eip();
    s.fcs = c.state.segments[CS].selector;
    s.fop = static_cast<u16>(((i.opcode & 7u) << 8) | (u32{i.mod} << 6) | (u32{i.reg} << 3) | i.rm);
    if (i.is_memory()) {
      const u32 ea = c.effective_address(i);
      s.fdp = ea;
      s.fds = c.state.segments[i.segment].selector;
    }
  }
  const bool es_after = (s.status & fsw::ES) != 0;
  if (es_after != es_before) {
    if (const X87ErrorPins& pins = c.x87_error_pins(); pins.ferr) pins.ferr(es_after);
  }
}

}  // namespace x86lab::x87
