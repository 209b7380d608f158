// `x86lab run --kernel FILE [--initrd FILE] [--append TEXT]`: reads the files and
// starts the kernel through the protocol its format names: a bzImage through the
// Linux boot protocol, anything with a Multiboot header as a Multiboot 1 kernel.
#pragma once
#include <string>
#include <vector>

#include "cpu/cpu.h"
#include "mmu/physical_bus.h"

namespace x86lab {

struct KernelBootRequest {
  std::string kernel_path;
  std::string initrd_path;  // empty for none
  std::string command_line;
};

enum class KernelFormat { LinuxBzImage, Multiboot };

// Reads a whole kernel or initrd file (platform/input_error.h's read_input_bytes), refusing
// one larger than `ram_bytes` before reading it; throws InputError naming "<what> '<path>'".
std::vector<u8> read_boot_file(const std::string& path, const std::string& what, u64 ram_bytes);

// Detects the format of `image`; throws InputError naming `name` when it is neither.
KernelFormat detect_kernel_format(const std::vector<u8>& image, const std::string& name);

// Reads, detects and loads; returns the detected format. Errors are InputErrors.
KernelFormat boot_kernel(Cpu& cpu, PhysicalBus& bus, const KernelBootRequest& request);

}  // namespace x86lab
