// Kernel file reading and format detection for --kernel.
#include "platform/loaders/kernel_loader.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "platform/input_error.h"
#include "platform/loaders/linux_boot.h"
#include "platform/loaders/multiboot.h"

namespace x86lab {

std::vector<u8> read_input_file(const std::string& path, const std::string& what) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw InputError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  const std::streamoff size = file.tellg();
  if (size < 0) throw InputError("cannot read " + what + " '" + path + "': not a regular file");
  if (size > std::streamoff{0xE0000000}) throw InputError(what + " '" + path + "' is larger than any RAM x86lab models");
  std::vector<u8> bytes(static_cast<std::size_t>(size));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(bytes.data()), size))
    throw InputError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  return bytes;
}

KernelFormat detect_kernel_format(const std::vector<u8>& image, const std::string& name) {
  if (is_bzimage(image)) return KernelFormat::LinuxBzImage;
  if (find_multiboot_header(image) >= 0) return KernelFormat::Multiboot;
  throw InputError("kernel '" + name + "' is neither a bzImage (no HdrS setup header) nor a Multiboot kernel");
}

KernelFormat boot_kernel(Cpu& cpu, PhysicalBus& bus, const KernelBootRequest& request) {
  std::vector<u8> kernel = read_input_file(request.kernel_path, "kernel");
  std::vector<u8> initrd;
  if (!request.initrd_path.empty()) initrd = read_input_file(request.initrd_path, "initrd");
  const KernelFormat format = detect_kernel_format(kernel, request.kernel_path);
  if (format == KernelFormat::LinuxBzImage) {
    load_linux(cpu, bus, {std::move(kernel), request.kernel_path, std::move(initrd), request.initrd_path, request.command_line});
  } else {
    load_multiboot(cpu, bus, {std::move(kernel), request.kernel_path, std::move(initrd), request.initrd_path, request.command_line});
  }
  return format;
}

}  // namespace x86lab
