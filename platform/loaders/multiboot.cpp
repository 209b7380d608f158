// Multiboot 1 loading: ELF program headers (System V ABI "Program Header", PT_LOAD)
// or the a.out kludge address fields when header flag 16 is set.
#include "platform/loaders/multiboot.h"

#include <algorithm>
#include <cstdio>
#include <span>

#include "platform/input_error.h"
#include "platform/loaders/boot_entry.h"
#include "platform/loaders/boot_tables.h"

namespace x86lab {

namespace {
constexpr u32 kSearchBytes = 8192;
constexpr u32 kFlagPageAlignModules = 1u << 0, kFlagMemoryInfo = 1u << 1, kFlagVideoMode = 1u << 2,
              kFlagAddressFields = 1u << 16;
// Boot information flags.
constexpr u32 kInfoMemory = 1u << 0, kInfoCommandLine = 1u << 2, kInfoModules = 1u << 3, kInfoMemoryMap = 1u << 6,
              kInfoLoaderName = 1u << 9;
// Where the information structure's parts go inside the 4 KiB boot information page.
constexpr u32 kModuleList = 0x100, kMemoryMap = 0x200, kLoaderName = 0x400, kModuleString = 0x500;
constexpr char kName[] = "x86lab";
// Below 1 MiB a kernel may use [kLowestLoad, kLowMemoryEnd): above the real-mode IVT and
// the BIOS data area, below the extended BIOS data area, video memory and the BIOS
// area where the MP and ACPI tables are (boot_tables.h).
constexpr u32 kLowestLoad = 0x500, kLowMemoryEnd = 0x9FC00, kMiB = 0x100000;
constexpr u32 kPage = 0x1000;

void poke32(PhysicalBus& bus, u32 address, u32 value) {
  for (unsigned i = 0; i < 4; ++i) bus.poke(address + i, static_cast<u8>(value >> (8 * i)));
}
void poke_string(PhysicalBus& bus, u32 address, const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) bus.poke(address + static_cast<u32>(i), static_cast<u8>(text[i]));
  bus.poke(address + static_cast<u32>(text.size()), 0);
}

std::string hex(u64 value) {
  char text[24];
  std::snprintf(text, sizeof text, "%llXh", static_cast<unsigned long long>(value));
  return text;
}

// A kernel may load anywhere in RAM above the real-mode IVT and BIOS data area except
// in the 640 KiB-1 MiB hole (EBDA, video memory, BIOS area and the boot tables), as
// QEMU's Multiboot loader allows. Records the range in `layout.segments`.
void check_in_ram(const PhysicalBus& bus, u64 address, u64 size, const std::string& name, MultibootLayout& layout) {
  const std::string range = hex(address) + "-" + hex(address + size);
  if (address + size > bus.ram_bytes())
    throw InputError("kernel '" + name + "' loads to " + range + ", beyond the " + std::to_string(bus.ram_bytes() >> 20) +
                     " MiB of RAM");
  if (size == 0) return;
  if (address < kLowestLoad)
    throw InputError("kernel '" + name + "' loads to " + range + ", over the real-mode IVT and BIOS data area (0-4FFh)");
  if (address < kMiB && address + size > kLowMemoryEnd)
    throw InputError("kernel '" + name + "' loads to " + range +
                     ", over the EBDA, video memory and BIOS area (9FC00h-FFFFFh) that hold x86lab's MP and ACPI tables");
  layout.segments.push_back({static_cast<u32>(address), static_cast<u32>(address + size)});
}

bool overlaps(const MultibootLayout& layout, u32 begin, u32 end) {
  for (const auto& [b, e] : layout.segments)
    if (b < end && begin < e) return true;
  return false;
}

// The GDT page, the information page, the command-line page and the stack: the usual
// places (kBootGdtAddress.., kBootStackTop) unless the kernel is there, else the
// lowest four free pages below the EBDA.
void place_boot_structures(MultibootLayout& layout, const std::string& name) {
  if (!overlaps(layout, kBootGdtAddress, kCommandLineAddress + kPage) && !overlaps(layout, kBootStackTop - kPage, kBootStackTop)) {
    layout.gdt = kBootGdtAddress;
    layout.info = kBootInfoAddress;
    layout.command_line = kCommandLineAddress;
    layout.stack_top = kBootStackTop;
    return;
  }
  for (u32 base = kPage; base + 4 * kPage <= kLowMemoryEnd; base += kPage) {
    if (overlaps(layout, base, base + 4 * kPage)) continue;
    layout.gdt = base;
    layout.info = base + kPage;
    layout.command_line = base + 2 * kPage;
    layout.stack_top = base + 4 * kPage;
    return;
  }
  throw InputError("kernel '" + name + "' leaves no 16 KiB below 640 KiB for the Multiboot information, command line and stack");
}

void load_elf(PhysicalBus& bus, const std::vector<u8>& k, const std::string& name, MultibootLayout& layout) {
  if (k.size() < 52 || k[0] != 0x7F || k[1] != 'E' || k[2] != 'L' || k[3] != 'F')
    throw InputError("kernel '" + name + "' has a Multiboot header but is not ELF and has no address fields");
  if (k[4] != 1 || k[5] != 1 || read_le(k, 18, 2) != 3 || read_le(k, 16, 2) != 2)
    throw InputError("kernel '" + name + "' is not a 32-bit little-endian x86 ELF executable");
  const u32 phoff = read_le(k, 28, 4), phentsize = read_le(k, 42, 2), phnum = read_le(k, 44, 2);
  if (phentsize < 32 || u64{phoff} + u64{phnum} * phentsize > k.size())
    throw InputError("kernel '" + name + "' has program headers outside the file");
  layout.entry = read_le(k, 24, 4);
  layout.load_start = ~0u;
  for (u32 i = 0; i < phnum; ++i) {
    const u32 ph = phoff + i * phentsize;
    if (read_le(k, ph, 4) != 1) continue;  // PT_LOAD only
    const u32 offset = read_le(k, ph + 4, 4), paddr = read_le(k, ph + 12, 4);
    const u32 filesz = read_le(k, ph + 16, 4), memsz = read_le(k, ph + 20, 4);
    if (u64{offset} + filesz > k.size()) throw InputError("kernel '" + name + "' has a segment outside the file");
    check_in_ram(bus, paddr, std::max(filesz, memsz), name, layout);
    bus.load(paddr, std::span<const u8>(k).subspan(offset, filesz));
    for (u32 a = filesz; a < memsz; ++a) bus.poke(paddr + a, 0);
    layout.load_start = std::min(layout.load_start, paddr);
    layout.load_end = std::max(layout.load_end, paddr + std::max(filesz, memsz));
  }
  if (layout.load_start == ~0u) throw InputError("kernel '" + name + "' has no loadable segment");
}

// The a.out kludge: header_addr, load_addr, load_end_addr, bss_end_addr, entry_addr.
void load_by_address_fields(PhysicalBus& bus, const std::vector<u8>& k, long header, const std::string& name,
                            MultibootLayout& layout) {
  const u32 header_addr = read_le(k, header + 12, 4), load_addr = read_le(k, header + 16, 4);
  const u32 load_end_addr = read_le(k, header + 20, 4), bss_end_addr = read_le(k, header + 24, 4);
  layout.entry = read_le(k, header + 28, 4);
  if (load_addr > header_addr || header_addr - load_addr > static_cast<u32>(header))
    throw InputError("kernel '" + name + "' has inconsistent Multiboot address fields");
  const u32 file_offset = static_cast<u32>(header) - (header_addr - load_addr);
  const u32 size = load_end_addr ? load_end_addr - load_addr : static_cast<u32>(k.size()) - file_offset;
  if (u64{file_offset} + size > k.size()) throw InputError("kernel '" + name + "' is shorter than its load_end_addr says");
  const u32 end = std::max(load_addr + size, bss_end_addr);
  check_in_ram(bus, load_addr, end - load_addr, name, layout);
  bus.load(load_addr, std::span<const u8>(k).subspan(file_offset, size));
  for (u32 a = load_addr + size; a < end; ++a) bus.poke(a, 0);
  layout.load_start = load_addr;
  layout.load_end = end;
}
}  // namespace

