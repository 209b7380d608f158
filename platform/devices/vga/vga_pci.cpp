// The VGA's PCI configuration header, BAR0 and expansion ROM (PCI Local Bus
// Specification 2.2, 6.2 "Configuration Space Functions", 6.3 "PCI Expansion ROMs").
#include "platform/devices/vga/vga_pci.h"

#include "platform/input_error.h"

namespace x86lab {

namespace {
constexpr std::size_t kMaxRom = 1u << 20;
u32 rom_size(std::size_t bytes) {
  u32 size = PhysicalBus::kPageBytes;
  while (size < bytes) size <<= 1;
  return size;
}
}  // namespace

VgaPciFunction::VgaPciFunction(Vga& vga, std::vector<u8> rom)
    : PciFunction(kVendorId, kDeviceId, 0x02, kClassCode, 0x00, 0), rom_bytes_(std::move(rom)), rom_device_(rom_bytes_) {
  if (rom_bytes_.size() > kMaxRom) throw InputError("VGA BIOS image: over 1 MiB");
  declare_bar(0, BarKind::Memory32Prefetchable, Vga::kVramBytes, &vga.linear_frame_buffer());
  if (!rom_bytes_.empty()) {
    rom_bytes_.resize(rom_size(rom_bytes_.size()), 0);
    declare_expansion_rom(static_cast<u32>(rom_bytes_.size()), &rom_device_);
  }
}

u32 VgaPciFunction::Rom::read(u32 offset, unsigned size) {
  u32 value = 0;
  for (unsigned i = 0; i < size; ++i)
    value |= u32{offset + i < bytes_.size() ? bytes_[offset + i] : u8{0xFF}} << (8 * i);
  return value;
}

std::vector<u8> read_vga_bios(const std::string& path) {
  std::vector<u8> bytes = read_input_bytes(path, "VGA BIOS", InputFileLimit{kMaxRom, "a VGA BIOS image is at most 1 MiB"});
  if (bytes.size() < 3 || bytes[0] != 0x55 || bytes[1] != 0xAA)
    throw InputError("VGA BIOS '" + path + "': no option ROM signature 55AAh at its start");
  return bytes;
}

}  // namespace x86lab
