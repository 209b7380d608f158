// The Intel 82093AA I/O APIC: 24 interrupt input pins, each with a 64-bit
// redirection entry that turns it into a message on the APIC bus (Intel 82093AA
// I/O Advanced Programmable Interrupt Controller (IOAPIC) data sheet, "Register Description").
#pragma once
#include <array>
#include <functional>
#include <string_view>

#include "mmu/bus_device.h"
#include "platform/devices/apic/apic_bus.h"
#include "trace/counters.h"
#include "trace/state_archive.h"
#include "trace/tracer.h"

namespace x86lab {

class IoApic : public EoiListener, public BusDevice {
 public:
  static constexpr u32 kDefaultBase = 0xFEC00000;  // the PC's IOREGSEL address (PIIX3 APICBASE at reset)
  static constexpr u32 kMmioSize = 0x1000;         // the 4 KiB page a PC decodes for it
  static constexpr unsigned kPins = 24;            // INTIN0-23
  static constexpr u8 kVersion = 0x11;             // IOAPICVER bits 7:0

  // Register addresses (the value written to IOREGSEL), in the data sheet's order.
  enum Register : u8 {
    kIoApicId = 0x00,        // IOAPICID: bits 27:24 the ID, R/W
    kIoApicVer = 0x01,       // IOAPICVER: bits 23:16 maximum redirection entry (17h), 7:0 version (11h), RO
    kIoApicArb = 0x02,       // IOAPICARB: bits 27:24 the bus arbitration ID, RO
    kIoRedTbl0 = 0x10,       // IOREDTBL0-23: entry n low dword at 10h+2n, high dword at 11h+2n
  };

  // The register map in the data sheet's order ("Register Description", Table 2 and
  // the IOREDTBL table): the IOREGSEL value(s), name, access and value after RESET#
  // (redirection entries: only the mask bit is defined, x86lab clears the rest).
  struct RegisterInfo {
    u8 first, last;          // IOREGSEL values
    std::string_view name;
    bool read_only;
    u32 reset;               // each dword's value after reset (IOREDTBL: low dword; high dwords 0)
  };
  static constexpr RegisterInfo kRegisterMap[] = {
      {0x00, 0x00, "IOAPICID", false, 0x00000000},
      {0x01, 0x01, "IOAPICVER", true, 0x00170011},
      {0x02, 0x02, "IOAPICARB", true, 0x00000000},
      {0x10, 0x3F, "IOREDTBL[0:23]", false, 0x00010000},
  };

  // Memory-mapped registers (offsets from the base).
  static constexpr u32 kIoRegSel = 0x00;  // IOREGSEL: bits 7:0 select the register IOWIN accesses
  static constexpr u32 kIoWin = 0x10;     // IOWIN: the selected register's 32 bits

  // A redirection table entry, bit by bit (data sheet, "IOREDTBL[23:0]"):
  //   63:56 destination   16 mask   15 trigger mode (1 level)   14 remote IRR (RO)
  //   13 INTPOL (1 low active)   12 DELIVS (RO, 1 send pending)   11 DESTMOD (1 logical)
  //   10:8 DELMOD   7:0 INTVEC
  struct RedirectionEntry {
    u64 bits = kMaskBit;
    static constexpr u64 kMaskBit = u64{1} << 16;
    static constexpr u64 kTriggerModeBit = u64{1} << 15;
    static constexpr u64 kRemoteIrrBit = u64{1} << 14;
    static constexpr u64 kPolarityLowBit = u64{1} << 13;
    static constexpr u64 kDeliveryStatusBit = u64{1} << 12;
    static constexpr u64 kLogicalBit = u64{1} << 11;
    // The bits software may write: 63:56 and 16:0 except 14 and 12.
    static constexpr u64 kWritable = (u64{0xFF} << 56) | 0x1AFFF;

    u8 vector() const { return static_cast<u8>(bits); }
    DeliveryMode delivery_mode() const { return static_cast<DeliveryMode>((bits >> 8) & 7); }
    bool logical() const { return bits & kLogicalBit; }
    bool delivery_pending() const { return bits & kDeliveryStatusBit; }
    bool polarity_low() const { return bits & kPolarityLowBit; }
    bool remote_irr() const { return bits & kRemoteIrrBit; }
    bool level_triggered() const { return bits & kTriggerModeBit; }
    bool masked() const { return bits & kMaskBit; }
    u8 destination() const { return static_cast<u8>(bits >> 56); }
  };

  // `bus` carries the messages; `counters` (may be null) gets ioapic-deliveries;
  // `tracer` (may be empty) gives the tracer attached now, or null (the CPU's: events
  // are produced only while one is attached), asked at each message.
  explicit IoApic(ApicBus& bus, Counters* counters = nullptr, std::function<Tracer*()> tracer = {});

  // The electrical level of input pin INTIN`pin` (0-23; other pins do nothing), as the
  // wire drives it: high = true. An entry's INTPOL decides which level is asserted.
  // Edge-triggered: a change to asserted sends one message (lost while masked).
  // Level-triggered: sends while asserted, unmasked and remote IRR clear; the local
  // APIC's acceptance sets remote IRR (data sheet, "Interrupt Input Pin Polarity",
  // "Trigger Mode", "Remote IRR").
  void set_input(unsigned pin, bool level);
  bool input(unsigned pin) const { return pin < kPins && ((inputs_ >> pin) & 1); }

  // EoiListener: the EOI of a level-triggered `vector` clears remote IRR of every
  // entry with that vector, and an entry whose input is still asserted sends again.
  void end_of_interrupt(u8 vector) override;

  // BusDevice (offsets within the 4 KiB page). IOREGSEL at 00h and IOWIN at 10h are
  // 32-bit registers; DEVIATION (the data sheet asks for dword accesses only): an
  // access of 1 or 2 bytes inside either reads or writes those bytes of it (a write
  // merges into the rest). Other offsets read FFFFFFFFh (no register answers) and
  // ignore writes. Registers that IOREGSEL names but that do not exist read 0 and
  // ignore writes; writes to read-only registers and bits are ignored.
  u32 read(u32 offset, unsigned size) override;
  void write(u32 offset, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "ioapic"; }

  // The register IOREGSEL `index` names (a read through IOWIN without its side
  // effects; display and tests). Unknown registers read 0.
  u32 read_register(u8 index) const;
  void write_register(u8 index, u32 value);
  const RedirectionEntry& entry(unsigned pin) const { return entries_[pin]; }
  u8 io_register_select() const { return io_register_select_; }

  // Back to the state at RESET# (data sheet: every entry masked, ID 0).
  void reset();
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  bool asserted(unsigned pin) const { return input(pin) != entries_[pin].polarity_low(); }
  // Sends entry `pin`'s message if it should be sent now (level: asserted, unmasked,
  // remote IRR clear). Edge entries send only from set_input.
  void deliver_level(unsigned pin);
  // Puts entry `pin`'s message on the bus; returns whether a local APIC took it.
  bool send(unsigned pin);

  ApicBus& bus_;
  Counters* counters_;
  std::function<Tracer*()> tracer_;
  u8 io_register_select_ = 0;
  u32 id_ = 0;           // IOAPICID bits 27:24 (the rest reads 0)
  u32 arbitration_ = 0;  // IOAPICARB bits 27:24, loaded from the ID when the ID is written
  u32 inputs_ = 0;       // pin levels, bit n = INTINn high
  std::array<RedirectionEntry, kPins> entries_{};
};

}  // namespace x86lab
