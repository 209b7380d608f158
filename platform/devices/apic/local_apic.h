// The local APIC of a P6-family processor: its 4-KiB register page, interrupt
// acceptance and priorities, the ICR, the LVT with the APIC timer, and the virtual
// wire to the 8259A pair (Intel SDM Vol. 3, "Advanced Programmable Interrupt Controller (APIC)").
//
// Usage: the Machine builds one per CPU, attaches it to the ApicBus (apic_bus.attach)
// and makes it the CPU's interrupt controller and IA32_APIC_BASE register
// (Cpu::set_interrupt_controller, Cpu::set_apic_base_register). Messages from an I/O
// APIC reach it through ApicBus::send -> accept(). The 8259A pair's INTR output is its
// LINT0 input: while the APIC is disabled, or LINT0 is unmasked in ExtINT mode, the
// CPU's INTA goes to the PicPair as without an APIC.
#pragma once
#include <array>
#include <optional>

#include "cpu/cpu.h"
#include "mmu/bus_device.h"
#include "mmu/physical_bus.h"
#include "platform/clock.h"
#include "platform/devices/apic/apic_bus.h"
#include "trace/counters.h"
#include "trace/state_archive.h"
#include "trace/tracer.h"

namespace x86lab {

// Register offsets in the page, in the SDM's table "Local APIC Register Address Map"
// (P6 family: no thermal sensor LVT at 330h).
namespace lapic {
inline constexpr u32 kId = 0x020, kVersion = 0x030, kTpr = 0x080, kApr = 0x090, kPpr = 0x0A0, kEoi = 0x0B0,
                     kLdr = 0x0D0, kDfr = 0x0E0, kSvr = 0x0F0, kIsr = 0x100, kTmr = 0x180, kIrr = 0x200,
                     kEsr = 0x280, kIcrLow = 0x300, kIcrHigh = 0x310, kLvtTimer = 0x320,
                     kLvtPerformanceCounter = 0x340, kLvtLint0 = 0x350, kLvtLint1 = 0x360, kLvtError = 0x370,
                     kInitialCount = 0x380, kCurrentCount = 0x390, kDivideConfiguration = 0x3E0;

// LVT entry bits (SDM "Local Vector Table"):
//  31     17 16  15  14  13  12  11 10  8 7      0
//  reserved |T |M |TM |RI|PP |DS|  |mode | vector
// T: timer mode (1 periodic), M: mask, TM: trigger mode (1 level, LINT only), RI:
// remote IRR (LINT, read-only), PP: pin polarity (LINT), DS: delivery status (read-only).
inline constexpr u32 kLvtMask = 1u << 16, kLvtLevel = 1u << 15, kLvtRemoteIrr = 1u << 14,
                     kLvtDeliveryStatus = 1u << 12, kLvtPeriodic = 1u << 17;
// ESR bits of the P6 family (SDM "Error Handling"; bit 4, redirectable IPI, is Pentium 4 only).
inline constexpr u32 kSendChecksumError = 1u << 0, kReceiveChecksumError = 1u << 1, kSendAcceptError = 1u << 2,
                     kReceiveAcceptError = 1u << 3, kSendIllegalVector = 1u << 5,
                     kReceiveIllegalVector = 1u << 6, kIllegalRegisterAddress = 1u << 7;
// IA32_APIC_BASE (MSR 1Bh) bits: BSP flag, APIC global enable, base address 31:12.
inline constexpr u64 kApicBaseBsp = 1u << 8, kApicBaseEnable = 1u << 11, kApicBaseAddress = 0xFFFFF000u;
inline constexpr u32 kDefaultBase = 0xFEE00000u;
// SDM "Local APIC Version Register": integrated APIC of the P6 family, version 1xH
// (11H as the Pentium Pro/II/III report it), 5 LVT entries so Max LVT Entry = 4.
inline constexpr u32 kP6Version = 0x00040011u;
// The same with version 14h, the first xAPIC (Pentium 4; SDM "Local APIC Version
// Register"): the version an OS reads to tell a separate I/O APIC bus (see
// LocalApicConfig::xapic_version).
inline constexpr u32 kXapicVersion = 0x00040014u;
}  // namespace lapic

struct LocalApicConfig {
  u8 apic_id = 0;          // initial APIC ID (0-15; the BSP's is 0)
  bool bsp = true;         // IA32_APIC_BASE's BSP flag
  u64 bus_hz = 100'000'000;  // the timer's input: the processor's bus clock (CpuProfile::bus_hz)
  // DEVIATION (opt-in, for PC BIOSes): LINT0 resets to ExtINT, unmasked (700h), so the
  // 8259A keeps reaching the CPU once a BIOS software-enables the APIC without setting
  // up the virtual wire, as the Bochs BIOS's 32-bit POST does. QEMU's PC resets the
  // BSP's LINT0 this way; the SDM's reset value is masked (10000h).
  bool lint0_ext_int_at_reset = false;
  // DEVIATION (opt-in, for SeaBIOS): the version register reads 14h (kXapicVersion), as
  // QEMU's APIC does for every CPU model. Without QEMU's fw_cfg SeaBIOS builds no ACPI
  // tables, and its MP table gives the I/O APIC the BSP's APIC ID 0. The P6's APICs
  // share one bus and need distinct IDs (MP Specification 1.4, 4.3.3 "I/O APIC
  // Entries"), so with version 11h Linux moves the I/O APIC to ID 1 and then matches
  // none of the table's interrupt entries (destination 0): IRQ 0 has no route and
  // setup_IO_APIC oopses. An xAPIC's I/O APICs have their own ID space, and the table
  // is valid as it stands.
  bool xapic_version = false;
};

class LocalApic : public ApicBusAgent, public InterruptController, public BusDevice, public ApicBaseRegister {
 public:
  // `pic`: the 8259A pair on LINT0 (the CPU's INTR before the APIC existed). Maps the
  // register page at FEE00000h on `bus` (the power-up IA32_APIC_BASE, FEE00900h for the BSP).
  LocalApic(Cpu& cpu, PhysicalBus& bus, ApicBus& apic_bus, VirtualClock& clock, InterruptController& pic,
            const LocalApicConfig& config);
  LocalApic(const LocalApic&) = delete;
  LocalApic& operator=(const LocalApic&) = delete;

