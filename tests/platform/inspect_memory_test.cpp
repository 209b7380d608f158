// The monitor's QEMU-style views (platform/debugger/inspect_memory.h): info registers,
// x/xp with QEMU's /FMT, info tlb and info mem, on the debugger tests' machine
// (debugger_fixture.h), whose program bytes and page tables the tests write.
#include "platform/debugger/inspect_memory.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "debugger_fixture.h"

namespace x86lab {
namespace {

using debugger_test::Fixture;

TEST(InspectMemory, RegistersShowTheGeneralRegistersFlagsSelectorsAndControlRegisters) {
  Fixture f;
  CpuState& s = f.state();
  s.gpr[EAX] = 0x12345678;
  s.eflags = 0x202 | 0x40 | 0x1;  // IF, ZF, CF
  s.segments[DS].selector = 0x50;
  s.segments[DS].cache.base = 0x500;
  const std::string text = describe_registers(s);
  EXPECT_NE(text.find("EAX=12345678 EBX=00000000"), std::string::npos) << text;
  EXPECT_NE(text.find("EIP=00001000 EFL=00000243 [CF ZF IF] IOPL=0 CPL=0"), std::string::npos) << text;
  EXPECT_NE(text.find("DS =0050 00000500 0000FFFF"), std::string::npos) << text;
  EXPECT_NE(text.find("ESP=00008000"), std::string::npos) << text;
  EXPECT_NE(text.find("CR0=60000010"), std::string::npos) << text;  // the reset value (SDM "Processor State After Reset")
}

TEST(InspectMemory, FormatsFollowQemusCountFormatAndSize) {
  const MemoryFormat f = parse_memory_format("/10xb");
  EXPECT_EQ(f.count, 10u);
  EXPECT_EQ(f.format, 'x');
  EXPECT_EQ(f.size, 1u);
  EXPECT_EQ(parse_memory_format("").size, 4u);
  EXPECT_EQ(parse_memory_format("/dh").size, 2u);
  EXPECT_EQ(parse_memory_format("/2c").size, 1u);
  EXPECT_THROW(parse_memory_format("/4z"), std::invalid_argument);
  EXPECT_THROW(parse_memory_format("/0x"), std::invalid_argument);
}

TEST(InspectMemory, XShowsTheProgramBytesInEachSize) {
  Fixture f;  // the program at 1000h: B8 01 00 E8 30 00 40 CD 40 ...
  EXPECT_EQ(describe_memory(*f.debugger, 0x1000, parse_memory_format("/4xb"), false),
            "00001000: 0xB8 0x01 0x00 0xE8\n");
  EXPECT_EQ(describe_memory(*f.debugger, 0x1000, parse_memory_format("/2xw"), true),
            "00001000: 0xE80001B8 0xCD400030\n");
  EXPECT_EQ(describe_memory(*f.debugger, 0x1000, parse_memory_format("/1xg"), false), "00001000: 0xCD400030E80001B8\n");
  EXPECT_EQ(describe_memory(*f.debugger, 0x1002, parse_memory_format("/2dh"), false), "00001002: -6144 48\n");
  EXPECT_EQ(describe_memory(*f.debugger, 0x1006, parse_memory_format("/2c"), false), "00001006: '@' '\\xCD'\n");
  // 17 bytes: a second line at 1010h.
  EXPECT_EQ(describe_memory(*f.debugger, 0x1000, parse_memory_format("/17xb"), false).find("\n00001010: 0x"),
            std::string("00001000:").size() + 16 * 5);
}

// Page directory at 8000h: 4 MiB pages at linear 0 and 400000h (both physical 0,
// writable, supervisor), and a page table at 9000h for linear 800000h-: its entry 1
// maps linear 801000h to physical 1000h, user, read-only, accessed and dirty.
void map_pages(Fixture& f) {
  const u8 pde[] = {0x83, 0x00, 0x00, 0x00, 0x83, 0x00, 0x00, 0x00, 0x07, 0x90, 0x00, 0x00};
  const u8 pte[] = {0x00, 0x00, 0x00, 0x00, 0x65, 0x10, 0x00, 0x00};
  f.machine->bus.load(0x8000, pde);
  f.machine->bus.load(0x9000, pte);
  CpuState& s = f.state();
  s.cr4 |= cr4::PSE;
  s.cr3 = 0x8000;
  s.cr0 |= cr0::PE | cr0::PG;
  f.machine->cpu.sync_paging();
}

TEST(InspectMemory, TlbListsEveryPresentMappingWithItsFlags) {
  Fixture f;
  EXPECT_EQ(describe_page_mappings(*f.debugger, false), "paging is off (CR0.PG=0): linear addresses are physical\n");
  map_pages(f);
  EXPECT_EQ(describe_page_mappings(*f.debugger, false),
            "00000000: 00000000 -S-----W\n"
            "00400000: 00000000 -S-----W\n"
            "00801000: 00001000 --DA--U-\n");
  EXPECT_EQ(describe_page_mappings(*f.debugger, false, 0x400000, 1),
            "00400000: 00000000 -S-----W\n(the first 1 mappings: info tlb ADDR [COUNT] shows more)\n");
  // Through the page table: x at linear 801000h reads the program at physical 1000h.
  EXPECT_EQ(describe_memory(*f.debugger, 0x801000, parse_memory_format("/1xb"), false), "00801000: 0xB8\n");
  EXPECT_EQ(describe_memory(*f.debugger, 0x802000, parse_memory_format("/1xb"), false),
            "00802000: (linear page not present: nothing mapped there)\n");
}

TEST(InspectMemory, MemMergesAdjacentPagesWithTheSameRights) {
  Fixture f;
  map_pages(f);
  EXPECT_EQ(describe_page_mappings(*f.debugger, true),
            "00000000-00800000 00800000 -rw\n"
            "00801000-00802000 00001000 ur-\n");
}

}  // namespace
}  // namespace x86lab