long find_multiboot_header(const std::vector<u8>& image) {
  const std::size_t limit = std::min<std::size_t>(image.size(), kSearchBytes);
  for (std::size_t offset = 0; offset + 12 <= limit; offset += 4) {
    if (read_le(image, offset, 4) != kMultibootHeaderMagic) continue;
    const u32 flags = read_le(image, offset + 4, 4), checksum = read_le(image, offset + 8, 4);
    if (kMultibootHeaderMagic + flags + checksum == 0) return static_cast<long>(offset);
  }
  return -1;
}

MultibootLayout load_multiboot(Cpu& cpu, PhysicalBus& bus, const MultibootImage& image) {
  const std::vector<u8>& k = image.kernel;
  const std::string& name = image.kernel_name;
  const long header = find_multiboot_header(k);
  if (header < 0) throw InputError("kernel '" + name + "' has no Multiboot header in its first 8 KiB");
  const u32 flags = read_le(k, header + 4, 4);
  // Bits 0-15 are requirements: a loader that cannot honour one must refuse the kernel.
  const u32 understood = kFlagPageAlignModules | kFlagMemoryInfo;
  if ((flags & 0xFFFF) & ~understood)
    throw InputError("kernel '" + name + "' requires Multiboot features x86lab lacks (header flags " +
                     std::to_string(flags & 0xFFFF & ~understood) + ((flags & kFlagVideoMode) ? ": video mode)" : ")"));
  MultibootLayout layout;
  if ((flags & kFlagAddressFields) && static_cast<std::size_t>(header) + 32 <= k.size())
    load_by_address_fields(bus, k, header, name, layout);
  else
    load_elf(bus, k, name, layout);

  place_boot_structures(layout, name);
  write_boot_tables(bus, cpu.profile());

  u32 info_flags = kInfoMemory | kInfoCommandLine | kInfoMemoryMap | kInfoLoaderName;
  const u32 info = layout.info;
  const u32 module_list = info + kModuleList, memory_map = info + kMemoryMap, loader_name = info + kLoaderName,
            module_string = info + kModuleString;
  for (u32 i = 0; i < 0x1000; ++i) bus.poke(info + i, 0);

  if (!image.module.empty()) {
    const u64 size = image.module.size();
    const u64 top = bus.ram_bytes();
    const u64 address = (top - std::min(size, top)) & ~u64{0xFFF};  // page aligned, at the top of RAM
    if (size > top || address < std::max<u64>(layout.load_end, 0x100000))
      throw InputError("initrd '" + image.module_name + "' (" + std::to_string(size) + " bytes) does not fit in RAM above the kernel");
    layout.module_address = static_cast<u32>(address);
    bus.load(layout.module_address, image.module);
    poke32(bus, module_list, layout.module_address);
    poke32(bus, module_list + 4, static_cast<u32>(address + size));
    poke32(bus, module_list + 8, module_string);
    poke_string(bus, module_string, image.module_name);
    poke32(bus, info + 20, 1);            // mods_count
    poke32(bus, info + 24, module_list);  // mods_addr
    info_flags |= kInfoModules;
  }

  const u32 extended_kb = bus.ram_bytes() > 0x100000 ? (bus.ram_bytes() - 0x100000) / 1024 : 0;
  poke32(bus, info + 4, 640);          // mem_lower (KiB)
  poke32(bus, info + 8, extended_kb);  // mem_upper (KiB above 1 MiB)
  if (image.command_line.size() >= 4096) throw InputError("--append is longer than 4095 bytes");
  poke_string(bus, layout.command_line, image.command_line);
  poke32(bus, info + 16, layout.command_line);
  // Memory map entries: size (20, not counting itself), base, length, type.
  const std::vector<MemoryRange> map = pc_memory_map(bus.ram_bytes());
  for (std::size_t i = 0; i < map.size(); ++i) {
    const u32 entry = memory_map + static_cast<u32>(i) * 24;
    poke32(bus, entry, 20);
    poke32(bus, entry + 4, static_cast<u32>(map[i].base));
    poke32(bus, entry + 8, static_cast<u32>(map[i].base >> 32));
    poke32(bus, entry + 12, static_cast<u32>(map[i].length));
    poke32(bus, entry + 16, static_cast<u32>(map[i].length >> 32));
    poke32(bus, entry + 20, map[i].type);
  }
  poke32(bus, info + 44, static_cast<u32>(map.size() * 24));  // mmap_length
  poke32(bus, info + 48, memory_map);                          // mmap_addr
  poke_string(bus, loader_name, kName);
  poke32(bus, info + 64, loader_name);                         // boot_loader_name
  poke32(bus, info, info_flags);

  enter_flat_protected_mode(cpu, bus, layout.entry, layout.gdt, layout.stack_top);
  cpu.state.gpr[EAX] = kMultibootBootloaderMagic;
  cpu.state.gpr[EBX] = info;
  return layout;
}

}  // namespace x86lab
