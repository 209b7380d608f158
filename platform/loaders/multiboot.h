// Multiboot 1 kernels (ELF32 executables or the header's a.out address fields):
// header search in the first 8 KiB, segment loading, and the boot information
// structure with memory sizes, the BIOS-style memory map, the command line, the boot
// loader name and the initrd as a module (Multiboot Specification 0.6.96, "OS image
// format", "Machine state", "Boot information format").
#pragma once
#include <string>
#include <vector>

#include "cpu/cpu.h"
#include "mmu/physical_bus.h"

namespace x86lab {

struct MultibootImage {
  std::vector<u8> kernel;
  std::string kernel_name;
  std::vector<u8> module;  // the --initrd file as module 0; empty for none
  std::string module_name;
  std::string command_line;
};

struct MultibootLayout {
  u32 entry = 0;
  u32 info = 0;           // the boot information structure (EBX)
  u32 load_start = 0, load_end = 0;  // lowest and highest+1 loaded or zeroed address
  u32 module_address = 0; // 0 without module
};

inline constexpr u32 kMultibootHeaderMagic = 0x1BADB002;
inline constexpr u32 kMultibootBootloaderMagic = 0x2BADB002;

// Offset of a valid Multiboot header (magic, flags, checksum summing to 0) in the first
// 8 KiB, 4-byte aligned; -1 when there is none.
long find_multiboot_header(const std::vector<u8>& image);

// Loads the kernel and its information structure and sets the machine state the
// specification requires (EAX = 2BADB002h, EBX = info, flat protected mode, IF = 0,
// A20 on). Throws InputError for a missing header, header flags x86lab cannot honour
// (video mode, unknown required bits), an ELF that is not a 32-bit x86 executable,
// or segments, module or structures that do not fit in RAM.
MultibootLayout load_multiboot(Cpu& cpu, PhysicalBus& bus, const MultibootImage& image);

}  // namespace x86lab
