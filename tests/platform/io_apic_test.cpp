// 82093AA I/O APIC against Intel's data sheet ("Register Description", "IOREDTBL"):
// reset values and version, IOREGSEL/IOWIN indirection, edge and level triggering,
// remote IRR and EOI, polarity, masking and the destination carried into the message;
// then its wiring in the PC (PcDevices: ISA IRQs, IRQ 0 on pin 2, the 8259A on pin 0,
// COM1 on pin 4 as xv6 programs them).
#include <gtest/gtest.h>

#include <vector>

#include "platform/devices/apic/io_apic.h"
#include "platform/machine.h"

namespace x86lab {
namespace {

// A local APIC that takes every message (or none) and remembers them.
struct RecordingApic : ApicBusAgent {
  std::vector<ApicMessage> messages;
  bool takes = true;
  u8 apic_id() const override { return 0; }
  bool is_destination(const ApicMessage&) const override { return takes; }
  u8 arbitration_priority() const override { return 0; }
  void accept(const ApicMessage& message) override { messages.push_back(message); }
};

// Register numbers and entry bits as the data sheet gives them (independent of IoApic's
// own constants).
constexpr u32 kRedirectionLow0 = 0x10;
constexpr u32 kMask = 1u << 16, kLevel = 1u << 15, kRemoteIrr = 1u << 14, kPolarityLow = 1u << 13;
constexpr u32 kDeliveryStatus = 1u << 12, kLogical = 1u << 11;

struct IoApicFixture : ::testing::Test {
  ApicBus bus;
  RecordingApic apic;
  Counters counters;
  IoApic io_apic{bus, &counters};
  IoApicFixture() { bus.attach(&apic); }

