// Task switches (Intel SDM Vol. 3, "Task Management": "Task-State Segment (TSS)",
// "Task Switching", "Task Linking", Table 7-1 "Exception Conditions Checked During a
// Task Switch"; Vol. 2, "JMP", "CALL", "IRET/IRETD", "INT n" task-gate paths).
//
// 32-bit TSS (offsets in bytes)            16-bit TSS
//  00 previous task link                   00 link      0E IP     22 ES
//  04 ESP0  08 SS0  0C ESP1  10 SS1        02 SP0       10 FLAGS  24 CS
//  14 ESP2  18 SS2  1C CR3   20 EIP        04 SS0       12 AX..   26 SS
//  24 EFLAGS  28..44 EAX ECX EDX EBX       06 SP1 08 SS1   20 DI  28 DS
//       ESP EBP ESI EDI                    0A SP2 0C SS2          2A LDT
//  48 ES 4C CS 50 SS 54 DS 58 FS 5C GS
//  60 LDT  64 T (bit 0)  66 I/O map base
#include "cpu/far_transfer.h"
#include "segmentation/system_segments.h"
#include "trace/tracer.h"

namespace x86lab {
namespace {

// The dynamic and static fields a task switch loads from the new TSS.
struct TaskImage {
  u32 cr3 = 0, eip = 0, eflags = 0;
  std::array<u32, 8> gpr{};
  std::array<u16, 6> segments{};  // ES CS SS DS FS GS
  u16 ldt = 0;
  bool trap = false;  // the T bit
};

constexpr u32 kMinimumLimit32 = 0x67, kMinimumLimit16 = 0x2B;

TaskImage read_task_image(Mmu& mmu, u32 base, bool tss32) {
  auto r16 = [&](u32 offset) { return mmu.read<u16>(base + offset, AccessKind::TssRead, false); };
  auto r32 = [&](u32 offset) { return mmu.read<u32>(base + offset, AccessKind::TssRead, false); };
  TaskImage image;
  if (tss32) {
    image.cr3 = r32(0x1C);
    image.eip = r32(0x20);
    image.eflags = r32(0x24);
    for (unsigned r = 0; r < 8; ++r) image.gpr[r] = r32(0x28 + 4 * r);
    for (unsigned s = 0; s < 6; ++s) image.segments[s] = r16(0x48 + 4 * s);
    image.ldt = r16(0x60);
    image.trap = r16(0x64) & 1;
  } else {
    image.eip = r16(0x0E);
    image.eflags = r16(0x10);
    for (unsigned r = 0; r < 8; ++r) image.gpr[r] = r16(0x12 + 2 * r);
    for (unsigned s = 0; s < 4; ++s) image.segments[s] = r16(0x22 + 2 * s);  // ES CS SS DS; FS, GS stay null
    image.ldt = r16(0x2A);
  }
  return image;
}

// Saves the outgoing task's dynamic fields; CR3, LDT, T and the I/O map base are
// static fields the processor never writes.
void save_task_image(Cpu& c, u32 base, bool tss32, u32 eip, u32 eflags) {
  Mmu& mmu = c.mmu();
  auto w16 = [&](u32 offset, u32 v) { mmu.write<u16>(base + offset, static_cast<u16>(v), AccessKind::TssWrite, false); };
  auto w32 = [&](u32 offset, u32 v) { mmu.write<u32>(base + offset, v, AccessKind::TssWrite, false); };
  if (tss32) {
    w32(0x20, eip);
    w32(0x24, eflags);
    for (unsigned r = 0; r < 8; ++r) w32(0x28 + 4 * r, c.state.gpr[r]);
    for (unsigned s = 0; s < 6; ++s) w16(0x48 + 4 * s, c.state.segments[s].selector);
  } else {
    w16(0x0E, eip);
    w16(0x10, eflags);
    for (unsigned r = 0; r < 8; ++r) w16(0x12 + 2 * r, c.state.gpr[r]);
    for (unsigned s = 0; s < 4; ++s) w16(0x22 + 2 * s, c.state.segments[s].selector);
  }
}

// CS of the new task, checked with the #TS/#NP codes of Table 7-1.
void load_task_code_segment(Cpu& c, SegmentationContext& context, u16 selector_value) {
  const Selector selector{selector_value};
  if (selector.null()) throw ts(0, "new task's CS is null");
  DescriptorSlot slot = read_descriptor(context, selector, static_cast<u8>(Vector::TS));
  const Descriptor& d = slot.descriptor;
  if (!d.is_code()) throw ts(selector.error_code(), "new task's CS not a code segment");
  if (d.conforming() ? d.dpl > selector.rpl() : d.dpl != selector.rpl())
    throw ts(selector.error_code(), "new task's CS DPL does not match its RPL");
  if (!d.present) throw np(selector.error_code(), "new task's CS not present");
  ++c.counters().segment_loads[CS];
  load_code_segment(context, c.state.segments[CS], slot, selector_value, selector.rpl());
}

}  // namespace

void Cpu::switch_task(Selector selector, const DescriptorSlot& tss, TaskSwitchReason reason, u32 return_eip) {
  const Descriptor& d = tss.descriptor;
  const bool new32 = is_tss32(d);
  if (d.limit() < (new32 ? kMinimumLimit32 : kMinimumLimit16)) throw ts(selector.error_code(), "new TSS limit too small");
  const bool old32 = state.tr.cache.type == 9 || state.tr.cache.type == 11;
  if (state.tr.cache.limit < (old32 ? kMinimumLimit32 : kMinimumLimit16))
    throw ts(state.tr.selector & 0xFFFC, "current TSS limit too small");
  const bool nesting = reason == TaskSwitchReason::Call || reason == TaskSwitchReason::Interrupt;
  TaskImage image = read_task_image(mmu_, d.base, new32);
  SegmentationContext context = segmentation_context(SegmentLoadCause::TaskSwitch);

  // Before the commit point: the outgoing task's Busy bit (JMP, IRET), its saved
  // state (NT cleared in the image for IRET), the back link and the incoming Busy bit.
  const u16 old_tr = state.tr.selector;
  if (!nesting) {
    const DescriptorSlot old_slot = read_descriptor(context, Selector{static_cast<u16>(old_tr & 0xFFFC)});
    set_tss_busy(context, old_slot.linear, false);
  }
  u32 old_eflags = state.eflags | (push_rf_ ? flag::RF : 0);
  if (reason == TaskSwitchReason::Iret) old_eflags &= ~flag::NT;
  save_task_image(*this, state.tr.cache.base, old32, return_eip, old_eflags);
  if (nesting) {
    mmu_.write<u16>(d.base, old_tr, AccessKind::TssWrite, false);
    image.eflags |= flag::NT;
  }
  if (reason != TaskSwitchReason::Iret) set_tss_busy(context, tss.linear, true);
  load_task_register_cache(state.tr, selector.value, d);
  state.cr0 |= cr0::TS;
  clock_.charge(CostPart::TaskSwitch);
  emit(tracer(), events::TaskSwitch{.old_tr = old_tr, .new_tr = selector.value, .reason = static_cast<u8>(reason)});

  // Commit point: from here a fault is delivered in the new task's context.
  task_switch_committed_ = true;
  if (new32 && (state.cr0 & cr0::PG)) write_cr3(image.cr3);
  state.eip = image.eip;
  state.eflags = ((new32 ? image.eflags : (state.eflags & 0xFFFF0000u & ~flag::VM) | image.eflags) & flag::kImplemented) |
                 flag::Reserved1;
  notify_interrupt();  // the new task's IF may be 1
  // QUIRK: a 16-bit TSS holds only the low words and the SDM leaves the upper halves of
  // the general registers undefined ("not maintained"). The i386 sets them to FFFFh,
  // test386's 16-bit TSS test (ROM128, POST 22h) checks that and Bochs 2.7 passes it;
  // x86lab follows that evidence (docs/protected-mode.md; QEMU 7.2 keeps the old halves).
  for (unsigned r = 0; r < 8; ++r) state.gpr[r] = new32 ? image.gpr[r] : 0xFFFF0000u | image.gpr[r];
  for (unsigned s = 0; s < 6; ++s) load_unusable_segment(state.segments[s], image.segments[s]);
  load_unusable_segment(state.ldtr, image.ldt);
  // DR7's local enables L0-L3 are cleared on every task switch (SDM "Debug Control Register (DR7)").
  write_debug_register(7, state.dr[7] & ~0x55u);
  if (image.trap) {
    pending_debug_ |= kDr6Bt;
    attention_.raise(Attention::kDebugTrap);
  }
  attention_.raise(Attention::kCheckInterrupt);

  // Descriptors of the new task, in the spirit of Table 7-1's order (LDT, CS, SS,
  // then DS ES FS GS): #TS for an invalid selector or type, #NP (#SS for SS) when
  // not present.
  if (state.eflags & flag::VM) {
    state.cpl = 3;
    for (unsigned s = 0; s < 6; ++s) load_virtual_8086_segment(state.segments[s], image.segments[s], s == CS);
    load_ldt(context, state.ldtr, image.ldt, static_cast<u8>(Vector::TS), static_cast<u8>(Vector::TS));
    task_switch_committed_ = false;
    return;
  }
  state.cpl = Selector{image.segments[CS]}.rpl();
  context.cpl = state.cpl;
  unsigned loaded = 0;  // bit n: segment register n passed its checks
  try {
    load_ldt(context, state.ldtr, image.ldt, static_cast<u8>(Vector::TS), static_cast<u8>(Vector::TS));
    load_task_code_segment(*this, context, image.segments[CS]);
    loaded |= 1u << CS;
    ++counters_.segment_loads[SS];
    load_stack_segment(context, state.segments[SS], image.segments[SS], static_cast<u8>(Vector::TS));
    loaded |= 1u << SS;
    for (u8 s : {DS, ES, FS, GS}) {
      ++counters_.segment_loads[s];
      load_data_segment(context, state.segments[s], image.segments[s], static_cast<u8>(Vector::TS));
      loaded |= 1u << s;
    }
  } catch (const Fault&) {
    // The rest of the new task's state is loaded without checks before the fault is
    // delivered in its context (SDM "Interrupt 10 - Invalid-TSS Exception").
    for (unsigned s = 0; s < 6; ++s)
      if (!(loaded >> s & 1)) load_segment_unchecked(context, state.segments[s], image.segments[s]);
    throw;
  }
  task_switch_committed_ = false;
}

// ---- the instructions and gates that switch tasks ------------------------------

void task_transfer(Cpu& c, Selector selector, const DescriptorSlot& slot, bool is_call) {
  const Descriptor& d = slot.descriptor;
  const u8 cpl = c.state.cpl;
  Selector tss_selector = selector;
  DescriptorSlot tss = slot;
  if (static_cast<SystemType>(d.type) == SystemType::TaskGate) {
    // SDM "JMP"/"CALL": TASK-GATE.
    if (d.dpl < cpl || d.dpl < selector.rpl()) throw gp(selector.error_code(), "task gate DPL < CPL or RPL");
    if (!d.present) throw np(selector.error_code(), "task gate not present");
    tss_selector = Selector{d.gate_selector()};
    if (tss_selector.ti()) throw gp(tss_selector.error_code(), "task gate names a TSS in the LDT");
    SegmentationContext context = c.segmentation_context(SegmentLoadCause::TaskSwitch);
    tss = read_descriptor(context, tss_selector);
    if (!is_tss_type(tss.descriptor) || is_tss_busy(tss.descriptor))
      throw gp(tss_selector.error_code(), "task gate target not an available TSS");
    if (!tss.descriptor.present) throw np(tss_selector.error_code(), "TSS not present");
  } else {
    // SDM "JMP"/"CALL": TASK-STATE-SEGMENT.
    if (selector.ti() || d.dpl < cpl || d.dpl < selector.rpl() || is_tss_busy(d))
      throw gp(selector.error_code(), "TSS busy, in the LDT, or DPL < CPL or RPL");
    if (!d.present) throw np(selector.error_code(), "TSS not present");
  }
  c.switch_task(tss_selector, tss, is_call ? Cpu::TaskSwitchReason::Call : Cpu::TaskSwitchReason::Jmp, c.state.eip);
  c.check_task_entry_eip();
}

void task_return(Cpu& c) {
  // SDM "IRET": TASK-RETURN through the previous-task link of the current TSS.
  const Selector link{c.mmu().read<u16>(c.state.tr.cache.base, AccessKind::TssRead, false)};
  if (link.ti()) throw ts(link.error_code(), "back link names the LDT");
  SegmentationContext context = c.segmentation_context(SegmentLoadCause::TaskSwitch);
  const DescriptorSlot tss = read_descriptor(context, link, static_cast<u8>(Vector::TS));
  if (!is_tss_type(tss.descriptor) || !is_tss_busy(tss.descriptor)) throw ts(link.error_code(), "back link not a busy TSS");
  if (!tss.descriptor.present) throw np(link.error_code(), "back-link TSS not present");
  c.switch_task(link, tss, Cpu::TaskSwitchReason::Iret, c.state.eip);
  c.check_task_entry_eip();
}

void Cpu::check_task_entry_eip() {
  const DescriptorCache& cs = state.segments[CS].cache;
  task_switch_committed_ = true;  // the #GP belongs to the new task
  if (state.eip < cs.valid_min || state.eip > cs.valid_max) throw gp(0, "new task's EIP outside CS limit");
  task_switch_committed_ = false;
}

void Cpu::deliver_through_task_gate(const Descriptor& gate, std::optional<u32> error_code, u32 return_eip) {
  // SDM "INT n": TASK-GATE. Faults carry EXT (added by deliver()).
  const Selector selector{gate.gate_selector()};
  if (selector.ti()) throw gp(selector.error_code(), "task gate names a TSS in the LDT");
  SegmentationContext context = segmentation_context(SegmentLoadCause::TaskSwitch);
  const DescriptorSlot tss = read_descriptor(context, selector);
  if (!is_tss_type(tss.descriptor) || is_tss_busy(tss.descriptor))
    throw gp(selector.error_code(), "task gate target not an available TSS");
  if (!tss.descriptor.present) throw np(selector.error_code(), "TSS not present");
  switch_task(selector, tss, TaskSwitchReason::Interrupt, return_eip);
  task_switch_committed_ = true;
  if (error_code) {
    if (is_tss32(tss.descriptor)) push<u32>(*error_code);
    else push<u16>(static_cast<u16>(*error_code));
  }
  check_task_entry_eip();
}

}  // namespace x86lab
