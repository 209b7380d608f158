// Breakpoints written as text (platform/debugger/breakpoint_spec.h), the notation gdb's
// monitor break-on and the inspector's Breakpoints window share: each kind parses to
// its fields, and bad specs are one line naming the problem.
#include <gtest/gtest.h>

#include "platform/debugger/breakpoint_spec.h"

namespace x86lab {
namespace {

std::string problem_of(const std::string& spec) {
  try {
    parse_breakpoint(spec);
  } catch (const std::invalid_argument& problem) {
    return problem.what();
  }
  return "accepted";
}

TEST(BreakpointSpec, EveryKindParsesToItsFields) {
  const Breakpoint code = parse_breakpoint("code 0x100010");
  EXPECT_EQ(code.kind, BreakpointKind::Linear);
  EXPECT_EQ(code.address, 0x100010u);

  const Breakpoint vectors = parse_breakpoint("vector 32 47");
  EXPECT_EQ(vectors.kind, BreakpointKind::Vector);
  EXPECT_EQ(vectors.address, 32u);
  EXPECT_EQ(vectors.length, 16u);
  EXPECT_EQ(vectors.sources, kSourceAll);

  const Breakpoint fault = parse_breakpoint("fault");
  EXPECT_EQ(fault.address, 0u);
  EXPECT_EQ(fault.length, 32u);
  EXPECT_EQ(fault.sources, kSourceException);

  const Breakpoint lock = parse_breakpoint("lock tss-busy-bit");
  EXPECT_EQ(lock.kind, BreakpointKind::LockedAccess);
  EXPECT_EQ(lock.access, AccessKind::TssBusyBit);

  const Breakpoint load = parse_breakpoint("load ss");
  EXPECT_EQ(load.kind, BreakpointKind::SegmentLoad);
  EXPECT_EQ(load.reg, 2);  // ES CS SS DS FS GS LDTR TR

  const Breakpoint selector = parse_breakpoint("selector 0x2b");
  EXPECT_EQ(selector.kind, BreakpointKind::Selector);
  EXPECT_EQ(selector.selector, 0x2B);
  EXPECT_EQ(selector.selector_mask, 0xFFFC);  // the RPL is ignored

  const Breakpoint write = parse_breakpoint("write idt 14");
  EXPECT_EQ(write.kind, BreakpointKind::DescriptorWrite);
  EXPECT_EQ(write.table, DescriptorTable::Idt);
  EXPECT_EQ(write.entry, std::optional<u16>(14));
  EXPECT_FALSE(parse_breakpoint("write gdt").entry);

  const Breakpoint io = parse_breakpoint("io 0x60 0x64");
  EXPECT_EQ(io.kind, BreakpointKind::IoPort);
  EXPECT_EQ(io.address, 0x60u);
  EXPECT_EQ(io.length, 5u);

  const Breakpoint phys = parse_breakpoint("phys 0xb8000 2 r");
  EXPECT_EQ(phys.kind, BreakpointKind::Watch);
  EXPECT_TRUE(phys.physical);
  EXPECT_EQ(phys.watch, WatchAccess::Read);
  const Breakpoint watch = parse_breakpoint("watch 0x1000 4");
  EXPECT_FALSE(watch.physical);
  EXPECT_EQ(watch.watch, WatchAccess::Write);
  EXPECT_EQ(watch.length, 4u);
}

TEST(BreakpointSpec, ATrailingIfAddsARegisterCondition) {
  const Breakpoint b = parse_breakpoint("vector 14 if cpl==3 && eax!=0");
  EXPECT_EQ(b.kind, BreakpointKind::Vector);
  ASSERT_EQ(b.condition.size(), 2u);
  EXPECT_EQ(b.condition[0].reg, ConditionRegister::Cpl);
  EXPECT_EQ(b.condition[0].value, 3u);
  EXPECT_EQ(b.condition[1].op, CompareOp::NotEqual);
}

TEST(BreakpointSpec, BadSpecsAreOneLineNamingTheProblem) {
  EXPECT_EQ(problem_of("vector 256"), "vectors are 0-255");
  EXPECT_EQ(problem_of("vector 20 10"), "vectors are 0-255");
  EXPECT_EQ(problem_of("io 0x60 0x10000"), "ports are 0-0xffff");
  EXPECT_EQ(problem_of("io 0x64 0x60"), "LAST port is below PORT");
  EXPECT_EQ(problem_of("selector 0x10000"), "selectors are 0-0xffff");
  EXPECT_EQ(problem_of("load xs"), "unknown segment register 'xs'");
  EXPECT_EQ(problem_of("lock data"), "unknown locked access kind 'data' (monitor help lists them)");  // data is no locked kind
  EXPECT_EQ(problem_of("write tss"), "the table is gdt, ldt or idt, not 'tss'");
  EXPECT_EQ(problem_of("watch 0x1000 0"), "a watchpoint watches 1 byte or more");
  EXPECT_EQ(problem_of("phys 0x1000 4 x"), "the access is r, w or a, not 'x'");
  EXPECT_EQ(problem_of("code 12z"), "bad number '12z'");
  EXPECT_EQ(problem_of("jump 10").rfind("usage: ", 0), 0u);
  EXPECT_EQ(problem_of("").rfind("usage: ", 0), 0u);
}

}  // namespace
}  // namespace x86lab
