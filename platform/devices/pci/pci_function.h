// One function of a PCI device on bus 0: its 256-byte configuration space with the
// type 00h header, its base address registers and its INTx# line (PCI Local Bus
// Specification 2.1/2.2, chapter 6 "Configuration Space"; the header fields, the
// Command register and BAR sizing in 6.2 "Configuration Space Functions").
//
// The shared interface of the chipset functions (i440FX host bridge, PIIX3 ISA bridge
// and IDE, the VGA adapter): a subclass sets its identity and its write masks in the
// constructor, declares its BARs, and overrides config_written() for the registers
// that do something (PAM, PIRQ routing). BAR decoding is done here: while the Command
// register enables I/O or memory space, every programmed BAR's BusDevice is attached
// to the port bus or mapped on the physical bus at the BAR's base, and moved or
// removed when software reprograms either.
#pragma once
#include <array>
#include <functional>
#include <string_view>

#include "mmu/bus_device.h"
#include "mmu/physical_bus.h"
#include "mmu/port_bus.h"
#include "trace/state_archive.h"
#include "trace/types.h"

namespace x86lab {

// Offsets of the type 00h header's registers (PCI 2.2, 6.1 "Configuration Space
// Organization").
namespace pci {
inline constexpr u8 kVendorId = 0x00, kDeviceId = 0x02, kCommand = 0x04, kStatus = 0x06, kRevisionId = 0x08,
                    kClassCode = 0x09, kCacheLineSize = 0x0C, kLatencyTimer = 0x0D, kHeaderType = 0x0E,
                    kBar0 = 0x10, kSubsystemVendorId = 0x2C, kSubsystemId = 0x2E, kExpansionRom = 0x30,
                    kCapabilitiesPointer = 0x34, kInterruptLine = 0x3C, kInterruptPin = 0x3D;
// Command register bits.
inline constexpr u16 kCommandIo = 1u << 0, kCommandMemory = 1u << 1, kCommandBusMaster = 1u << 2,
                     kCommandInterruptDisable = 1u << 10;
// Status register: the interrupt status bit (PCI 2.3), read-only.
inline constexpr u16 kStatusInterrupt = 1u << 3;
inline constexpr unsigned kBarCount = 6;
// A function's place on bus 0: device 0-31, function 0-7.
struct Address {
  u8 device = 0, function = 0;
  bool operator==(const Address&) const = default;
};
}  // namespace pci

class PciFunction {
 public:
  enum class BarKind : u8 { None, Io, Memory32, Memory32Prefetchable };

  virtual ~PciFunction() = default;
  // A short name for traces and `info pci` ("i440fx", "piix3-ide").
  virtual std::string_view function_name() const = 0;

  // Configuration reads and writes of `size` bytes (1, 2 or 4) at `offset` (0-FFh,
  // naturally aligned by the caller, the PciBus). Reads return the register bytes;
  // writes change only the bits the function's write masks allow (BARs: the size
  // bits read back as 0, so a write of FFFFFFFFh reads back the size), then call
  // config_written() and re-decode the BARs if the Command register or a BAR changed.
  virtual u32 config_read(u8 offset, unsigned size);
  virtual void config_write(u8 offset, unsigned size, u32 value);

  // The raw configuration bytes (no side effects): the debugger and the tests.
  u8 config_byte(u8 offset) const { return config_[offset]; }
  u16 config_word(u8 offset) const { return static_cast<u16>(config_[offset] | config_[offset + 1u] << 8); }
  u32 config_dword(u8 offset) const { return config_word(offset) | u32{config_word(offset + 2u)} << 16; }
  u16 command() const { return config_word(pci::kCommand); }
  bool bus_master_enabled() const { return command() & pci::kCommandBusMaster; }