  // Power-up state (SDM "Local APIC State After Power-Up or Reset"): IRR, ISR, TMR,
  // ICR, LDR, TPR, timer counts and divide 0; DFR FFFFFFFFh; LVT entries masked;
  // SVR FFh (software-disabled); IA32_APIC_BASE FEE00000h | BSP | enable.
  void reset();

  // ---- ApicBusAgent ----
  u8 apic_id() const override { return static_cast<u8>(id_ >> 24 & 0x0F); }
  bool is_destination(const ApicMessage& message) const override;
  u8 arbitration_priority() const override;
  void accept(const ApicMessage& message) override;

  // ---- InterruptController (the CPU's side) ----
  // Whether the CPU would receive an interrupt now (before its IF check): the
  // 8259A's INTR through the virtual wire, or an IRR vector whose priority class is
  // above the PPR's (SDM "Interrupt, Task, and Processor Priority").
  bool interrupt_pending() const override;
  // The INTA cycle: the 8259A's vector through the virtual wire, or the highest IRR
  // vector (IRR -> ISR), or the spurious vector (SVR bits 7:0, ISR untouched) when no
  // vector may be dispatched any more (SDM "Spurious Interrupt").
  u8 acknowledge() override;

  // ---- BusDevice (the register page; `address` is the offset 0-FFFh) ----
  // 32-bit accesses at 16-byte-aligned offsets are the SDM's only defined form. Our
  // choice for others: a read of 1 or 2 bytes returns those bytes of the aligned
  // register, bytes 4-15 of each 16-byte slot read 0, and any write that is not a
  // 32-bit write at an aligned offset is dropped. Reserved offsets read 0, drop writes
  // and set ESR bit 7 (illegal register address).
  u32 read(u32 address, unsigned size) override;
  void write(u32 address, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "local-apic"; }

  // ---- ApicBaseRegister (IA32_APIC_BASE, MSR 1Bh) ----
  u64 apic_base() const override { return apic_base_; }
  // Reserved bits (63:32, 10:9, 7:0) -> false (#GP(0); DEVIATION: bits 35:32 of a
  // 36-bit P6 are reserved here, x86lab's physical space being 32-bit); the BSP flag
  // ignores writes. Moving the base moves the register page; clearing bit 11 unmaps it
  // (the page is then what lies beneath: RAM, ROM or open bus) and the APIC leaves the
  // bus; on the P6 only a reset sets bit 11 again (SDM "Enabling or Disabling the
  // Local APIC"): writes of 1 then keep it 0.
  bool write_apic_base(u64 value) override;

