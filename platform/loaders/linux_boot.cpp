// Linux bzImage loading through the 32-bit boot protocol. Header offsets are those of
// boot.rst's "The Real-Mode Kernel Header" table; boot_params offsets those of
// zero-page.rst.
#include "platform/loaders/linux_boot.h"

#include <algorithm>
#include <cstdio>
#include <span>

#include "platform/input_error.h"
#include "platform/loaders/boot_entry.h"
#include "platform/loaders/boot_tables.h"

namespace x86lab {

namespace {
// Setup header fields (offsets in the bzImage file and in boot_params alike).
enum : u32 {
  kSetupSects = 0x1F1, kBootFlag = 0x1FE, kJump = 0x200, kHeader = 0x202, kVersion = 0x206,
  kTypeOfLoader = 0x210, kLoadFlags = 0x211, kCode32Start = 0x214, kRamdiskImage = 0x218, kRamdiskSize = 0x21C,
  kHeapEndPtr = 0x224, kCmdLinePtr = 0x228, kInitrdAddrMax = 0x22C, kKernelAlignment = 0x230,
  kRelocatableKernel = 0x234, kCmdlineSize = 0x238, kPrefAddress = 0x258, kInitSize = 0x260,
};
// boot_params fields outside the setup header.
enum : u32 {
  kScreenInfo = 0x000, kExtMemK = 0x002, kVideoMode = 0x006, kVideoCols = 0x007, kVideoLines = 0x00E,
  kVideoIsVga = 0x00F, kVideoPoints = 0x010, kAltMemK = 0x1E0, kE820Entries = 0x1E8, kE820Table = 0x2D0,
};
constexpr u8 kLoadedHigh = 0x01;
constexpr u8 kUndefinedLoader = 0xFF;  // a boot loader without an assigned ID
constexpr u32 kKernelAddress = 0x100000;
constexpr unsigned kMaxE820Entries = 128;

u32 align_up(u32 value, u32 alignment) { return alignment ? (value + alignment - 1) / alignment * alignment : value; }

std::string mib(u64 bytes) { return std::to_string((bytes + 0xFFFFF) >> 20) + " MiB"; }
}  // namespace

bool is_bzimage(const std::vector<u8>& image) {
  return image.size() >= 0x264 && read_le(image, kHeader, 4) == 0x53726448u;  // "HdrS"
}

LinuxBootLayout load_linux(Cpu& cpu, PhysicalBus& bus, const LinuxBootImage& image) {
  const std::vector<u8>& k = image.kernel;
  const std::string& name = image.kernel_name;
  if (!is_bzimage(k) || read_le(k, kBootFlag, 2) != 0xAA55)
    throw InputError("kernel '" + name + "' is not a bzImage (no HdrS setup header)");
  LinuxBootLayout layout;
  layout.protocol = static_cast<u16>(read_le(k, kVersion, 2));
  if (layout.protocol < kMinimumLinuxProtocol) {
    char version[16];
    std::snprintf(version, sizeof version, "%u.%02u", layout.protocol >> 8, layout.protocol & 0xFF);
    throw InputError("kernel '" + name + "' uses boot protocol " + version + "; x86lab needs 2.02 or later");
  }
  if (!(k[kLoadFlags] & kLoadedHigh)) throw InputError("kernel '" + name + "' is a zImage (not loaded high); x86lab loads bzImages");

  const u32 setup_sects = k[kSetupSects] ? k[kSetupSects] : 4;
  const u32 setup_bytes = (setup_sects + 1) * 512;
  if (k.size() <= setup_bytes) throw InputError("kernel '" + name + "' is truncated: no protected-mode code after the setup sectors");
  layout.kernel_address = kKernelAddress;
  layout.kernel_bytes = static_cast<u32>(k.size() - setup_bytes);

  // The kernel decompresses itself in place or, when relocatable, at its preferred
  // address rounded to kernel_alignment; it needs init_size bytes from there.
  const bool v210 = layout.protocol >= 0x020A;
  const u32 init_size = v210 ? read_le(k, kInitSize, 4) : layout.kernel_bytes * 4;
  u32 run_address = kKernelAddress;
  if (layout.protocol >= 0x0205 && k[kRelocatableKernel]) {
    const u32 alignment = read_le(k, kKernelAlignment, 4);
    const u32 preferred = v210 ? static_cast<u32>(read_le(k, kPrefAddress, 4)) : kKernelAddress;
    run_address = std::max(align_up(kKernelAddress, alignment), preferred);
  }
  const u64 kernel_end = std::max<u64>(u64{kKernelAddress} + layout.kernel_bytes, u64{run_address} + init_size);
  if (kernel_end > bus.ram_bytes())
    throw InputError("kernel '" + name + "' needs " + mib(kernel_end) + " of RAM; --memory gives " + mib(bus.ram_bytes()));
  layout.kernel_end = static_cast<u32>(kernel_end);

  // boot_params: zeroed, with the setup header copied from 1F1h to its end (202h plus
  // the byte at 201h).
  std::vector<u8> params(4096, 0);
  const u32 header_end = std::min<u32>(kHeader + k[kJump + 1], static_cast<u32>(k.size()));
  std::copy(k.begin() + kSetupSects, k.begin() + header_end, params.begin() + kSetupSects);

  // Command line.
  const u32 cmdline_limit = layout.protocol >= 0x0206 ? read_le(k, kCmdlineSize, 4) : 255;
  if (image.command_line.size() > cmdline_limit || image.command_line.size() >= 4096)
    throw InputError("--append is " + std::to_string(image.command_line.size()) + " bytes; kernel '" + name +
                     "' accepts at most " + std::to_string(std::min<u32>(cmdline_limit, 4095)));
  for (std::size_t i = 0; i <= image.command_line.size(); ++i)
    bus.poke(kCommandLineAddress + static_cast<u32>(i), i < image.command_line.size() ? static_cast<u8>(image.command_line[i]) : 0);

  // Initrd: as high as allowed, page aligned, above everything the kernel uses.
  if (!image.initrd.empty()) {
    const u64 max_end = std::min<u64>(layout.protocol >= 0x0203 ? u64{read_le(k, kInitrdAddrMax, 4)} + 1 : 0x38000000u,
                                      bus.ram_bytes());
    const u64 size = image.initrd.size();
    if (size > max_end || ((max_end - size) & ~u64{0xFFF}) < kernel_end)
      throw InputError("initrd '" + image.initrd_name + "' (" + std::to_string(size) + " bytes) does not fit in RAM above the kernel; --memory gives " +
                       mib(bus.ram_bytes()));
    layout.initrd_address = static_cast<u32>((max_end - size) & ~u64{0xFFF});
    bus.load(layout.initrd_address, image.initrd);
    write_le(params, kRamdiskImage, 4, layout.initrd_address);
    write_le(params, kRamdiskSize, 4, size);
  }

  // The protected-mode kernel at 1 MiB.
  bus.load(kKernelAddress, std::span<const u8>(k).subspan(setup_bytes));

  write_le(params, kTypeOfLoader, 1, kUndefinedLoader);
  write_le(params, kCode32Start, 4, kKernelAddress);
  write_le(params, kCmdLinePtr, 4, kCommandLineAddress);
  write_le(params, kHeapEndPtr, 2, 0);

  // Memory: the e820 map and the legacy extended-memory sizes in KiB.
  const u32 extended_kb = bus.ram_bytes() > kKernelAddress ? (bus.ram_bytes() - kKernelAddress) / 1024 : 0;
  write_le(params, kExtMemK, 2, std::min<u32>(extended_kb, 0xFFFF));
  write_le(params, kAltMemK, 4, extended_kb);
  const std::vector<MemoryRange> map = pc_memory_map(bus.ram_bytes());
  write_le(params, kE820Entries, 1, std::min<std::size_t>(map.size(), kMaxE820Entries));
  for (std::size_t i = 0; i < map.size() && i < kMaxE820Entries; ++i) {
    write_le(params, kE820Table + i * 20, 8, map[i].base);
    write_le(params, kE820Table + i * 20 + 8, 8, map[i].length);
    write_le(params, kE820Table + i * 20 + 16, 4, map[i].type);
  }

  // screen_info: 80x25 VGA color text mode 3 with a 16-line font, cursor at 0,0.
  write_le(params, kScreenInfo, 2, 0);
  write_le(params, kVideoMode, 1, 3);
  write_le(params, kVideoCols, 1, 80);
  write_le(params, kVideoLines, 1, 25);
  write_le(params, kVideoIsVga, 1, 1);
  write_le(params, kVideoPoints, 2, 16);

  // The MP and ACPI tables, found by the kernel's own search of F0000h-FFFFFh
  // (boot_params.acpi_rsdp_addr stays 0: the search needs no boot protocol version).
  write_boot_tables(bus, cpu.profile());

  layout.boot_params = kBootInfoAddress;
  bus.load(kBootInfoAddress, params);
  enter_flat_protected_mode(cpu, bus, kKernelAddress);
  cpu.state.gpr[ESI] = kBootInfoAddress;
  return layout;
}

}  // namespace x86lab
