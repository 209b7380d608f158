// A CPU in 32-bit protected mode for unit tests: a GDT at 2000h, an IDT at 4000h,
// TSSs at 3000h and 3100h, flat ring-0 code and data, code placed at 1000h.
#pragma once
#include "../cpu/cpu_fixture.h"
#include "segmentation/system_segments.h"

namespace x86lab::testing {

// Descriptor bytes from the SDM's fields: `access` is byte 5 (P DPL S type), `flags`
// the nibble G D/B L AVL.
constexpr u64 descriptor(u32 base, u32 limit, u8 access, u8 flags) {
  return (u64{limit & 0xFFFF}) | (u64{base & 0xFFFFFF} << 16) | (u64{access} << 40) |
         (u64{(limit >> 16) & 0xF} << 48) | (u64{flags & 0xFu} << 52) | (u64{base >> 24} << 56);
}
// A gate: `access` is byte 5 (P DPL 0 type), `count` the call gate's parameter count.
constexpr u64 gate(u16 selector, u32 offset, u8 access, u8 count = 0) {
  return (offset & 0xFFFF) | (u64{selector} << 16) | (u64{count} << 32) | (u64{access} << 40) |
         (u64{offset >> 16} << 48);
}

inline constexpr u32 kGdt = 0x2000, kIdt = 0x4000, kTssA = 0x3000, kTssB = 0x3100;
inline constexpr u16 kCode = 0x08, kData = 0x10, kCode2 = 0x18, kTssASelector = 0x20, kTssBSelector = 0x28,
                     kStack = 0x30, kTaskGate = 0x38;

struct ProtectedModeFixture : CpuFixture {
  ProtectedModeFixture() {
    put(kCode, descriptor(0, 0xFFFFF, 0x9A, 0xC));
    put(kData, descriptor(0, 0xFFFFF, 0x92, 0xC));
    put(kCode2, descriptor(0, 0xFFFFF, 0x9A, 0xC));
    put(kTssASelector, descriptor(kTssA, 0x67, 0x89, 0));
    put(kTssBSelector, descriptor(kTssB, 0x67, 0x89, 0));
    put(kStack, descriptor(0, 0xFFFFF, 0x92, 0xC));
    put(kTaskGate, gate(kTssBSelector, 0, 0x85));
    cpu.state.gdtr = {kGdt, 0x3F};
    cpu.state.idtr = {kIdt, 0x7FF};
    cpu.state.cr0 |= cr0::PE;
    SegmentationContext context = cpu.segmentation_context();
    DescriptorSlot code_slot = read_descriptor(context, Selector{kCode});
    load_code_segment(context, cpu.state.segments[CS], code_slot, kCode, 0);
    for (u8 s : {ES, SS, DS, FS, GS}) load_data_segment(context, cpu.state.segments[s], kData);
    load_task_register(context, cpu.state.tr, kTssASelector);
    cpu.state.eip = 0x1000;
    cpu.state.gpr[ESP] = 0x8000;
    // Task B: flat ring 0, EIP 1300h, EAX 1234h.
    poke32(kTssB + 0x20, 0x1300);
    poke32(kTssB + 0x24, 2);
    poke32(kTssB + 0x28, 0x1234);
    poke32(kTssB + 0x38, 0x7800);
    for (unsigned s = 0; s < 6; ++s) poke32(kTssB + 0x48 + 4 * s, s == CS ? kCode : kData);
  }
  void put(u16 selector, u64 raw) {
    for (int i = 0; i < 8; ++i) bus.poke(kGdt + (selector & ~7u) + i, static_cast<u8>(raw >> (8 * i)));
  }
  void put_idt(u8 vector, u64 raw) {
    for (int i = 0; i < 8; ++i) bus.poke(kIdt + vector * 8u + i, static_cast<u8>(raw >> (8 * i)));
  }
  // Connects `pic` as the CPU's interrupt controller and puts `gate_50h` into IDT entry
  // 50h (OneShotInterrupt's default vector): where the external-interrupt tests start.
  void connect_interrupt(OneShotInterrupt& pic, u64 gate_50h = gate(kCode, 0x1400, 0x8E)) {
    cpu.set_interrupt_controller(&pic);
    put_idt(0x50, gate_50h);
  }
  u8 access_byte(u16 selector) const { return bus.peek(kGdt + (selector & ~7u) + 5); }
  u64 locked(AccessKind kind) const { return counters.locked_by_kind[static_cast<int>(kind)]; }
};

inline constexpr u16 kUserCode = 0x43, kUserData = 0x4B;

// Protected mode with ring-3 code and data (GDT 40h, 48h) and a ring-0 stack at 9000h in
// TSS A; the code at 1000h IRETs to ring 3 at 1100h with ESP 7000h. #GP goes to a
// ring-0 handler at 1500h.
struct Ring3Fixture : ProtectedModeFixture {
  Ring3Fixture() {
    put(0x40, descriptor(0, 0xFFFFF, 0xFA, 0xC));
    put(0x48, descriptor(0, 0xFFFFF, 0xF2, 0xC));
    cpu.state.gdtr.limit = 0x4F;
    poke32(kTssA + 4, 0x9000);  // ESP0
    poke32(kTssA + 8, kData);   // SS0
    code(0x1000, {0x6A, kUserData, 0x68, 0x00, 0x70, 0x00, 0x00, 0x6A, 0x02, 0x6A, kUserCode,
                  0x68, 0x00, 0x11, 0x00, 0x00, 0xCF});
    put_idt(13, gate(kCode, 0x1500, 0x8E));
  }
  // The six instructions of the code at 1000h, one step each.
  void enter_ring3() {
    steps(6);
    ASSERT_EQ(cpu.state.cpl, 3);
    ASSERT_EQ(cpu.state.eip, 0x1100u);
  }
};

}  // namespace x86lab::testing