  // Globally enabled (IA32_APIC_BASE bit 11) and software-enabled (SVR bit 8).
  bool enabled() const { return (apic_base_ & lapic::kApicBaseEnable) && (svr_ & 0x100); }
  // Whether something other than the 8259A can still interrupt the CPU: for the
  // Machine's halt check (an enabled APIC takes I/O APIC messages and its own timer).
  bool may_interrupt() const { return enabled(); }
  // The LINT1 pin (NMI on a PC): a rising edge delivers the LVT LINT1 entry (NMI mode:
  // the CPU's NMI); with the APIC disabled it is the NMI pin itself.
  void set_lint1(bool level);

  // Register values as software reads them (tests and inspectors; no side effects).
  u32 register_value(u32 offset) const;
  // The 256-bit IRR, ISR or TMR bit of `vector`.
  bool irr(u8 vector) const { return test(irr_, vector); }
  bool isr(u8 vector) const { return test(isr_, vector); }
  bool tmr(u8 vector) const { return test(tmr_, vector); }
  // Current count of the timer now (SDM "APIC Timer").
  u32 current_count() const;
  // The virtual-clock cycle (VirtualClock::now's unit) of the timer's next expiry, or
  // none while it is stopped (initial count 0, a one-shot that has fired). A due
  // expiry whose clock event has not run yet gives a cycle at or before now. No side
  // effects (inspectors).
  std::optional<u64> timer_expiry_cycle() const;

  // Saves, checks or loads the whole APIC (a machine snapshot); a load remaps the page
  // and re-derives nothing else (the timer event's deadline is the clock's).
  void transfer_state(StateArchive& archive);

 private:
  using Bits256 = std::array<u32, 8>;
  static bool test(const Bits256& bits, u8 v) { return bits[v >> 5] >> (v & 31) & 1; }
  static void set(Bits256& bits, u8 v, bool on) {
    if (on) bits[v >> 5] |= 1u << (v & 31);
    else bits[v >> 5] &= ~(1u << (v & 31));
  }
  // The highest set vector, or -1.
  static int highest(const Bits256& bits);

  u8 processor_priority() const;
  // The IRR vector the CPU would be given, or -1.
  int deliverable_vector() const;
  // LINT0 carries the 8259A's INTR to the CPU: APIC disabled, or LINT0 unmasked ExtINT.
  bool virtual_wire() const;
  // A fixed interrupt into IRR (TMR = level); vectors 0-15 set `illegal_error` instead.
  void request(u8 vector, bool level, u32 illegal_error);
  // An LVT entry fires (timer, LINT1, error).
  void deliver_local(u32 lvt, bool level, events::ApicSource source);
  void signal_error(u32 bits);
  void end_of_interrupt();
  void send_ipi();
  void write_lvt(unsigned index, u32 value);
  void write_svr(u32 value);
  void map_page();
  void unmap_page();

  // Timer (local_apic_timer.cpp): counting in divided bus-clock ticks from
  // timer_start_tick_ (a bus-clock tick), the count being timer_base_ there.
  u32 divisor() const;
  u64 timer_elapsed() const;  // divided ticks since timer_start_tick_
  void restart_timer(u32 count);
  void schedule_timer();
  void timer_event();

  Cpu& cpu_;
  PhysicalBus& bus_;
  ApicBus& apic_bus_;
  VirtualClock& clock_;
  InterruptController& pic_;
  LocalApicConfig config_;
  VirtualClock::EventId timer_event_id_;

  u64 apic_base_ = 0;
  u32 mapped_base_ = 0;       // where the page is mapped
  bool page_mapped_ = false;
  u32 id_ = 0, tpr_ = 0, ldr_ = 0, dfr_ = 0xFFFFFFFFu, svr_ = 0xFF;
  Bits256 isr_{}, tmr_{}, irr_{};
  u32 esr_ = 0, errors_pending_ = 0;  // readable ESR, errors since the last ESR write
  u32 icr_low_ = 0, icr_high_ = 0;
  // LVT: timer, performance counter, LINT0, LINT1, error.
  std::array<u32, 5> lvt_{};
  bool ext_int_request_ = false;  // an ExtINT message: the next INTA goes to the 8259A
  bool lint1_ = false;
  u32 initial_count_ = 0, divide_configuration_ = 0;
  u64 timer_start_tick_ = 0;   // bus-clock tick at which timer_base_ was loaded
  u32 timer_base_ = 0;         // the count at timer_start_tick_
  u64 timer_next_ = ~u64{0};   // divided ticks (since the start) of the next expiry, or none
};

}  // namespace x86lab