  // The 32-bit accesses a driver makes: IOREGSEL at base+00h, IOWIN at base+10h.
  u32 read(u8 reg) {
    io_apic.write(0x00, 4, reg);
    return io_apic.read(0x10, 4);
  }
  void write(u8 reg, u32 value) {
    io_apic.write(0x00, 4, reg);
    io_apic.write(0x10, 4, value);
  }
  void program(unsigned pin, u32 low, u32 high = 0) {
    write(static_cast<u8>(kRedirectionLow0 + 2 * pin + 1), high);
    write(static_cast<u8>(kRedirectionLow0 + 2 * pin), low);
  }
};

TEST_F(IoApicFixture, VersionRegisterReads11hWithMaximumRedirectionEntry17h) {
  EXPECT_EQ(read(0x01), 0x00170011u);
}

TEST_F(IoApicFixture, ResetLeavesIdZeroAndEveryEntryMasked) {
  EXPECT_EQ(read(0x00), 0u);
  EXPECT_EQ(read(0x02), 0u);
  for (unsigned pin = 0; pin < 24; ++pin) {
    EXPECT_EQ(read(static_cast<u8>(0x10 + 2 * pin)) & kMask, kMask) << "pin " << pin;
    EXPECT_EQ(read(static_cast<u8>(0x11 + 2 * pin)), 0u) << "pin " << pin;
  }
}

TEST_F(IoApicFixture, RegisterMapListsTheDataSheetRegistersWithTheirResetValues) {
  for (const IoApic::RegisterInfo& r : IoApic::kRegisterMap)
    for (unsigned reg = r.first; reg <= r.last; ++reg)
      EXPECT_EQ(read(static_cast<u8>(reg)), (reg >= 0x10 && (reg & 1)) ? 0u : r.reset) << r.name << " " << reg;
  EXPECT_EQ(std::size(IoApic::kRegisterMap), 4u);
}

TEST_F(IoApicFixture, IdRegisterKeepsBits27To24AndLoadsTheArbitrationId) {
  write(0x00, 0xFFFFFFFF);
  EXPECT_EQ(read(0x00), 0x0F000000u);
  EXPECT_EQ(read(0x02), 0x0F000000u);
  write(0x01, 0);  // read-only
  EXPECT_EQ(read(0x01), 0x00170011u);
}

TEST_F(IoApicFixture, IoregselSelectsTheRegisterThatIowinReadsAndWrites) {
  io_apic.write(0x00, 4, 0x12);  // IOREDTBL1 low
  io_apic.write(0x10, 4, 0x0001A0B5);
  EXPECT_EQ(io_apic.read(0x00, 4), 0x12u);
  io_apic.write(0x00, 4, 0x13);
  io_apic.write(0x10, 4, 0xAB000000);
  EXPECT_EQ(io_apic.entry(1).bits, 0xAB000000'0001A0B5ull);
  io_apic.write(0x00, 4, 0x12);
  EXPECT_EQ(io_apic.read(0x10, 4), 0x0001A0B5u);
}

TEST_F(IoApicFixture, RemoteIrrAndDeliveryStatusAreReadOnly) {
  write(0x10, 0xFFFFFFFF);
  EXPECT_EQ(read(0x10), 0x0001FFFFu & ~(kRemoteIrr | kDeliveryStatus));
}

TEST_F(IoApicFixture, UndefinedRegistersAndOffsetsReadWithoutEffect) {
  EXPECT_EQ(read(0x03), 0u);
  EXPECT_EQ(read(0x40), 0u);
  EXPECT_EQ(read(0xFF), 0u);
  write(0x40, 0x12345678);
  EXPECT_EQ(io_apic.read(0x20, 4), 0xFFFFFFFFu);
  EXPECT_EQ(io_apic.read(0xFFC, 4), 0xFFFFFFFFu);
  io_apic.write(0x800, 4, 0);
  EXPECT_EQ(read(0x01), 0x00170011u);
}

TEST_F(IoApicFixture, ByteAccessesReachTheirLanesOfIowin) {
  io_apic.write(0x00, 1, 0x01);
  EXPECT_EQ(io_apic.read(0x10, 1), 0x11u);
  EXPECT_EQ(io_apic.read(0x12, 1), 0x17u);
  EXPECT_EQ(io_apic.read(0x12, 2), 0x0017u);
  io_apic.write(0x00, 1, 0x10);
  io_apic.write(0x10, 1, 0x42);  // the vector byte only; mask stays set
  EXPECT_EQ(read(0x10), kMask | 0x42);
}

TEST_F(IoApicFixture, EdgeTriggeredEntrySendsOncePerRisingEdge) {
  program(3, 0x31, 0x05000000);  // vector 31h, fixed, physical, edge, high active, unmasked
  io_apic.set_input(3, true);
  io_apic.set_input(3, true);
  io_apic.set_input(3, false);
  ASSERT_EQ(apic.messages.size(), 1u);
  EXPECT_EQ(apic.messages[0].vector, 0x31);
  EXPECT_EQ(apic.messages[0].delivery_mode, DeliveryMode::Fixed);
  EXPECT_FALSE(apic.messages[0].logical_destination);
  EXPECT_EQ(apic.messages[0].destination, 0x05);
  EXPECT_FALSE(apic.messages[0].level_triggered);
  io_apic.set_input(3, true);
  EXPECT_EQ(apic.messages.size(), 2u);
  EXPECT_EQ(counters.ioapic_deliveries, 2u);
  EXPECT_EQ(counters.ioapic_deliveries_by_pin[3], 2u);
}

TEST_F(IoApicFixture, EdgeWhileMaskedIsLost) {
  program(4, kMask | 0x34);
  io_apic.set_input(4, true);
  program(4, 0x34);
  EXPECT_TRUE(apic.messages.empty());
  io_apic.set_input(4, false);
  io_apic.set_input(4, true);
  EXPECT_EQ(apic.messages.size(), 1u);
}

TEST_F(IoApicFixture, LevelTriggeredEntrySetsRemoteIrrAndWaitsForEoi) {
  program(9, kLevel | 0x59);
  io_apic.set_input(9, true);
  ASSERT_EQ(apic.messages.size(), 1u);
  EXPECT_TRUE(apic.messages[0].level_triggered);
  EXPECT_EQ(read(0x10 + 18) & kRemoteIrr, kRemoteIrr);
  io_apic.set_input(9, false);
  io_apic.set_input(9, true);
  EXPECT_EQ(apic.messages.size(), 1u) << "no new message while remote IRR is set";
  io_apic.end_of_interrupt(0x58);  // another vector: no effect
  EXPECT_EQ(read(0x10 + 18) & kRemoteIrr, kRemoteIrr);
  bus.broadcast_eoi(0x59);  // still asserted: sent again, remote IRR set again
  EXPECT_EQ(apic.messages.size(), 2u);
  EXPECT_EQ(read(0x10 + 18) & kRemoteIrr, kRemoteIrr);
  io_apic.set_input(9, false);
  bus.broadcast_eoi(0x59);
  EXPECT_EQ(apic.messages.size(), 2u);
  EXPECT_EQ(read(0x10 + 18) & kRemoteIrr, 0u);
}

TEST_F(IoApicFixture, LevelStillAssertedAtUnmaskIsSent) {
  program(10, kMask | kLevel | 0x5A);
  io_apic.set_input(10, true);
  EXPECT_TRUE(apic.messages.empty());
  program(10, kLevel | 0x5A);
  ASSERT_EQ(apic.messages.size(), 1u);
  EXPECT_EQ(apic.messages[0].vector, 0x5A);
}

TEST_F(IoApicFixture, LevelNobodyTakesStaysPendingWithDeliveryStatusSet) {
  apic.takes = false;
  program(11, kLevel | 0x5B);
  io_apic.set_input(11, true);
  EXPECT_EQ(read(0x10 + 22) & (kRemoteIrr | kDeliveryStatus), kDeliveryStatus);
  apic.takes = true;
  program(11, kLevel | 0x5B);  // the next write sends it
  EXPECT_EQ(apic.messages.size(), 1u);
  EXPECT_EQ(read(0x10 + 22) & (kRemoteIrr | kDeliveryStatus), kRemoteIrr);
}

TEST_F(IoApicFixture, LowActivePolarityAssertsOnTheFallingLevel) {
  io_apic.set_input(5, true);  // idle high
  program(5, kPolarityLow | 0x45);
  EXPECT_TRUE(apic.messages.empty());
  io_apic.set_input(5, false);
  EXPECT_EQ(apic.messages.size(), 1u);
  io_apic.set_input(5, true);
  EXPECT_EQ(apic.messages.size(), 1u);
}

TEST_F(IoApicFixture, LogicalDestinationAndDeliveryModeAreCarriedIntoTheMessage) {
  program(6, kLogical | (1u << 8) | 0x66, 0xA5000000);  // lowest priority, logical, MDA A5h
  io_apic.set_input(6, true);
  ASSERT_EQ(apic.messages.size(), 1u);
  EXPECT_TRUE(apic.messages[0].logical_destination);
  EXPECT_EQ(apic.messages[0].destination, 0xA5);
  EXPECT_EQ(apic.messages[0].delivery_mode, DeliveryMode::LowestPriority);
  EXPECT_EQ(apic.messages[0].shorthand, DestinationShorthand::None);
}

TEST_F(IoApicFixture, StateSurvivesASaveAndLoad) {
  program(9, kLevel | 0x59, 0x03000000);
  io_apic.set_input(9, true);
  write(0x00, 0x02000000);
  StateArchive save;
  io_apic.transfer_state(save);
  ApicBus other_bus;
  IoApic copy(other_bus);
  StateArchive load(StateArchive::Mode::Load, save.bytes());
  copy.transfer_state(load);
  load.expect_end("I/O APIC");
  EXPECT_EQ(copy.entry(9).bits, io_apic.entry(9).bits);
  EXPECT_EQ(copy.read_register(0x00), 0x02000000u);
  EXPECT_TRUE(copy.input(9));
}

// ---- the PC's wiring ----------------------------------------------------------

struct PcIoApicFixture : ::testing::Test {
  Machine machine{MachineConfig{}};
  RecordingApic apic;
  PcIoApicFixture() { machine.devices->apic_bus.attach(&apic); }
  IoApic& io_apic() { return machine.devices->io_apic; }
  void program(unsigned pin, u32 low) {
    machine.bus.write<u32>(IoApic::kDefaultBase, kRedirectionLow0 + 2 * pin, AccessKind::Data);
    machine.bus.write<u32>(IoApic::kDefaultBase + 0x10, low, AccessKind::Data);
  }
};

TEST_F(PcIoApicFixture, RegistersAnswerAtFec00000h) {
  machine.bus.write<u32>(0xFEC00000, 0x01, AccessKind::Data);
  EXPECT_EQ(machine.bus.read<u32>(0xFEC00010, AccessKind::Data), 0x00170011u);
}

TEST_F(PcIoApicFixture, OddWidthsAndOffsetsThroughTheBusDoNotCrash) {
  machine.bus.write<u32>(0xFEC00000, 0x01, AccessKind::Data);
  EXPECT_EQ(machine.bus.read<u16>(0xFEC00012, AccessKind::Data), 0x0017u);
  EXPECT_EQ(machine.bus.read<u32>(0xFEC00011, AccessKind::Data) & 0xFFFFFFu, 0x001700u);  // IOWIN bytes 1-3
  EXPECT_EQ(machine.bus.read<u32>(0xFEC00040, AccessKind::Data), 0xFFFFFFFFu);
  machine.bus.read<u32>(0xFEC00FFE, AccessKind::Data);  // crosses the end of the page
  machine.bus.write<u32>(0xFEC00FFE, 0x12345678, AccessKind::Data);
  machine.bus.write<u8>(0xFEC00013, 0xFF, AccessKind::Data);  // IOAPICVER is read-only
  EXPECT_EQ(machine.bus.read<u32>(0xFEC00010, AccessKind::Data), 0x00170011u);
}

TEST_F(PcIoApicFixture, IsaIrqNDrivesPinNAndIrq0DrivesPin2) {
  machine.devices->set_irq(4, true);
  EXPECT_TRUE(io_apic().input(4));
  machine.devices->set_irq(0, true);
  EXPECT_TRUE(io_apic().input(2));
  EXPECT_EQ(PcDevices::io_apic_pin(0), 2u);
  EXPECT_EQ(PcDevices::io_apic_pin(2), PcDevices::kNoPin);
  EXPECT_EQ(PcDevices::io_apic_pin(15), 15u);
}

TEST_F(PcIoApicFixture, Pin0FollowsThe8259MasterIntOutputAndSendsExtInt) {
  program(0, (7u << 8));  // ExtINT, edge, unmasked
  PicPair& pic = machine.devices->pic;
  for (u8 b : {0x11, 0x08, 0x04, 0x01}) pic.write(b == 0x11 ? 0x20 : 0x21, 1, b);
  pic.write(0x21, 1, 0xFE);  // only IRQ 0
  machine.devices->set_irq(0, true);
  EXPECT_TRUE(io_apic().input(0));
  ASSERT_EQ(apic.messages.size(), 1u);
  EXPECT_EQ(apic.messages[0].delivery_mode, DeliveryMode::ExtInt);
  EXPECT_EQ(pic.acknowledge(), 0x08);
  EXPECT_FALSE(io_apic().input(0));
}

TEST_F(PcIoApicFixture, MaskedAtResetSoIrqsSendNothing) {
  machine.devices->set_irq(4, true);
  machine.devices->set_irq(0, true);
  EXPECT_TRUE(apic.messages.empty());
  EXPECT_EQ(machine.counters.ioapic_deliveries, 0u);
}

// COM1 to the I/O APIC as xv6 sets them up (uart.c uartinit, ioapic.c ioapicenable):
// the UART with MCR 00h and receive interrupts on, pin 4 edge-triggered, active high,
// fixed, vector 24h (T_IRQ0 + IRQ_COM1) to APIC 0. Each received byte after the
// previous one was read is one rising edge of IRQ 4, so one message (data sheet,
// IOREDTBL "Trigger Mode": edge-sensitive sends on the rising edge).
bool io_apic_input(Machine& machine) { return machine.devices->io_apic.input(4); }

struct Xv6ComFixture : ::testing::Test {
  static MachineConfig config(Uart16550::IrqGate gate) {
    MachineConfig c;
    c.serial_irq_gate = gate;
    return c;
  }
  void boot_xv6_console(Machine& machine, RecordingApic& apic) {
    machine.devices->apic_bus.attach(&apic);
    for (auto [reg, value] : {std::pair{2, 0x00}, {3, 0x80}, {0, 12}, {1, 0x00}, {3, 0x03}, {4, 0x00}, {1, 0x01}})
      machine.ports.write(static_cast<u16>(0x3F8 + reg), 1, static_cast<u8>(value));
    machine.ports.read(0x3FA, 1);
    machine.ports.read(0x3F8, 1);
    machine.bus.write<u32>(IoApic::kDefaultBase, kRedirectionLow0 + 2 * 4 + 1, AccessKind::Data);
    machine.bus.write<u32>(IoApic::kDefaultBase + 0x10, 0x00000000, AccessKind::Data);
    machine.bus.write<u32>(IoApic::kDefaultBase, kRedirectionLow0 + 2 * 4, AccessKind::Data);
    machine.bus.write<u32>(IoApic::kDefaultBase + 0x10, 0x24, AccessKind::Data);
  }
};

TEST_F(Xv6ComFixture, DirectWiringSendsVector24hForEachReceivedByte) {
  Machine machine{config(Uart16550::IrqGate::Direct)};
  RecordingApic apic;
  boot_xv6_console(machine, apic);
  machine.devices->com1.receive('l');
  ASSERT_EQ(apic.messages.size(), 1u);
  EXPECT_EQ(apic.messages[0].vector, 0x24);
  EXPECT_EQ(apic.messages[0].delivery_mode, DeliveryMode::Fixed);
  EXPECT_FALSE(apic.messages[0].level_triggered);
  EXPECT_EQ(apic.messages[0].destination, 0);
  EXPECT_EQ(machine.ports.read(0x3FD, 1), 0x61u);  // uartgetc: LSR DR, then RBR
  EXPECT_EQ(machine.ports.read(0x3F8, 1), u32{'l'});
  EXPECT_FALSE(io_apic_input(machine));
  machine.devices->com1.receive('s');
  ASSERT_EQ(apic.messages.size(), 2u);
  EXPECT_EQ(apic.messages[1].vector, 0x24);
}

TEST_F(Xv6ComFixture, PcGateSendsNothingWhileOut2IsClear) {
  Machine machine{config(Uart16550::IrqGate::Out2)};
  RecordingApic apic;
  boot_xv6_console(machine, apic);
  machine.devices->com1.receive('l');
  EXPECT_TRUE(apic.messages.empty());
  EXPECT_EQ(machine.ports.read(0x3FA, 1), 0x04u);  // the UART's interrupt is pending all the same
}

}  // namespace
}  // namespace x86lab
