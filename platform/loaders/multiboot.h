// Multiboot 1 kernels (ELF32 executables or the header's a.out address fields):
// header search in the first 8 KiB, segment loading, and the boot information
// structure with memory sizes, the BIOS-style memory map, the command line, the boot
// loader name and the initrd as a module (Multiboot Specification 0.6.96, "OS image
// format", "Machine state", "Boot information format").
#pragma once
#include <string>
#include <utility>
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
  u32 info = 0;           // the boot information structure (EBX), a 4 KiB page
  u32 command_line = 0;   // the command line's page
  u32 gdt = 0;            // the boot GDT (32 bytes)
  u32 stack_top = 0;      // ESP at entry
  u32 load_start = 0, load_end = 0;  // lowest and highest+1 loaded or zeroed address
  std::vector<std::pair<u32, u32>> segments;  // each loaded or zeroed range [begin, end)
  u32 module_address = 0; // 0 without module
};

inline constexpr u32 kMultibootHeaderMagic = 0x1BADB002;
inline constexpr u32 kMultibootBootloaderMagic = 0x2BADB002;

// Offset of a valid Multiboot header (magic, flags, checksum summing to 0) in the first
// 8 KiB, 4-byte aligned; -1 when there is none.
long find_multiboot_header(const std::vector<u8>& image);

// Loads the kernel and its information structure, writes the MP and ACPI tables
// (boot_tables.h) and sets the machine state the specification requires (EAX =
// 2BADB002h, EBX = info, flat protected mode, IF = 0, A20 on). A kernel may load below
// 1 MiB between 500h and 9FC00h: the information page, command line, GDT and stack
// then go to 6000h-8FFFh and below 9F000h as usual, or, when the kernel is there, to
// the lowest 16 KiB below 640 KiB it leaves free. Throws InputError for a missing
// header, header flags x86lab cannot honour (video mode, unknown required bits), an
// ELF that is not a 32-bit x86 executable, segments over 0-4FFh or 9FC00h-FFFFFh,
// and segments, module or structures that do not fit in RAM.
MultibootLayout load_multiboot(Cpu& cpu, PhysicalBus& bus, const MultibootImage& image);

}  // namespace x86lab
