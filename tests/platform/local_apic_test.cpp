// The P6 local APIC against the Intel SDM Vol. 3, "Advanced Programmable Interrupt
// Controller (APIC)": register reset values, priorities (TPR, PPR, APR), acceptance
// and dispatch with IRR/ISR/TMR, EOI, ESR, ICR, the timer, SVR, IA32_APIC_BASE, the
// virtual wire to the 8259A pair, and the machine's halt check with the APIC in use.
#include <gtest/gtest.h>

#include <vector>

#include "platform/machine.h"
#include "platform/snapshot/machine_state.h"

namespace x86lab {
namespace {

using namespace lapic;

struct EoiRecorder : EoiListener {
  std::vector<u8> vectors;
  void end_of_interrupt(u8 vector) override { vectors.push_back(vector); }
};

MachineConfig small_config() {
  MachineConfig config;
  config.memory_mib = 4;
  config.max_instructions = 100'000;
  return config;
}

struct LocalApicTest : ::testing::Test {
  Machine machine{small_config()};
  LocalApic& apic = *machine.local_apic;
  u32 base = kDefaultBase;

  u32 reg(u32 offset) { return machine.bus.read<u32>(base + offset, AccessKind::Data); }
  void set(u32 offset, u32 value) { machine.bus.write<u32>(base + offset, value, AccessKind::Data); }
  void enable(u8 spurious = 0xFF) { set(kSvr, 0x100u | spurious); }
  // A fixed interrupt from an I/O APIC to APIC ID 0 (physical).
  void fixed(u8 vector, bool level = false) {
    machine.devices->apic_bus.send(ApicMessage{.vector = vector, .destination = 0, .level_triggered = level});
  }
  // The CPU's INTR/INTA: the vector it would be given, or -1 when nothing is pending.
  int take() { return apic.interrupt_pending() ? apic.acknowledge() : -1; }
  // The PC/AT 8259A initialisation: master base 08h, slave 70h.
  void initialise_pic() {
    PicPair& pic = machine.devices->pic;
    const std::initializer_list<std::pair<u32, u32>> writes = {{0x20, 0x11}, {0x21, 0x08}, {0x21, 0x04}, {0x21, 0x01},
                                                               {0xA0, 0x11}, {0xA1, 0x70}, {0xA1, 0x02}, {0xA1, 0x01}};
    for (const auto& [port, value] : writes) pic.write(port, 1, value);
  }
  // Timer input ticks: 500 MHz CPU, 100 MHz p3 bus: 5 cycles per bus-clock tick.
  static constexpr u64 kCyclesPerBusTick = 5;
  void advance(u64 cycles) {
    machine.clock.advance_to(machine.clock.now() + cycles);
    machine.clock.run_due();
  }
};

// ---- reset and identification ----

TEST_F(LocalApicTest, PowerUpValuesAreTheSdms) {
  EXPECT_EQ(apic.apic_base(), 0xFEE00900u);  // base FEE00000h, enable, BSP
  EXPECT_EQ(reg(kId), 0u);
  EXPECT_EQ(reg(kVersion), 0x00040011u);  // integrated APIC 11h, Max LVT Entry 4 (five entries)
  EXPECT_EQ(reg(kTpr), 0u);
  EXPECT_EQ(reg(kApr), 0u);
  EXPECT_EQ(reg(kPpr), 0u);
  EXPECT_EQ(reg(kLdr), 0u);
  EXPECT_EQ(reg(kDfr), 0xFFFFFFFFu);
  EXPECT_EQ(reg(kSvr), 0xFFu);
  for (u32 i = 0; i < 8; ++i) {
    EXPECT_EQ(reg(kIsr + 16 * i), 0u);
    EXPECT_EQ(reg(kTmr + 16 * i), 0u);
    EXPECT_EQ(reg(kIrr + 16 * i), 0u);
  }
  EXPECT_EQ(reg(kEsr), 0u);
  EXPECT_EQ(reg(kIcrLow), 0u);
  EXPECT_EQ(reg(kIcrHigh), 0u);
  for (u32 lvt : {kLvtTimer, kLvtPerformanceCounter, kLvtLint0, kLvtLint1, kLvtError}) EXPECT_EQ(reg(lvt), 0x00010000u);
  EXPECT_EQ(reg(kInitialCount), 0u);
  EXPECT_EQ(reg(kCurrentCount), 0u);
  EXPECT_EQ(reg(kDivideConfiguration), 0u);
}

TEST_F(LocalApicTest, IdRegisterHoldsTheApicIdInBits27To24) {
  set(kId, 0xFFFFFFFFu);
  EXPECT_EQ(reg(kId), 0x0F000000u);
  EXPECT_EQ(apic.apic_id(), 15);
}

TEST_F(LocalApicTest, SpuriousVectorBits3To0AreHardwiredToOne) {
  set(kSvr, 0x1E0);
  EXPECT_EQ(reg(kSvr), 0x1EFu);
}

TEST_F(LocalApicTest, ByteReadsReturnBytesOfTheRegisterAndNarrowWritesAreDropped) {
  set(kTpr, 0x5A);
  EXPECT_EQ(machine.bus.read<u8>(base + kTpr, AccessKind::Data), 0x5A);
  EXPECT_EQ(machine.bus.read<u8>(base + kVersion + 2, AccessKind::Data), 0x04);
  EXPECT_EQ(machine.bus.read<u32>(base + kTpr + 4, AccessKind::Data), 0u);
  machine.bus.write<u8>(base + kTpr, 0x11, AccessKind::Data);
  EXPECT_EQ(reg(kTpr), 0x5Au);
}

// ---- priorities ----

TEST_F(LocalApicTest, PprIsTprUnlessAnInServiceClassIsHigher) {
  enable();
  set(kTpr, 0x35);
  EXPECT_EQ(reg(kPpr), 0x35u);
  fixed(0x51);
  EXPECT_EQ(take(), 0x51);
  EXPECT_EQ(reg(kPpr), 0x50u);  // ISRV class 5 > TPR class 3
  set(kTpr, 0x65);
  EXPECT_EQ(reg(kPpr), 0x65u);
  set(kTpr, 0x5F);  // same class as ISRV: TPR
  EXPECT_EQ(reg(kPpr), 0x5Fu);
}

TEST_F(LocalApicTest, IrrVectorIsDispatchedOnlyWhenItsClassExceedsThePprClass) {
  enable();
  set(kTpr, 0x50);
  fixed(0x5F);
  EXPECT_TRUE(apic.irr(0x5F));
  EXPECT_FALSE(apic.interrupt_pending());
  set(kTpr, 0x4F);
  EXPECT_EQ(take(), 0x5F);
  EXPECT_TRUE(apic.isr(0x5F));
  EXPECT_FALSE(apic.irr(0x5F));
}

TEST_F(LocalApicTest, ArbitrationPriorityFollowsTheSdmFormula) {
  enable();
  set(kTpr, 0x2A);
  EXPECT_EQ(reg(kApr), 0x2Au);  // TPR class >= IRRV and > ISRV: TPR
  fixed(0x45);
  EXPECT_EQ(reg(kApr), 0x40u);  // IRRV class 4 is the largest
}

TEST_F(LocalApicTest, NestedInterruptsAreTakenInPriorityOrderAndEoiEndsTheHighest) {
  enable();
  fixed(0x40);
  fixed(0x80);
  EXPECT_EQ(take(), 0x80);
  EXPECT_EQ(take(), -1);  // 40h: class 4 is not above the PPR (80h)
  fixed(0x85);
  EXPECT_EQ(take(), -1);  // same class as the one in service
  fixed(0x90);
  EXPECT_EQ(take(), 0x90);
  EXPECT_TRUE(apic.isr(0x80) && apic.isr(0x90));
  set(kEoi, 0);
  EXPECT_FALSE(apic.isr(0x90));
  EXPECT_TRUE(apic.isr(0x80));
  EXPECT_EQ(take(), -1);  // 85h still waits: 80h is in service
  set(kEoi, 0);
  EXPECT_EQ(take(), 0x85);
  set(kEoi, 0);
  EXPECT_EQ(take(), 0x40);
  set(kEoi, 0);
  EXPECT_EQ(machine.counters.apic_eois, 4u);
}

TEST_F(LocalApicTest, EoiOfALevelTriggeredVectorIsBroadcastToTheIoApics) {
  EoiRecorder io_apic;
  machine.devices->apic_bus.attach(&io_apic);
  enable();
  fixed(0x70, true);
  fixed(0x60, false);
  EXPECT_TRUE(apic.tmr(0x70));
  EXPECT_FALSE(apic.tmr(0x60));
  EXPECT_EQ(take(), 0x70);
  set(kEoi, 0);
  EXPECT_EQ(io_apic.vectors, std::vector<u8>{0x70});
  EXPECT_EQ(take(), 0x60);
  set(kEoi, 0);
  EXPECT_EQ(io_apic.vectors, std::vector<u8>{0x70});  // an edge-triggered EOI stays local
}

TEST_F(LocalApicTest, SpuriousVectorWhenTprIsRaisedBetweenRequestAndAcknowledge) {
  enable(0xE0);  // spurious vector EFh (bits 3:0 hardwired)
  fixed(0x50);
  ASSERT_TRUE(apic.interrupt_pending());
  set(kTpr, 0x60);
  EXPECT_EQ(apic.acknowledge(), 0xEF);
  EXPECT_FALSE(apic.isr(0x50));
  EXPECT_TRUE(apic.irr(0x50));
}

// ---- errors ----

TEST_F(LocalApicTest, EsrIsWriteBeforeReadAndVectorsBelow16AreIllegal) {
  enable();
  fixed(0x05);
  EXPECT_FALSE(apic.irr(0x05));
  EXPECT_EQ(reg(kEsr), 0u);  // not yet latched
  set(kEsr, 0);
  EXPECT_EQ(reg(kEsr), kReceiveIllegalVector);
  set(kEsr, 0);
  EXPECT_EQ(reg(kEsr), 0u);  // the write cleared the errors
  set(kIcrLow, 0x40000 | 0x03);  // self-IPI, vector 3
  set(kEsr, 0);
  EXPECT_EQ(reg(kEsr), kSendIllegalVector);
  (void)reg(0x3F0);  // reserved offset
  set(kEsr, 0);
  EXPECT_EQ(reg(kEsr), kIllegalRegisterAddress);
}

TEST_F(LocalApicTest, AnErrorRequestsTheLvtErrorVector) {
  enable();
  set(kLvtError, 0xE3);
  fixed(0x01);
  EXPECT_TRUE(apic.irr(0xE3));
}

// ---- the ICR ----

TEST_F(LocalApicTest, IcrSendsSelfAndPhysicalIpisAndAllExcludingSelfMissesTheOnlyApic) {
  enable();
  set(kIcrLow, 0x40000 | 0x45);  // shorthand self
  EXPECT_TRUE(apic.irr(0x45));
  EXPECT_EQ(reg(kIcrLow) & 0x1000, 0u);  // delivery status: idle
  set(kIcrLow, 0xC0000 | 0x46);  // all excluding self
  EXPECT_FALSE(apic.irr(0x46));
  set(kIcrLow, 0x80000 | 0x47);  // all including self
  EXPECT_TRUE(apic.irr(0x47));
  set(kIcrHigh, 0x00000000);
  set(kIcrLow, 0x48);  // physical, destination 0
  EXPECT_TRUE(apic.irr(0x48));
  set(kIcrHigh, 0x03000000);
  set(kIcrLow, 0x49);  // physical, destination 3: nobody
  EXPECT_FALSE(apic.irr(0x49));
  EXPECT_EQ(machine.counters.apic_ipis, 5u);
}

TEST_F(LocalApicTest, LogicalDestinationsUseTheFlatOrClusterModel) {
  set(kLdr, 0x21000000);
  ApicMessage m{.vector = 0x40, .logical_destination = true};
  m.destination = 0x01;
  EXPECT_TRUE(apic.is_destination(m));  // flat: bit 0 of 21h
  m.destination = 0x02;
  EXPECT_FALSE(apic.is_destination(m));
  set(kDfr, 0x0FFFFFFF);  // cluster
  EXPECT_EQ(reg(kDfr), 0x0FFFFFFFu);
  m.destination = 0x21;
  EXPECT_TRUE(apic.is_destination(m));
  m.destination = 0x11;
  EXPECT_FALSE(apic.is_destination(m));
  m.destination = 0xFF;
  EXPECT_TRUE(apic.is_destination(m));
}

// ---- SVR ----

TEST_F(LocalApicTest, SoftwareDisableSetsTheLvtMasksAndWritesCannotClearThem) {
  enable();
  set(kLvtTimer, 0x20);
  EXPECT_EQ(reg(kLvtTimer), 0x20u);
  set(kSvr, 0xFF);
  EXPECT_EQ(reg(kLvtTimer), 0x10020u);
  set(kLvtTimer, 0x21);
  EXPECT_EQ(reg(kLvtTimer), 0x10021u);
  fixed(0x40);
  EXPECT_FALSE(apic.irr(0x40));  // fixed interrupts are not accepted
}

// ---- timer ----

// SDM "Divide Configuration Register": (bits 3, 1:0) -> divisor.
struct DivideCase {
  u32 value, divisor;
};
constexpr DivideCase kDivides[] = {{0x0, 2}, {0x1, 4}, {0x2, 8}, {0x3, 16}, {0x8, 32}, {0x9, 64}, {0xA, 128}, {0xB, 1}};

TEST_F(LocalApicTest, OneShotTimerCountsDownAtEveryDivideValueAndRequestsItsVectorOnce) {
  enable();
  for (const DivideCase& d : kDivides) {
    SCOPED_TRACE(d.divisor);
    set(kDivideConfiguration, d.value);
    set(kLvtTimer, 0x30);
    set(kInitialCount, 100);
    EXPECT_EQ(reg(kCurrentCount), 100u);
    advance(40 * d.divisor * kCyclesPerBusTick);
    EXPECT_EQ(reg(kCurrentCount), 60u);
    EXPECT_FALSE(apic.irr(0x30));
    advance(60 * d.divisor * kCyclesPerBusTick);
    EXPECT_EQ(reg(kCurrentCount), 0u);
    EXPECT_TRUE(apic.irr(0x30));
    EXPECT_EQ(take(), 0x30);
    set(kEoi, 0);
    advance(1000 * d.divisor * kCyclesPerBusTick);
    EXPECT_FALSE(apic.irr(0x30));  // one shot
  }
  EXPECT_EQ(machine.counters.apic_timer_interrupts, 8u);
}

TEST_F(LocalApicTest, PeriodicTimerReloadsTheInitialCountAtEveryDivideValue) {
  enable();
  for (const DivideCase& d : kDivides) {
    SCOPED_TRACE(d.divisor);
    set(kDivideConfiguration, d.value);
    set(kLvtTimer, 0x20000 | 0x31);
    set(kInitialCount, 50);
    advance(50 * d.divisor * kCyclesPerBusTick);
    EXPECT_EQ(reg(kCurrentCount), 50u);  // reloaded at the expiry
    EXPECT_EQ(take(), 0x31);
    set(kEoi, 0);
    advance(20 * d.divisor * kCyclesPerBusTick);
    EXPECT_EQ(reg(kCurrentCount), 30u);
    EXPECT_FALSE(apic.irr(0x31));
    advance(30 * d.divisor * kCyclesPerBusTick);
    EXPECT_EQ(take(), 0x31);
    set(kEoi, 0);
    set(kInitialCount, 0);  // stops it
    advance(200 * d.divisor * kCyclesPerBusTick);
    EXPECT_FALSE(apic.irr(0x31));
    EXPECT_EQ(reg(kCurrentCount), 0u);
  }
}

TEST_F(LocalApicTest, MaskedTimerCountsButRequestsNothing) {
  enable();
  set(kDivideConfiguration, 0xB);
  set(kLvtTimer, 0x10000 | 0x32);
  set(kInitialCount, 10);
  advance(10 * kCyclesPerBusTick);
  EXPECT_EQ(reg(kCurrentCount), 0u);
  EXPECT_FALSE(apic.irr(0x32));
  EXPECT_EQ(machine.counters.apic_timer_interrupts, 0u);
}

// ---- IA32_APIC_BASE ----

TEST_F(LocalApicTest, ApicBaseRelocationMovesTheRegisterPage) {
  machine.bus.write<u32>(0x100030, 0x12345678, AccessKind::Data);  // RAM at 1 MiB
  ASSERT_TRUE(apic.write_apic_base(0x00100000 | kApicBaseEnable));
  EXPECT_EQ(apic.apic_base(), 0x00100900u);  // the BSP flag stays
  EXPECT_EQ(machine.bus.read<u32>(0x100030, AccessKind::Data), kP6Version);
  EXPECT_EQ(machine.bus.read<u32>(kDefaultBase + kVersion, AccessKind::Data), 0xFFFFFFFFu);  // open bus
  ASSERT_TRUE(apic.write_apic_base(kDefaultBase | kApicBaseEnable));
  EXPECT_EQ(machine.bus.read<u32>(0x100030, AccessKind::Data), 0x12345678u);  // RAM again
  EXPECT_EQ(reg(kVersion), kP6Version);
}

// SDM "Local APIC Version Register": 1xH for an integrated APIC; 11h as the P6 family
// reports it, 14h (the xAPIC of the Pentium 4) under the SeaBIOS deviation
// (LocalApicConfig::xapic_version; docs/booting.md "Local APIC"), Max LVT Entry 4 in both.
TEST_F(LocalApicTest, VersionIs11hAnd14hWithTheSeaBiosDeviation) {
  EXPECT_EQ(reg(kVersion), 0x00040011u);
  PhysicalBus bus{1u << 20, machine.counters};  // its own register page
  LocalApic xapic(machine.cpu, bus, machine.devices->apic_bus, machine.clock, machine.devices->pic,
                  LocalApicConfig{.apic_id = 1, .bsp = false, .xapic_version = true});
  EXPECT_EQ(xapic.register_value(kVersion), 0x00040014u);
}

TEST_F(LocalApicTest, ApicBaseReservedBitsAreRefused) {
  EXPECT_FALSE(apic.write_apic_base(0xFEE00000u | 0x800 | 0x400));
  EXPECT_FALSE(apic.write_apic_base(u64{1} << 32 | 0xFEE00800u));
  EXPECT_EQ(apic.apic_base(), 0xFEE00900u);
}

TEST_F(LocalApicTest, GlobalDisableUnmapsThePageAndOnlyAResetEnablesAgain) {
  enable();
  ASSERT_TRUE(apic.write_apic_base(kDefaultBase));
  EXPECT_EQ(apic.apic_base(), 0xFEE00100u);
  EXPECT_EQ(reg(kVersion), 0xFFFFFFFFu);  // open bus
  EXPECT_FALSE(apic.enabled());
  ASSERT_TRUE(apic.write_apic_base(kDefaultBase | kApicBaseEnable));
  EXPECT_EQ(apic.apic_base(), 0xFEE00100u);  // P6: stays disabled
  apic.reset();
  EXPECT_EQ(apic.apic_base(), 0xFEE00900u);
  EXPECT_EQ(reg(kVersion), kP6Version);
}

// ---- the virtual wire ----

TEST_F(LocalApicTest, PicInterruptsPassWhileTheApicIsSoftwareDisabled) {
  initialise_pic();
  machine.devices->pic.set_irq(1, true);
  EXPECT_EQ(take(), 0x09);
}

TEST_F(LocalApicTest, PicInterruptsAreBlockedByAMaskedLint0AndPassThroughExtInt) {
  initialise_pic();
  enable();  // LINT0 still masked (its reset value)
  machine.devices->pic.set_irq(1, true);
  EXPECT_EQ(take(), -1);
  set(kLvtLint0, 0x700);  // ExtINT, unmasked
  EXPECT_EQ(take(), 0x09);
}

TEST_F(LocalApicTest, PicInterruptsPassWhileTheApicIsGloballyDisabled) {
  initialise_pic();
  enable();
  ASSERT_TRUE(apic.write_apic_base(kDefaultBase));
  machine.devices->pic.set_irq(3, true);
  EXPECT_EQ(take(), 0x0B);
}

// ---- snapshots ----

TEST_F(LocalApicTest, SnapshotRestoresRegistersAndTheRunningTimer) {
  enable();
  set(kTpr, 0x20);
  fixed(0x44);
  set(kDivideConfiguration, 0xB);
  set(kLvtTimer, 0x20000 | 0x33);
  set(kInitialCount, 1000);
  advance(100 * kCyclesPerBusTick);
  const MachineState state = capture_machine_state(machine);
  Machine other(small_config());
  restore_machine_state(other, state);
  LocalApic& copy = *other.local_apic;
  for (u32 offset : {kTpr, kSvr, kLvtTimer, kInitialCount, kCurrentCount, kIrr + 0x20})
    EXPECT_EQ(copy.register_value(offset), apic.register_value(offset)) << std::hex << offset;
  other.clock.advance_to(other.clock.now() + 900 * kCyclesPerBusTick);
  other.clock.run_due();
  EXPECT_TRUE(copy.irr(0x33));
}

// ---- the machine ----

// Real-mode code at 1000h: the CPU is placed on it as in machine_test.cpp.
void place(Machine& machine, std::initializer_list<u8> code, u32 at = 0x1000) {
  u32 address = at;
  for (u8 byte : code) machine.bus.poke(address++, byte);
  machine.cpu.state.segments[CS].selector = 0;
  machine.cpu.state.segments[CS].cache.set_real_mode(0);
  machine.cpu.state.eip = at;
}

TEST(LocalApicMachine, RdmsrApicBaseReadsFee00900AndCpuidReportsTheApic) {
  Machine machine(small_config());
  place(machine, {0x66, 0xB9, 0x1B, 0x00, 0x00, 0x00,  // mov ecx, 1Bh
                  0x0F, 0x32,                          // rdmsr
                  0x66, 0x89, 0xC6,                    // mov esi, eax
                  0x66, 0x89, 0xD7,                    // mov edi, edx
                  0x66, 0xB8, 0x01, 0x00, 0x00, 0x00,  // mov eax, 1
                  0x0F, 0xA2,                          // cpuid
                  0xF4});                              // hlt (IF = 0)
  EXPECT_EQ(machine.run().reason, RunResult::Reason::Halted);
  EXPECT_EQ(machine.cpu.state.gpr[ESI], 0xFEE00900u);
  EXPECT_EQ(machine.cpu.state.gpr[EDI], 0u);
  EXPECT_EQ(machine.cpu.state.gpr[EDX] >> 9 & 1, 1u);  // CPUID.1:EDX.APIC
  EXPECT_EQ(machine.cpu.state.gpr[EBX] >> 24, 0u);    // initial APIC ID
}

TEST(LocalApicMachine, WrmsrMovesTheApicBaseAndRaisesGpForAReservedBit) {
  Machine machine(small_config());
  // IVT entry 0Dh (#GP) -> 0000:2000h: mov al, 6; out F4h, al (exit status 13).
  machine.bus.poke(0x34, 0x00);
  machine.bus.poke(0x35, 0x20);
  const u8 handler[] = {0xB0, 0x06, 0xE6, 0xF4, 0xF4};
  for (u32 i = 0; i < sizeof handler; ++i) machine.bus.poke(0x2000 + i, handler[i]);
  place(machine, {0x66, 0xB9, 0x1B, 0x00, 0x00, 0x00,  // mov ecx, 1Bh
                  0x66, 0x31, 0xD2,                    // xor edx, edx
                  0x66, 0xB8, 0x00, 0x08, 0x20, 0x00,  // mov eax, 00200800h (base 2 MiB, enabled)
                  0x0F, 0x30,                          // wrmsr
                  0x66, 0xB8, 0x00, 0x0C, 0x20, 0x00,  // mov eax, 00200C00h (bit 10 is reserved)
                  0x0F, 0x30,                          // wrmsr: #GP(0)
                  0xF4});
  const RunResult result = machine.run();
  EXPECT_EQ(result.reason, RunResult::Reason::ExitPort);
  EXPECT_EQ(result.exit_status, 13);
  EXPECT_EQ(machine.local_apic->apic_base(), 0x00200900u);
  EXPECT_EQ(machine.bus.read<u32>(0x200030, AccessKind::Data), kP6Version);
}

TEST(LocalApicMachine, HaltWithThePicMaskedIsWokenByTheApicTimer) {
  Machine machine(small_config());
  // IVT entry 40h -> 0000:2000h: mov al, 5; out F4h, al (exit status 11).
  machine.bus.poke(0x100, 0x00);
  machine.bus.poke(0x101, 0x20);
  machine.bus.poke(0x102, 0x00);
  machine.bus.poke(0x103, 0x00);
  const u8 handler[] = {0xB0, 0x05, 0xE6, 0xF4, 0xF4};
  for (u32 i = 0; i < sizeof handler; ++i) machine.bus.poke(0x2000 + i, handler[i]);
  machine.devices->pic.write(0x21, 1, 0xFF);  // every IRQ masked at the master
  LocalApic& apic = *machine.local_apic;
  apic.write(kSvr, 4, 0x1FF);
  apic.write(kDivideConfiguration, 4, 0xB);
  apic.write(kLvtTimer, 4, 0x40);
  apic.write(kInitialCount, 4, 1000);
  place(machine, {0xFB, 0xF4, 0xEB, 0xFD});  // sti; hlt; jmp $-1
  const RunResult result = machine.run();
  EXPECT_EQ(result.reason, RunResult::Reason::ExitPort);
  EXPECT_EQ(result.exit_status, 11);
}

TEST(LocalApicMachine, HaltWithThePicMaskedAndTheApicSoftwareDisabledEndsTheRun) {
  Machine machine(small_config());
  machine.devices->pic.write(0x21, 1, 0xFF);
  LocalApic& apic = *machine.local_apic;
  apic.write(kDivideConfiguration, 4, 0xB);
  apic.write(kInitialCount, 4, 1000);  // armed, but the APIC is not in use
  place(machine, {0xFB, 0xF4});
  EXPECT_EQ(machine.run().reason, RunResult::Reason::HaltedForever);
}

}  // namespace
}  // namespace x86lab
