// x87 environment and state images (Intel SDM Vol. 1, "Saving the x87 FPU's State
// with FSTENV/FNSTENV and FSAVE/FNSAVE"; Vol. 2, "FLDENV", "FRSTOR", "FINIT/FNINIT").
//
// 32-bit protected mode (28 bytes)        32-bit real-address mode (28 bytes)
//   0  FFFF | FCW                          0  FFFF | FCW
//   4  FFFF | FSW                          4  FFFF | FSW
//   8  FFFF | FTW                          8  FFFF | FTW
//  12  FIP                                12  FFFF | FIP[15:0]
//  16  0 | FOP[10:0] | FCS                16  0 | FIP[31:16] << 12 | 0 | FOP[10:0]
//  20  FDP                                20  FFFF | FDP[15:0]
//  24  FFFF | FDS                         24  0 | FDP[31:16] << 12
// 16-bit layouts (14 bytes): FCW FSW FTW, then protected: FIP FCS FDP FDS; real:
// FIP[15:0], FIP[19:16] << 12 | FOP, FDP[15:0], FDP[19:16] << 12.
#include "cpu/x87/environment.h"

#include "cpu/x87/fpu.h"

namespace x86lab::x87 {
namespace {

void put16(u8* p, u32 v) {
  p[0] = static_cast<u8>(v);
  p[1] = static_cast<u8>(v >> 8);
}
void put32(u8* p, u32 v) {
  put16(p, v);
  put16(p + 2, v >> 16);
}
u16 get16(const u8* p) { return static_cast<u16>(p[0] | (p[1] << 8)); }
u32 get32(const u8* p) { return get16(p) | (u32{get16(p + 2)} << 16); }

bool is32(ImageLayout layout) { return layout == ImageLayout::Real32 || layout == ImageLayout::Protected32; }

}  // namespace

void store_environment(const FpuState& s, ImageLayout layout, u8* out) {
  const u32 fop = s.fop & 0x7FF;
  const u32 linear_ip = (u32{s.fcs} << 4) + s.fip, linear_dp = (u32{s.fds} << 4) + s.fdp;
  switch (layout) {
    case ImageLayout::Protected32:
      put32(out + 12, s.fip);
      put32(out + 16, s.fcs | (fop << 16));
      put32(out + 20, s.fdp);
      put32(out + 24, 0xFFFF0000u | s.fds);
      break;
    case ImageLayout::Real32:
      put32(out + 12, 0xFFFF0000u | (linear_ip & 0xFFFF));
      put32(out + 16, ((linear_ip >> 16) << 12) | fop);
      put32(out + 20, 0xFFFF0000u | (linear_dp & 0xFFFF));
      put32(out + 24, (linear_dp >> 16) << 12);
      break;
    case ImageLayout::Protected16:
      put16(out + 6, s.fip);
      put16(out + 8, s.fcs);
      put16(out + 10, s.fdp);
      put16(out + 12, s.fds);
      break;
    case ImageLayout::Real16:
      put16(out + 6, linear_ip);
      put16(out + 8, (((linear_ip >> 16) & 0xF) << 12) | fop);
      put16(out + 10, linear_dp);
      put16(out + 12, ((linear_dp >> 16) & 0xF) << 12);
      break;
  }
  if (is32(layout)) {
    put32(out + 0, 0xFFFF0000u | s.control);
    put32(out + 4, 0xFFFF0000u | s.status);
    put32(out + 8, 0xFFFF0000u | s.tag);
  } else {
    put16(out + 0, s.control);
    put16(out + 2, s.status);
    put16(out + 4, s.tag);
  }
}

void load_environment(FpuState& s, ImageLayout layout, const u8* in) {
  const unsigned step = is32(layout) ? 4 : 2;
  s.control = static_cast<u16>((get16(in) & fcw::kWritable) | 0x0040u);
  s.status = get16(in + step);
  const u16 tag = get16(in + 2 * step);
  for (unsigned r = 0; r < 8; ++r) {
    const bool empty = ((tag >> (2 * r)) & 3) == 3;
    s.set_tag(r, empty ? Tag::Empty : tag_for(s.registers[r]));
  }
  switch (layout) {
    case ImageLayout::Protected32:
      s.fip = get32(in + 12);
      s.fcs = get16(in + 16);
      s.fop = get16(in + 18) & 0x7FF;
      s.fdp = get32(in + 20);
      s.fds = get16(in + 24);
      break;
    case ImageLayout::Real32:
      s.fip = get16(in + 12) | ((get32(in + 16) >> 12) << 16);
      s.fop = get16(in + 16) & 0x7FF;
      s.fdp = get16(in + 20) | ((get32(in + 24) >> 12) << 16);
      s.fcs = s.fds = 0;
      break;
    case ImageLayout::Protected16:
      s.fip = get16(in + 6);
      s.fcs = get16(in + 8);
      s.fdp = get16(in + 10);
      s.fds = get16(in + 12);
      break;
    case ImageLayout::Real16:
      s.fip = get16(in + 6) | (u32{static_cast<u16>(get16(in + 8) >> 12)} << 16);
      s.fop = get16(in + 8) & 0x7FF;
      s.fdp = get16(in + 10) | (u32{static_cast<u16>(get16(in + 12) >> 12)} << 16);
      s.fcs = s.fds = 0;
      break;
  }
  sync_error_summary(s);
}

void store_state(const FpuState& s, ImageLayout layout, u8* out) {
  store_environment(s, layout, out);
  u8* registers = out + environment_size(layout);
  for (unsigned i = 0; i < 8; ++i) {
    const Float80 v = s.st(i);
    put32(registers + 10 * i, static_cast<u32>(v.significand));
    put32(registers + 10 * i + 4, static_cast<u32>(v.significand >> 32));
    put16(registers + 10 * i + 8, v.sign_exponent);
  }
}

void load_state(FpuState& s, ImageLayout layout, const u8* in) {
  // The registers first: the tags the environment loads are recomputed from them.
  const u8* registers = in + environment_size(layout);
  const unsigned step = is32(layout) ? 4 : 2;
  const unsigned top = (get16(in + step) >> fsw::kTopShift) & 7;
  for (unsigned i = 0; i < 8; ++i) {
    const u64 significand = get32(registers + 10 * i) | (u64{get32(registers + 10 * i + 4)} << 32);
    s.registers[(top + i) & 7] = {significand, get16(registers + 10 * i + 8)};
  }
  load_environment(s, layout, in);
}

void initialize(FpuState& s) {
  s.control = fcw::kAfterInit;
  s.status = 0;
  s.tag = 0xFFFF;
  s.fip = s.fdp = 0;
  s.fcs = s.fds = s.fop = 0;
}

}  // namespace x86lab::x87