  // The base a BAR is programmed with (its flag bits cleared), whatever the Command register.
  u32 bar_base(unsigned index) const;
  // Where BAR `index` is decoded now: its base while the Command register enables its
  // space and the base is not 0, else 0.
  u32 bar_decoded_base(unsigned index) const { return bar_decoded_[index]; }
  // Where the expansion ROM is decoded now (PCI 2.2, 6.2.5.2 "Expansion ROM Base
  // Address Register"): its base while the Command register's memory space bit and
  // the register's Expansion ROM Enable bit (bit 0) are both set and the base is not
  // 0, else 0.
  u32 expansion_rom_decoded_base() const { return rom_decoded_; }

  // Called by the PciBus when the function is plugged in: the buses its BARs decode on,
  // and its INTx# output (level: true = asserted), which the bus routes (PIIX3 PIRQ
  // routing, the I/O APIC).
  void plug(PortBus& ports, PhysicalBus& memory, std::function<void(bool)> intx);

  // Saves, checks or loads the configuration bytes and, in a subclass, its own state;
  // loading re-decodes the BARs and calls config_written() for every register.
  virtual void transfer_state(StateArchive& archive);

 protected:
  // Identity: the read-only header fields (vendor, device, revision, class code as
  // base class << 16 | sub-class << 8 | programming interface, header type with bit 7
  // for a multi-function device's function 0), interrupt pin (0 none, 1 INTA# .. 4).
  PciFunction(u16 vendor_id, u16 device_id, u8 revision, u32 class_code, u8 header_type, u8 interrupt_pin);

  // Declares BAR `index` (0-5) of `size` bytes (a power of two: I/O at least 4, memory
  // at least 16; memory BARs are mapped in whole 4 KiB pages, so at least 4096 for a
  // memory BAR with a BusDevice) decoded by `device` (on the port bus its ports are
  // the absolute ports; on the physical bus its addresses are offsets from the base).
  void declare_bar(unsigned index, BarKind kind, u32 size, BusDevice* device);
  // Declares the expansion ROM base address register (30h) for a ROM of `size` bytes
  // (a power of two, at least 4 KiB: mapped in whole pages; PCI 2.2 6.2.5.2 allows
  // 2 KiB and up) read through `device` (offsets from the base). Bits 31-11 hold the
  // base (the size bits read back 0, so a write of FFFFF800h reads back the size),
  // bit 0 enables decoding; bits 10-1 read 0. Throws std::invalid_argument for a bad size.
  void declare_expansion_rom(u32 size, BusDevice* device);
  // Sets a BAR's base (the value a BIOS would program), as a reset value.
  void set_bar_base(unsigned index, u32 base);
  // Makes bits `mask` of the byte at `offset` writable by software (every other bit of
  // the header is read-only; the Command register's I/O, memory and bus-master bits and
  // the interrupt line are writable by default).
  void set_writable(u8 offset, u8 mask) { writable_[offset] = mask; }
  // Sets a configuration byte directly (reset values, device-side status changes).
  void set_config_byte(u8 offset, u8 value) { config_[offset] = value; }
  void set_config_word(u8 offset, u16 value) {
    config_[offset] = static_cast<u8>(value);
    config_[offset + 1u] = static_cast<u8>(value >> 8);
  }
  // Hook: the bytes offset..offset+size-1 were written (after the masks applied).
  virtual void config_written(u8 offset, unsigned size) {
    (void)offset;
    (void)size;
  }
  // Drives INTx# (ignored while the Command register's interrupt disable bit is set);
  // keeps the Status register's interrupt bit.
  void set_intx(bool level);
  // Re-decodes every BAR (after the Command register or a BAR changed).
  void decode_bars();

 private:
  struct Bar {
    BarKind kind = BarKind::None;
    u32 size = 0;
    BusDevice* device = nullptr;
  };
  std::array<u8, 256> config_{};
  std::array<u8, 256> writable_{};
  std::array<Bar, pci::kBarCount> bars_{};
  std::array<u32, pci::kBarCount> bar_decoded_{};
  Bar rom_{};
  u32 rom_decoded_ = 0;
  PortBus* ports_ = nullptr;
  PhysicalBus* memory_ = nullptr;
  std::function<void(bool)> intx_;
  bool intx_level_ = false;
};

}  // namespace x86lab
