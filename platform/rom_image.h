// BIOS ROM images: read from a file and mapped so that the last byte is at physical
// FFFFFFFFh, with the top 128 KiB (or the whole image if smaller) aliased below 1 MiB
// as on a PC (the reset vector F000:FFF0 then reaches it in real mode).
#pragma once
#include <string>
#include <vector>

#include "mmu/physical_bus.h"

namespace x86lab {

inline constexpr std::size_t kRomGranule = 64 * 1024;        // image sizes are multiples of 64 KiB
inline constexpr std::size_t kMaxRomBytes = 16 * 1024 * 1024;

// Reads a ROM image. Throws InputError naming the file when it cannot be opened or
// read, or its size is 0, not a multiple of 64 KiB, or above 16 MiB.
std::vector<u8> read_rom_image(const std::string& path);

// Whether `image` is a PC BIOS (SeaBIOS, the Bochs BIOS) rather than a bare ROM: 128 or
// 256 KiB, ending as the IBM PC/AT BIOS does with its release date "MM/DD/YY" at
// F000:FFF5h and the system model byte FCh (AT) at F000:FFFEh.
bool is_pc_bios(const std::vector<u8>& image);

// Whether `image` is the Bochs BIOS (Debian's bochsbios, BIOS-bochs-latest): a PC BIOS
// holding its copyright line "The Bochs Project". It was written for Bochs's board, whose
// VGA BIOS is an ISA option ROM at C0000h; it copies a PCI expansion ROM before it
// enables the function's memory decode (PCI Local Bus Specification 2.2, 6.2.5.2: the
// ROM is not decoded then), so the machine gives the VGA's PCI function no expansion ROM
// under it.
bool is_bochs_bios(const std::vector<u8>& image);

// Maps `image` at the top of the 4 GiB space and its top 128 KiB below 1 MiB.
void map_bios(PhysicalBus& bus, const std::vector<u8>& image);

}  // namespace x86lab
