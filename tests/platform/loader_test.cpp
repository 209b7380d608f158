// Direct kernel loaders on small synthetic images: a fake bzImage setup header
// (Linux boot.rst field offsets, the 32-bit boot protocol's entry state and
// boot_params layout from zero-page.rst) and Multiboot 1 kernels (the specification's
// header, machine state and boot information offsets), plus the bad-input errors.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "cpu/cpu.h"
#include "platform/input_error.h"
#include "platform/loaders/kernel_loader.h"
#include "platform/loaders/linux_boot.h"
#include "platform/loaders/multiboot.h"

namespace x86lab {
namespace {

struct LoaderFixture : ::testing::Test {
  Counters counters;
  PhysicalBus bus{64u << 20, counters};
  PortBus ports{counters};
  Mmu mmu{bus};
  Cpu cpu{mmu, ports, counters, default_profile()};

  u32 peek32(u32 address) {
    u32 value = 0;
    for (unsigned i = 0; i < 4; ++i) value |= u32{bus.peek(address + i)} << (8 * i);
    return value;
  }
  std::string peek_string(u32 address) {
    std::string text;
    while (char c = static_cast<char>(bus.peek(address++))) text += c;
    return text;
  }
};

void put(std::vector<u8>& image, std::size_t offset, unsigned size, u64 value) {
  for (unsigned i = 0; i < size; ++i) image[offset + i] = static_cast<u8>(value >> (8 * i));
}

// A bzImage of 4 setup sectors plus the boot sector, then `payload` bytes of kernel.
std::vector<u8> fake_bzimage(u16 version = 0x020F, u32 init_size = 0x20000, std::size_t payload = 8192) {
  std::vector<u8> image(5 * 512 + payload, 0);
  image[0x1F1] = 4;                      // setup_sects
  put(image, 0x1FE, 2, 0xAA55);          // boot_flag
  image[0x200] = 0xEB;                   // jump over the header...
  image[0x201] = 0x66;                   // ...which ends at 202h + 66h
  put(image, 0x202, 4, 0x53726448);      // "HdrS"
  put(image, 0x206, 2, version);
  image[0x211] = 0x01;                   // LOADED_HIGH
  put(image, 0x214, 4, 0x100000);        // code32_start
  put(image, 0x22C, 4, 0x7FFFFFFF);      // initrd_addr_max
  put(image, 0x230, 4, 0x1000000);       // kernel_alignment
  image[0x234] = 0;                      // not relocatable
  put(image, 0x238, 4, 2047);            // cmdline_size
  put(image, 0x260, 4, init_size);       // init_size
  for (std::size_t i = 0; i < payload; ++i) image[5 * 512 + i] = static_cast<u8>(i * 7);
  return image;
}

TEST_F(LoaderFixture, BzImageKernelGoesTo1MiBAndCpuEntersFlatProtectedMode) {
  const std::vector<u8> kernel = fake_bzimage();
  const LinuxBootLayout layout = load_linux(cpu, bus, {kernel, "bz", {}, "", "console=ttyS0"});
  EXPECT_EQ(layout.protocol, 0x020F);
  EXPECT_EQ(layout.kernel_address, 0x100000u);
  for (u32 i = 0; i < 8192; i += 511) EXPECT_EQ(bus.peek(0x100000 + i), static_cast<u8>(i * 7));
  const CpuState& s = cpu.state;
  EXPECT_EQ(s.eip, 0x100000u);
  EXPECT_EQ(s.cr0 & 0x80000001u, 1u);  // PE on, PG off
  EXPECT_EQ(s.eflags & flag::IF, 0u);
  EXPECT_EQ(s.segments[CS].selector, 0x10);
  EXPECT_EQ(s.segments[DS].selector, 0x18);
  EXPECT_EQ(s.segments[SS].selector, 0x18);
  EXPECT_EQ(s.segments[ES].selector, 0x18);
  EXPECT_EQ(s.segments[CS].cache.base, 0u);
  EXPECT_EQ(s.segments[CS].cache.limit, 0xFFFFFFFFu);
  EXPECT_TRUE(s.segments[CS].cache.db);
  EXPECT_EQ(s.segments[DS].cache.limit, 0xFFFFFFFFu);
  EXPECT_EQ(s.gpr[ESI], layout.boot_params);
  EXPECT_EQ(s.gpr[EBX] | s.gpr[EBP] | s.gpr[EDI], 0u);
  // The GDT the protocol requires: flat code at 10h, flat data at 18h.
  EXPECT_EQ(peek32(s.gdtr.base + 0x10) | u64{peek32(s.gdtr.base + 0x14)} << 32, 0x00CF9B000000FFFFull);
  EXPECT_EQ(peek32(s.gdtr.base + 0x18) | u64{peek32(s.gdtr.base + 0x1C)} << 32, 0x00CF93000000FFFFull);
}

TEST_F(LoaderFixture, BootParamsCarryHeaderLoaderTypeCommandLineAndE820) {
  const std::vector<u8> kernel = fake_bzimage();
  const LinuxBootLayout layout = load_linux(cpu, bus, {kernel, "bz", {}, "", "console=ttyS0 panic=-1"});
  const u32 bp = layout.boot_params;
  EXPECT_EQ(peek32(bp + 0x202), 0x53726448u);  // setup header copied
  EXPECT_EQ(bus.peek(bp + 0x1F1), 4);
  EXPECT_EQ(bus.peek(bp + 0x210), 0xFF);       // type_of_loader: undefined
  EXPECT_EQ(bus.peek(bp + 0x211) & 1, 1);
  EXPECT_EQ(peek_string(peek32(bp + 0x228)), "console=ttyS0 panic=-1");
  EXPECT_EQ(peek32(bp + 0x1E0), 63u * 1024);   // alt_mem_k: RAM above 1 MiB
  const u8 entries = bus.peek(bp + 0x1E8);
  ASSERT_EQ(entries, 4);
  // Last entry: usable RAM from 1 MiB to 64 MiB.
  const u32 last = bp + 0x2D0 + 3 * 20;
  EXPECT_EQ(peek32(last), 0x100000u);
  EXPECT_EQ(peek32(last + 8), 63u << 20);
  EXPECT_EQ(peek32(last + 16), 1u);
  EXPECT_EQ(peek32(bp + 0x2D0 + 8), 0x9FC00u);  // first entry: conventional memory
  EXPECT_EQ(bus.peek(bp + 0x06), 3);            // screen_info: text mode 3
  EXPECT_EQ(bus.peek(bp + 0x07), 80);
  EXPECT_EQ(bus.peek(bp + 0x0E), 25);
}

TEST_F(LoaderFixture, InitrdGoesPageAlignedToTheTopOfRam) {
  const std::vector<u8> kernel = fake_bzimage();
  std::vector<u8> initrd(10000, 0xA5);
  const LinuxBootLayout layout = load_linux(cpu, bus, {kernel, "bz", initrd, "rd", ""});
  EXPECT_EQ(layout.initrd_address, ((64u << 20) - 10000) & ~0xFFFu);
  EXPECT_EQ(peek32(layout.boot_params + 0x218), layout.initrd_address);
  EXPECT_EQ(peek32(layout.boot_params + 0x21C), 10000u);
  EXPECT_EQ(bus.peek(layout.initrd_address + 9999), 0xA5);
}

TEST_F(LoaderFixture, InitrdStaysBelowInitrdAddrMax) {
  std::vector<u8> kernel = fake_bzimage();
  put(kernel, 0x22C, 4, 0x00FFFFFF);  // 16 MiB limit
  const LinuxBootLayout layout = load_linux(cpu, bus, {kernel, "bz", std::vector<u8>(4096, 1), "rd", ""});
  EXPECT_EQ(layout.initrd_address, 0x00FFF000u);
}

TEST_F(LoaderFixture, RelocatableKernelReservesItsPreferredAddressPlusInitSize) {
  std::vector<u8> kernel = fake_bzimage(0x020F, 0x1000000);
  kernel[0x234] = 1;
  put(kernel, 0x258, 8, 0x1000000);  // pref_address 16 MiB
  const LinuxBootLayout layout = load_linux(cpu, bus, {kernel, "bz", {}, "", ""});
  EXPECT_EQ(layout.kernel_end, 0x2000000u);
}

void expect_input_error(const std::function<void()>& action, const std::string& part) {
  try {
    action();
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
  }
}

TEST_F(LoaderFixture, NotABzImageIsRejected) {
  std::vector<u8> kernel(4096, 0x90);
  expect_input_error([&] { load_linux(cpu, bus, {kernel, "junk.bin", {}, "", ""}); }, "'junk.bin' is not a bzImage");
  expect_input_error([&] { detect_kernel_format(kernel, "junk.bin"); }, "neither a bzImage");
}

TEST_F(LoaderFixture, OldBootProtocolIsRejected) {
  expect_input_error([&] { load_linux(cpu, bus, {fake_bzimage(0x0201), "old", {}, "", ""}); }, "boot protocol 2.01");
}

TEST_F(LoaderFixture, ZImageIsRejected) {
  std::vector<u8> kernel = fake_bzimage();
  kernel[0x211] = 0;
  expect_input_error([&] { load_linux(cpu, bus, {kernel, "z", {}, "", ""}); }, "zImage");
}

TEST_F(LoaderFixture, KernelNeedingMoreRamThanTheMachineHasIsRejected) {
  expect_input_error([&] { load_linux(cpu, bus, {fake_bzimage(0x020F, 80u << 20), "big", {}, "", ""}); },
                     "'big' needs 81 MiB of RAM");
}

TEST_F(LoaderFixture, InitrdTooLargeIsRejected) {
  expect_input_error([&] { load_linux(cpu, bus, {fake_bzimage(), "bz", std::vector<u8>(64u << 20), "huge.gz", ""}); },
                     "'huge.gz'");
}

TEST_F(LoaderFixture, CommandLineLongerThanCmdlineSizeIsRejected) {
  expect_input_error([&] { load_linux(cpu, bus, {fake_bzimage(), "bz", {}, "", std::string(3000, 'x')}); }, "--append");
}

TEST_F(LoaderFixture, UnreadableFileIsOneLine) {
  expect_input_error([&] { read_boot_file("/nonexistent/vmlinuz", "kernel", bus.ram_bytes()); },
                     "cannot open kernel '/nonexistent/vmlinuz': No such file or directory");
}

// A Multiboot kernel with the a.out kludge: header at offset 0, loaded at `base` (1 MiB
// by default), 256 bytes of file and bss up to `bss_end` (base + 1000h by default).
std::vector<u8> aout_kludge_kernel(u32 base = 0x100000, u32 bss_end = 0) {
  std::vector<u8> image(256, 0x90);
  const u32 flags = 0x00010003;  // page-align modules, memory info, address fields
  put(image, 0, 4, kMultibootHeaderMagic);
  put(image, 4, 4, flags);
  put(image, 8, 4, static_cast<u32>(-(kMultibootHeaderMagic + flags)));
  put(image, 12, 4, base);                               // header_addr
  put(image, 16, 4, base);                               // load_addr
  put(image, 20, 4, 0);                                  // load_end_addr: whole file
  put(image, 24, 4, bss_end ? bss_end : base + 0x1000);  // bss_end_addr
  put(image, 28, 4, base + 0x40);                        // entry_addr
  return image;
}

TEST_F(LoaderFixture, MultibootAddressFieldsLoadAndStartTheKernel) {
  bus.poke(0x100F00, 0x77);  // inside the bss: must be zeroed
  const MultibootLayout layout = load_multiboot(cpu, bus, {aout_kludge_kernel(), "mb", {}, "", "hello"});
  EXPECT_EQ(detect_kernel_format(aout_kludge_kernel(), "mb"), KernelFormat::Multiboot);
  EXPECT_EQ(cpu.state.eip, 0x100040u);
  EXPECT_EQ(cpu.state.gpr[EAX], 0x2BADB002u);
  EXPECT_EQ(cpu.state.gpr[EBX], layout.info);
  EXPECT_EQ(cpu.state.eflags & flag::IF, 0u);
  EXPECT_EQ(bus.peek(0x100040), 0x90);
  EXPECT_EQ(bus.peek(0x100F00), 0x00);
  const u32 info = layout.info;
  EXPECT_EQ(peek32(info) & 0x245u, 0x245u);  // mem, cmdline, mmap, loader name
  EXPECT_EQ(peek32(info + 4), 640u);
  EXPECT_EQ(peek32(info + 8), 63u * 1024);
  EXPECT_EQ(peek_string(peek32(info + 16)), "hello");
  EXPECT_EQ(peek32(info + 44), 4u * 24);
  const u32 mmap = peek32(info + 48);
  EXPECT_EQ(peek32(mmap), 20u);  // entry size without the size field
  EXPECT_EQ(peek32(mmap + 3 * 24 + 4), 0x100000u);
  EXPECT_EQ(peek32(mmap + 3 * 24 + 20), 1u);
  EXPECT_EQ(peek_string(peek32(info + 64)), "x86lab");
}

TEST_F(LoaderFixture, MultibootModuleIsTheInitrd) {
  const MultibootLayout layout =
      load_multiboot(cpu, bus, {aout_kludge_kernel(), "mb", std::vector<u8>(5000, 3), "rd.img", ""});
  EXPECT_EQ(peek32(layout.info) & 0x8u, 0x8u);
  EXPECT_EQ(peek32(layout.info + 20), 1u);
  const u32 module = peek32(layout.info + 24);
  EXPECT_EQ(peek32(module), layout.module_address);
  EXPECT_EQ(peek32(module + 4), layout.module_address + 5000);
  EXPECT_EQ(layout.module_address % 4096, 0u);
  EXPECT_EQ(peek_string(peek32(module + 8)), "rd.img");
}

TEST_F(LoaderFixture, MultibootVideoModeRequirementIsRejected) {
  std::vector<u8> image = aout_kludge_kernel();
  const u32 flags = 0x00010007;
  put(image, 4, 4, flags);
  put(image, 8, 4, static_cast<u32>(-(kMultibootHeaderMagic + flags)));
  expect_input_error([&] { load_multiboot(cpu, bus, {image, "vid", {}, "", ""}); }, "video mode");
}

TEST_F(LoaderFixture, MultibootHeaderWithBadChecksumIsNotFound) {
  std::vector<u8> image = aout_kludge_kernel();
  put(image, 8, 4, 0);
  EXPECT_EQ(find_multiboot_header(image), -1);
}

TEST_F(LoaderFixture, MultibootElfKernelFromRomsLoadsAtItsSegments) {
  const std::string path = std::string(X86LAB_ROM_DIR) + "/multiboot/timer_kernel.elf";
  const std::vector<u8> image = read_boot_file(path, "kernel", bus.ram_bytes());
  ASSERT_EQ(detect_kernel_format(image, path), KernelFormat::Multiboot);
  const MultibootLayout layout = load_multiboot(cpu, bus, {image, path, {}, "", ""});
  EXPECT_EQ(layout.load_start, 0x100000u);
  EXPECT_EQ(cpu.state.eip, layout.entry);
  EXPECT_GE(layout.entry, 0x100000u);
  bool header_in_memory = false;
  for (u32 a = layout.load_start; a < layout.load_start + 8192; a += 4) header_in_memory |= peek32(a) == kMultibootHeaderMagic;
  EXPECT_TRUE(header_in_memory);
}

// Kernels below 1 MiB, as QEMU's Multiboot loader takes them: anywhere from 500h to the
// EBDA, with the boot information moved out of their way.
TEST_F(LoaderFixture, MultibootKernelBelow1MiBLoadsAndKeepsTheUsualBootInformation) {
  const MultibootLayout layout = load_multiboot(cpu, bus, {aout_kludge_kernel(0x10000), "low", {}, "", "hi"});
  EXPECT_EQ(cpu.state.eip, 0x10040u);
  EXPECT_EQ(bus.peek(0x10040), 0x90);
  EXPECT_EQ(layout.info, 0x7000u);
  EXPECT_EQ(cpu.state.gpr[EBX], 0x7000u);
  EXPECT_EQ(cpu.state.gdtr.base, 0x6000u);
  EXPECT_EQ(cpu.state.gpr[ESP], 0x9F000u);
  EXPECT_EQ(peek_string(peek32(layout.info + 16)), "hi");
}

TEST_F(LoaderFixture, MultibootKernelOverTheUsualPlacesGetsItsBootInformationElsewhere) {
  // 5000h-9EFFFh: over the GDT, information and command-line pages and the stack.
  const MultibootLayout layout = load_multiboot(cpu, bus, {aout_kludge_kernel(0x5000, 0x9F000), "wide", {}, "", "cmd"});
  for (const u32 page : {layout.gdt, layout.info, layout.command_line, layout.stack_top - 0x1000}) {
    EXPECT_TRUE(page + 0x1000 <= 0x5000 || page >= 0x9F000) << std::hex << page;
    EXPECT_GE(page, 0x500u);
  }
  EXPECT_EQ(cpu.state.gdtr.base, layout.gdt);
  EXPECT_EQ(cpu.state.gpr[EBX], layout.info);
  EXPECT_EQ(cpu.state.gpr[ESP], layout.stack_top);
  EXPECT_EQ(peek_string(peek32(layout.info + 16)), "cmd");
  EXPECT_EQ(peek32(layout.info + 4), 640u);
  EXPECT_EQ(bus.peek(0x5040), 0x90);     // the kernel's bytes are intact
  EXPECT_EQ(bus.peek(0x7000), 0x00);     // and its bss zeroed, not an information page
  EXPECT_EQ(bus.peek(0x9EFFF), 0x00);
}

// A minimal ELF32 x86 executable with a Multiboot header (no address fields) and one
// PT_LOAD segment of `memsz` bytes at `paddr`, the first 256 of them from the file
// (ELF header 52 bytes, one program header at 52, the segment's bytes at 100h).
std::vector<u8> elf_kernel(u32 paddr, u32 memsz) {
  std::vector<u8> image(0x200, 0);
  image[0] = 0x7F; image[1] = 'E'; image[2] = 'L'; image[3] = 'F';
  image[4] = 1; image[5] = 1; image[6] = 1;  // ELFCLASS32, little-endian, version 1
  put(image, 16, 2, 2);         // ET_EXEC
  put(image, 18, 2, 3);         // EM_386
  put(image, 20, 4, 1);
  put(image, 24, 4, paddr + 0x20);  // e_entry
  put(image, 28, 4, 52);        // e_phoff
  put(image, 40, 2, 52);        // e_ehsize
  put(image, 42, 2, 32);        // e_phentsize
  put(image, 44, 2, 1);         // e_phnum
  put(image, 52, 4, 1);         // PT_LOAD
  put(image, 56, 4, 0x100);     // p_offset
  put(image, 60, 4, paddr);     // p_vaddr
  put(image, 64, 4, paddr);     // p_paddr
  put(image, 68, 4, 0x100);     // p_filesz
  put(image, 72, 4, memsz);     // p_memsz
  put(image, 76, 4, 5);         // R X
  const u32 flags = 0x00000003;
  put(image, 0x100, 4, kMultibootHeaderMagic);
  put(image, 0x104, 4, flags);
  put(image, 0x108, 4, static_cast<u32>(-(kMultibootHeaderMagic + flags)));
  for (u32 i = 0x10C; i < 0x200; ++i) image[i] = 0x90;
  return image;
}

TEST_F(LoaderFixture, MultibootElfKernelBelow1MiBWithItsBssOverTheUsualPlacesLoads) {
  // 6000h-6FFFh from the file, bss to 9FBFFh: the usual boot pages and stack are taken.
  bus.poke(0x9F000, 0x55);
  const MultibootLayout layout = load_multiboot(cpu, bus, {elf_kernel(0x6000, 0x99C00), "elf", {}, "", "x"});
  EXPECT_EQ(cpu.state.eip, 0x6020u);
  EXPECT_EQ(peek32(0x6000), kMultibootHeaderMagic);
  EXPECT_EQ(bus.peek(0x9F000), 0);  // bss zeroed
  EXPECT_EQ(layout.gdt, 0x1000u);
  EXPECT_EQ(layout.info, 0x2000u);
  EXPECT_EQ(layout.command_line, 0x3000u);
  EXPECT_EQ(layout.stack_top, 0x5000u);
  EXPECT_EQ(peek_string(peek32(layout.info + 16)), "x");
}

TEST_F(LoaderFixture, MultibootKernelOverTheIvtAndBiosDataAreaIsRejected) {
  expect_input_error([&] { load_multiboot(cpu, bus, {aout_kludge_kernel(0x400), "ivt", {}, "", ""}); },
                     "kernel 'ivt' loads to 400h-1400h, over the real-mode IVT and BIOS data area (0-4FFh)");
}

TEST_F(LoaderFixture, MultibootKernelOverTheBiosAreaAndItsTablesIsRejected) {
  expect_input_error([&] { load_multiboot(cpu, bus, {aout_kludge_kernel(0x9F000), "ebda", {}, "", ""}); },
                     "over the EBDA, video memory and BIOS area (9FC00h-FFFFFh)");
  expect_input_error([&] { load_multiboot(cpu, bus, {aout_kludge_kernel(0xF0000), "bios", {}, "", ""}); }, "9FC00h-FFFFFh");
}

TEST_F(LoaderFixture, MultibootKernelLeavingNoRoomBelow640KiBIsRejected) {
  expect_input_error([&] { load_multiboot(cpu, bus, {aout_kludge_kernel(0x1000, 0x9F000), "full", {}, "", ""}); },
                     "leaves no 16 KiB below 640 KiB");
}

TEST_F(LoaderFixture, BothLoadersWriteTheMpAndAcpiTables) {
  load_multiboot(cpu, bus, {aout_kludge_kernel(), "mb", {}, "", ""});
  EXPECT_EQ(peek32(0xF0000), 0x5F504D5Fu);  // "_MP_"
  for (u32 a = 0xF0000; a < 0xF1000; ++a) bus.poke(a, 0);
  load_linux(cpu, bus, {fake_bzimage(), "bz", {}, "", ""});
  EXPECT_EQ(peek32(0xF0000), 0x5F504D5Fu);
  EXPECT_EQ(peek32(0xF0010), 0x20445352u);  // "RSD "
}

}  // namespace
}  // namespace x86lab
