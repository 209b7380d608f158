// The Linux/x86 boot protocol's 32-bit entry for bzImage kernels: setup header
// checks, the protected-mode kernel at 1 MiB, the initrd as high as initrd_addr_max
// and the top of RAM allow, and boot_params (the "zero page") with the e820 map, the
// command line, the loader type and a VGA text screen_info (Linux
// Documentation/x86/boot.rst, "The Real-Mode Kernel Header", "32-bit Boot Protocol";
// zero-page.rst).
#pragma once
#include <string>
#include <vector>

#include "cpu/cpu.h"
#include "mmu/physical_bus.h"

namespace x86lab {

struct LinuxBootImage {
  std::vector<u8> kernel;      // the bzImage file
  std::string kernel_name;     // for messages
  std::vector<u8> initrd;      // empty for none
  std::string initrd_name;
  std::string command_line;
};

// Where things went, for reports and tests.
struct LinuxBootLayout {
  u16 protocol = 0;         // e.g. 0x020F for 2.15
  u32 kernel_address = 0;   // protected-mode kernel (1 MiB)
  u32 kernel_bytes = 0;
  u32 kernel_end = 0;       // end of the memory the kernel may use while it decompresses
  u32 initrd_address = 0;   // 0 without initrd
  u32 boot_params = 0;
};

inline constexpr u16 kMinimumLinuxProtocol = 0x0202;  // cmd_line_ptr and "HdrS"

// True when `image` carries the "HdrS" setup header signature.
bool is_bzimage(const std::vector<u8>& image);

// Loads the kernel, initrd, command line and boot_params into RAM, writes the MP and
// ACPI tables (boot_tables.h) and sets the CPU
// to the 32-bit entry state (ESI = boot_params; EBX, EBP, EDI = 0). Throws
// InputError (one line naming the file) for a file that is not a bzImage, a boot
// protocol older than 2.02, a zImage (not loaded high), a command line longer than
// the kernel accepts, or a kernel or initrd that does not fit in RAM.
LinuxBootLayout load_linux(Cpu& cpu, PhysicalBus& bus, const LinuxBootImage& image);

}  // namespace x86lab
