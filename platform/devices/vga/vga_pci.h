// The VGA as a PCI function: the 1234:1111 display controller (class 030000h, a VGA-
// compatible controller) whose BAR0 is the 16 MiB linear frame buffer (prefetchable
// memory) and whose expansion ROM holds the VGA BIOS (PCI Local Bus Specification
// 2.2, 6.2.5 "Base Addresses", 6.3 "PCI Expansion ROMs"). The legacy VGA ports and the
// A0000h window are decoded by the Vga itself (Vga::attach_legacy), as a PCI VGA's
// are whatever its BARs say (PCI 2.2, "VGA Palette Snoop" and the VGA compatibility
// of the PCI-to-PCI bridge architecture).
#pragma once
#include <string>
#include <vector>

#include "platform/devices/pci/pci_function.h"
#include "platform/devices/vga/vga.h"

namespace x86lab {

class VgaPciFunction final : public PciFunction {
 public:
  static constexpr u16 kVendorId = 0x1234, kDeviceId = 0x1111;
  static constexpr u32 kClassCode = 0x030000;
  // Where x86lab's PCI bus puts the adapter: device 2, function 0 (00:02.0).
  static constexpr pci::Address kAddress{2, 0};

  // `vga`: the adapter (outlives this function). `rom`: the VGA BIOS image for the
  // expansion ROM (empty: no expansion ROM register), padded to a power of two of at
  // least 4 KiB with zeros. Throws InputError when the image is over 1 MiB.
  VgaPciFunction(Vga& vga, std::vector<u8> rom);
  std::string_view function_name() const override { return "vga"; }
  // The ROM image as declared (padded).
  const std::vector<u8>& rom() const { return rom_bytes_; }

 private:
  // The expansion ROM's contents on the memory bus (read-only: writes are dropped).
  class Rom final : public BusDevice {
   public:
    explicit Rom(const std::vector<u8>& bytes) : bytes_(bytes) {}
    u32 read(u32 offset, unsigned size) override;
    void write(u32, unsigned, u32) override {}
    bool debug_read(u32 offset, u8& value) const override {
      value = offset < bytes_.size() ? bytes_[offset] : 0xFF;
      return true;
    }
    std::string_view device_name() const override { return "vga-rom"; }

   private:
    const std::vector<u8>& bytes_;
  };
  std::vector<u8> rom_bytes_;
  Rom rom_device_;
};

// Reads a VGA BIOS image file (a PCI option ROM: 55h AAh, a length byte in 512-byte
// blocks): its bytes, or an InputError naming `path` (unreadable, empty, over 1 MiB,
// or no 55AAh signature).
std::vector<u8> read_vga_bios(const std::string& path);

}  // namespace x86lab
