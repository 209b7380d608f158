// Kernel file reading and format detection for --kernel.
#include "platform/loaders/kernel_loader.h"

#include "platform/input_error.h"
#include "platform/loaders/linux_boot.h"
#include "platform/loaders/multiboot.h"

namespace x86lab {

std::vector<u8> read_boot_file(const std::string& path, const std::string& what, u64 ram_bytes) {
  return read_input_bytes(path, what, {ram_bytes, "--memory gives " + std::to_string(ram_bytes >> 20) + " MiB of RAM"});
}

KernelFormat detect_kernel_format(const std::vector<u8>& image, const std::string& name) {
  if (is_bzimage(image)) return KernelFormat::LinuxBzImage;
  if (find_multiboot_header(image) >= 0) return KernelFormat::Multiboot;
  throw InputError("kernel '" + name + "' is neither a bzImage (no HdrS setup header) nor a Multiboot kernel");
}

KernelFormat boot_kernel(Cpu& cpu, PhysicalBus& bus, const KernelBootRequest& request) {
  std::vector<u8> kernel = read_boot_file(request.kernel_path, "kernel", bus.ram_bytes());
  std::vector<u8> initrd;
  if (!request.initrd_path.empty()) initrd = read_boot_file(request.initrd_path, "initrd", bus.ram_bytes());
  const KernelFormat format = detect_kernel_format(kernel, request.kernel_path);
  if (format == KernelFormat::LinuxBzImage) {
    load_linux(cpu, bus, {std::move(kernel), request.kernel_path, std::move(initrd), request.initrd_path, request.command_line});
  } else {
    load_multiboot(cpu, bus, {std::move(kernel), request.kernel_path, std::move(initrd), request.initrd_path, request.command_line});
  }
  return format;
}

}  // namespace x86lab
