// An ATA channel (cable): the command block registers at 1F0h-1F7h or 170h-177h, the
// control block register at 3F6h or 376h, device 0 (master) and device 1 (slave), and
// the INTRQ line to IRQ 14 or 15 (ATA/ATAPI-6 clause 5 "Interface signal
// assignments", 7.1 "Register addressing", 6.7 "Device 0/Device 1 configurations").
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "mmu/bus_device.h"
#include "platform/devices/storage/ata_device.h"

namespace x86lab {

class AtaChannel : public BusDevice {
 public:
  // The legacy ports of the two channels of a PC (PIIX3 data sheet, "IDE Interface":
  // compatibility mode).
  static constexpr u16 kPrimaryCommand = 0x1F0, kPrimaryControl = 0x3F6, kSecondaryCommand = 0x170,
                       kSecondaryControl = 0x376;

  // `command_base`: the Data register's port; `control_base`: the Alternate
  // Status/Device Control port. `irq` is driven with the INTRQ line's level.
  AtaChannel(std::string name, u16 command_base, u16 control_base, std::function<void(bool)> irq);

  // Connects device `position` (0 master, 1 slave) to `image` (null: no device).
  void connect(unsigned position, DiskImage* image, std::string serial);
  AtaDevice* device(unsigned position) { return devices_[position & 1].get(); }
  bool empty() const { return !devices_[0] && !devices_[1]; }

  // BusDevice at the command block ports (command_base..+7) and the control port.
  // Reads: the selected device's registers. When the selected device is absent but
  // the other is present, every register reads 00h (DEVIATION: ATA-6 6.7 lets device
  // 0 answer for an absent device 1; 00h Status is what it shows, and 00h in the other
  // registers lets hosts see the device is absent). A channel without devices reads
  // FFh (nothing drives the bus; the host's pull-down on DD7 is not modeled).
  // Writes to registers 1-6 and Device Control reach both devices; a command reaches
  // the selected device (EXECUTE DEVICE DIAGNOSTIC both). Reading Status clears the
  // selected device's INTRQ; Alternate Status does not.
  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return name_; }

  // The PIIX3's IDETIM decode enable: while false the ports read FFh and ignore writes.
  void set_decode(bool enabled) { decode_ = enabled; }
  bool decode() const { return decode_; }
  bool interrupt_line() const { return irq_level_; }

  // ---- the bus master's side (ata_bus_master.h) ----
  // Told when the INTRQ line rises (the bus master's interrupt status bit) and when
  // the selected device starts asking for DMA.
  void set_bus_master_listeners(std::function<void()> on_interrupt, std::function<void()> on_dma_request) {
    on_interrupt_ = std::move(on_interrupt);
    on_dma_request_ = std::move(on_dma_request);
  }
  bool dma_requested() const;
  bool dma_to_memory() const;
  std::size_t dma_read(std::span<u8> bytes);
  std::size_t dma_write(std::span<const u8> bytes);

  // Saves, checks or loads the Device Control register, the selection and both
  // devices (which must be present as in the saved machine) with their disks' content.
  void transfer_state(StateArchive& archive);

 private:
  AtaDevice* selected() const { return devices_[selected_].get(); }
  void execute_diagnostic();
  void write_device_control(u8 value);
  // Recomputes INTRQ and tells the bus master what changed.
  void update();

  std::string name_;
  u16 command_base_, control_base_;
  std::function<void(bool)> irq_;
  std::array<std::unique_ptr<AtaDevice>, 2> devices_;
  unsigned selected_ = 0;    // Device register DEV, as both devices latched it
  u8 device_control_ = 0;    // nIEN, SRST, HOB
  bool decode_ = true;
  bool irq_level_ = false;
  bool dma_was_requested_ = false;
  std::function<void()> on_interrupt_, on_dma_request_;
};

}  // namespace x86lab
