// The PC/AT's two 8237A DMA controllers and their page registers (Intel 8237A-5
// "High Performance Programmable DMA Controller" data sheet: "Register Description",
// "Programming", "Transfer Modes"; IBM PC/AT Technical Reference, "DMA Controller"):
// DMA1 (channels 0-3, byte transfers, ports 00h-0Fh) cascaded into channel 4 of DMA2
// (channels 4-7, word transfers, ports C0h-DEh at even addresses).
//
// ISA devices use a channel through DmaClient: the device raises DREQ with
// Dma8237Pair::set_dreq; while DREQ is high and the channel can be served (unmasked,
// controller enabled, and for channels 0-3 the cascade channel 4 unmasked), the
// controller moves units between the device and guest RAM through the PhysicalBus at
// once, within the set_dreq call (or the register write that unmasked the channel),
// and tells the device of the terminal count. No bus cycles are modeled: a transfer
// takes no modeled time (the device paces itself on the VirtualClock).
#pragma once
#include <array>

#include "mmu/bus_device.h"
#include "mmu/physical_bus.h"
#include "trace/state_archive.h"

namespace x86lab {

// An ISA device attached to one DMA channel (the floppy controller on channel 2; a
// Sound Blaster would use 1 and 5). Calls come from inside Dma8237Pair::set_dreq or a
// DMA register write; a client may drop or raise DREQ from within them.
class DmaClient {
 public:
  virtual ~DmaClient() = default;
  // A write transfer (device to memory): the unit the device puts on the bus (a byte
  // on channels 0-3, a 16-bit word on 4-7).
  virtual u16 dma_read_unit() = 0;
  // A read transfer (memory to device): the unit read from memory.
  virtual void dma_write_unit(u16 value) = 0;
  // The channel reached terminal count with the unit just transferred (the TC pin of
  // the data sheet, "the last transfer").
  virtual void dma_terminal_count() = 0;
};

class Dma8237Pair : public BusDevice {
 public:
  // Transfer type, mode register bits 3-2 ("Mode Register").
  enum class TransferType : u8 { Verify = 0, Write = 1, Read = 2, Illegal = 3 };
  // Mode register bits 7-6.
  enum class TransferMode : u8 { Demand = 0, Single = 1, Block = 2, Cascade = 3 };

  explicit Dma8237Pair(PhysicalBus& bus);

  // Ports 00h-0Fh (DMA1), C0h-DFh (DMA2) and the page registers 81h-8Fh.
  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "dma8237"; }

  // Attaches `client` to `channel` (0-7; null detaches).
  void attach(unsigned channel, DmaClient* client);
  // The level of DREQ `channel` (0-7). Raising it (or keeping it high) serves the
  // channel at once when it can be served, until DREQ drops, terminal count, or (in
  // single and demand mode) the client lowers DREQ.
  void set_dreq(unsigned channel, bool level);

  // What a BIOS leaves at boot for a direct kernel boot: channel 4 in cascade mode and
  // unmasked, so that channels 0-3 reach the bus.
  void set_bios_state();

  // Register views for tests and the debugger: the current address and count (the
  // counts are transfers minus one), the page register, mode, mask bit, the status
  // register of the controller holding `channel` (without clearing its TC bits).
  u16 current_address(unsigned channel) const { return channels_[channel & 7].current_address; }
  u16 current_count(unsigned channel) const { return channels_[channel & 7].current_count; }
  u8 page(unsigned channel) const { return page_registers_[kPagePort[channel & 7]]; }
  u8 mode(unsigned channel) const { return channels_[channel & 7].mode; }
  bool masked(unsigned channel) const { return channels_[channel & 7].masked; }
  u8 status(unsigned controller) const;
  // The physical address of the next transfer of `channel`.
  u32 next_address(unsigned channel) const;

  void transfer_state(StateArchive& archive);

 private:
  struct Channel {
    u16 base_address = 0, base_count = 0, current_address = 0, current_count = 0;
    u8 mode = 0;
    bool masked = true;
    bool request = false;   // software request (request register)
    bool dreq = false;      // the device's DREQ line
    bool terminal = false;  // status TC bit, cleared when the status is read
  };
  struct Controller {
    u8 command = 0;
    bool flip_flop = false;  // byte pointer flip-flop: false = low byte next
    u8 temporary = 0;
  };

  u8 register_read(unsigned controller, unsigned reg);
  void register_write(unsigned controller, unsigned reg, u8 value);
  void master_clear(unsigned controller);
  bool can_serve(unsigned channel) const;
  void serve(unsigned channel);
  void serve_pending();
  bool transfer_unit(unsigned channel);

  // The page register (port 80h + index) of each channel ("DMA Page Registers" of
  // the PC/AT Technical Reference).
  static constexpr std::array<u8, 8> kPagePort = {0x7, 0x3, 0x1, 0x2, 0xF, 0xB, 0x9, 0xA};

  PhysicalBus& bus_;
  std::array<Channel, 8> channels_{};
  std::array<Controller, 2> controllers_{};
  std::array<u8, 16> page_registers_{};  // ports 80h-8Fh (80h itself belongs to the POST port)
  std::array<DmaClient*, 8> clients_{};
  bool serving_ = false;  // serve() is running: a nested set_dreq only records the level
};

}  // namespace x86lab
