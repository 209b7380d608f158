// An ATA channel: register addressing, device selection, Device Control (SRST, nIEN,
// HOB) and the INTRQ line (ATA/ATAPI-6 7.1, 7.9 "Device register", 7.10 "Device
// Control register", 9.2 "Software reset protocol").
#include "platform/devices/storage/ata_channel.h"

namespace x86lab {

using namespace ata;

AtaChannel::AtaChannel(std::string name, u16 command_base, u16 control_base, std::function<void(bool)> irq)
    : name_(std::move(name)), command_base_(command_base), control_base_(control_base), irq_(std::move(irq)) {}

void AtaChannel::connect(unsigned position, DiskImage* image, std::string serial) {
  devices_[position & 1] = image ? std::make_unique<AtaDevice>(*image, std::move(serial)) : nullptr;
}

u32 AtaChannel::read(u32 port, unsigned size) {
  const u32 all_ones = size == 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
  if (!decode_ || empty()) return all_ones;
  AtaDevice* device = selected();
  if (port == control_base_) return device ? device->status() : 0;  // Alternate Status
  const u32 reg = port - command_base_;
  if (reg > 7) return all_ones;
  if (!device) return 0;
  u32 value = 0;
  if (reg == kData) {
    value = device->read_data(size);
  } else if (reg == kStatus) {
    value = device->status();
    device->clear_interrupt();
  } else {
    value = device->read_register(static_cast<u8>(reg), device_control_ & kHob);
  }
  update();
  return value;
}

void AtaChannel::write(u32 port, unsigned size, u32 value) {
  if (!decode_ || empty()) return;
  if (port == control_base_) {
    write_device_control(static_cast<u8>(value));
    update();
    return;
  }
  const u32 reg = port - command_base_;
  if (reg > 7) return;
  if (reg != kData) device_control_ &= static_cast<u8>(~kHob);  // ATA-6 7.10: a register write clears HOB
  if (reg == kData) {
    if (AtaDevice* device = selected()) device->write_data(size, value);
  } else if (reg == kCommand) {
    if (value == kExecuteDeviceDiagnostic) execute_diagnostic();
    else if (AtaDevice* device = selected()) device->command(static_cast<u8>(value));
  } else {
    if (reg == kDevice) selected_ = (value & kDev) ? 1 : 0;
    for (auto& device : devices_)
      if (device) device->write_register(static_cast<u8>(reg), static_cast<u8>(value));
  }
  update();
}

// ATA-6 8.11 EXECUTE DEVICE DIAGNOSTIC: both devices run it, device 0 reports (it
// asserts INTRQ), and DEV is 0 afterwards.
void AtaChannel::execute_diagnostic() {
  selected_ = 0;
  const bool master = devices_[0] != nullptr;
  for (unsigned i = 0; i < 2; ++i)
    if (devices_[i]) devices_[i]->execute_diagnostic(master ? i == 0 : i == 1);
}

// SRST: held high, both devices are BUSY; released, they finish their reset with
// their signatures and DEV 0 selected (ATA-6 9.2).
void AtaChannel::write_device_control(u8 value) {
  const bool was_reset = device_control_ & kSrst, reset = value & kSrst;
  device_control_ = value;
  if (reset && !was_reset) {
    for (auto& device : devices_)
      if (device) device->hold_software_reset();
  } else if (!reset && was_reset) {
    for (auto& device : devices_)
      if (device) device->release_software_reset();
    selected_ = 0;
  }
}

void AtaChannel::update() {
  const AtaDevice* device = selected();
  const bool level = device && device->interrupt_pending() && !(device_control_ & kNien);
  if (level != irq_level_) {
    irq_level_ = level;
    if (irq_) irq_(level);
    if (level && on_interrupt_) on_interrupt_();
  }
  const bool dma = dma_requested();
  if (dma && !dma_was_requested_) {
    dma_was_requested_ = true;
    if (on_dma_request_) on_dma_request_();
  }
  dma_was_requested_ = dma_requested();
}

bool AtaChannel::dma_requested() const {
  const AtaDevice* device = selected();
  return device && device->dma_requested();
}

bool AtaChannel::dma_to_memory() const {
  const AtaDevice* device = selected();
  return device && device->dma_to_memory();
}

std::size_t AtaChannel::dma_read(std::span<u8> bytes) {
  AtaDevice* device = selected();
  const std::size_t n = device ? device->dma_read(bytes) : 0;
  update();
  return n;
}

std::size_t AtaChannel::dma_write(std::span<const u8> bytes) {
  AtaDevice* device = selected();
  const std::size_t n = device ? device->dma_write(bytes) : 0;
  update();
  return n;
}

void AtaChannel::transfer_state(StateArchive& a) {
  for (unsigned i = 0; i < 2; ++i) {
    bool present = devices_[i] != nullptr;
    a.local(present, "ata device present");
    if (present != (devices_[i] != nullptr))
      throw StateArchiveError(name_ + " device " + std::to_string(i) + ": the snapshot's drives differ from this machine's");
    if (!present) continue;
    devices_[i]->transfer_state(a);
    devices_[i]->image().transfer_state(a);
  }
  a.field(selected_, "ata selected device", 1);
  a.field(device_control_, "ata device control");
  a.field(irq_level_, "ata intrq");
  a.field(dma_was_requested_, "ata dma requested");
  if (a.loading() && irq_) irq_(irq_level_);
}

}  // namespace x86lab
