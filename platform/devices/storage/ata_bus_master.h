// The PIIX3's bus master IDE function: per channel a command register, a status
// register and the address of a table of physical region descriptors (PRDs), and the
// DMA engine that moves a device's data through them into or out of guest memory
// (82371SB PIIX3 data sheet, "Bus Master IDE I/O Registers" and "Bus Master IDE
// Operation"; the same layout as the SFF-8038i "Programming Interface for Bus Master
// IDE Controller").
#pragma once
#include <array>
#include <functional>

#include "mmu/bus_device.h"
#include "mmu/physical_bus.h"
#include "platform/devices/storage/ata_channel.h"
#include "trace/state_archive.h"

namespace x86lab {

// Register layout, offsets from the BAR4 base (16 bytes; the secondary channel at +8):
//   00h BMICX  command  3 RWCON (1: the bus master writes memory, a device read)
//                       0 SSBM (1: start; 0: stop)
//   02h BMISX  status   7 simplex (0)  6 drive 1 DMA capable  5 drive 0 DMA capable (R/W)
//                       2 IDE interrupt (write 1 to clear)  1 error (write 1 to clear)
//                       0 bus master active (read-only)
//   04h BMIDTPX descriptor table pointer, bits 31:2 (dword aligned)
// A PRD (8 bytes, little-endian): dword 0 the physical base of a memory region (bit 0
// is 0), word 2 its byte count (bit 0 is 0; 0 means 64 KiB), word 3 bit 15 the end of
// the table (EOT).
class BusMasterIde : public BusDevice {
 public:
  static constexpr u8 kStart = 0x01, kWriteToMemory = 0x08;
  static constexpr u8 kActive = 0x01, kError = 0x02, kInterrupt = 0x04, kDrive0Capable = 0x20, kDrive1Capable = 0x40;
  static constexpr u32 kBytes = 16;

  // `memory`: where the PRDs and the data are; `bus_master_enabled`: the PCI Command
  // register's bus master bit (no DMA while clear).
  BusMasterIde(PhysicalBus& memory, std::array<AtaChannel*, 2> channels, std::function<bool()> bus_master_enabled);

  // BusDevice on the 16 ports of BAR4 (the offset is the port's low 4 bits, the BAR
  // being 16-byte aligned). Widths 1, 2, 4; reserved bytes read 0.
  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "piix3-bmide"; }

  u8 command(unsigned channel) const { return state_[channel].command; }
  u8 status(unsigned channel) const { return state_[channel].status; }
  u32 table(unsigned channel) const { return state_[channel].table; }

  // Moves data while channel `channel` is started and its device asks for DMA (the
  // channel calls it through its listener; a start does too). With a device's
  // transfer done and descriptors left, Active stays 1; with the table's end reached
  // first, Active goes to 0 and the device waits (the data sheet's "PRD smaller than
  // the transfer" case; the driver then times out). At most 8192 descriptors per run
  // (a 64 KiB table): a table without EOT ends there with Error set.
  void run(unsigned channel);

  void transfer_state(StateArchive& archive);

 private:
  struct Channel {
    u8 command = 0, status = 0;
    u32 table = 0;
    u32 prd = 0;         // the address of the descriptor in use
    u32 prd_done = 0;    // bytes of it already moved
  };
  u8 read_byte(unsigned offset) const;
  void write_byte(unsigned offset, u8 value);
  // Moves one descriptor's bytes; returns false when the device stopped wanting data.
  bool move(unsigned channel, u32 address, u32 bytes);

  PhysicalBus& memory_;
  std::array<AtaChannel*, 2> channels_;
  std::function<bool()> bus_master_enabled_;
  std::array<Channel, 2> state_{};
  bool running_ = false;
};

}  // namespace x86lab
