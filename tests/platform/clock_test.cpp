// The virtual clock: cycle/tick conversions at a given CPU frequency and the order
// in which device events run (DESIGN.md section 5).
#include <gtest/gtest.h>

#include <string>

#include "platform/clock.h"

namespace x86lab {
namespace {

TEST(VirtualClock, TicksFollowCyclesAndFrequency) {
  ModeledClock cpu_clock;
  VirtualClock clock(cpu_clock, 500'000'000);
  EXPECT_EQ(clock.ticks_at(500'000'000, 1'193'182), 1'193'182u);  // one second
  EXPECT_EQ(clock.ns_at(1000), 2000u);                             // 2 ns per cycle at 500 MHz
  EXPECT_EQ(clock.cycle_of_ns(1'000'000), 500'000u);
  // The first cycle at which a PIT tick has elapsed: ceil(500e6 / 1193182) = 420.
  EXPECT_EQ(clock.cycle_of_tick(1, 1'193'182), 420u);
  EXPECT_EQ(clock.ticks_at(419, 1'193'182), 0u);
  EXPECT_EQ(clock.ticks_at(420, 1'193'182), 1u);
}

TEST(VirtualClock, EventsRunInDeadlineOrderWithTiesInRegistrationOrder) {
  ModeledClock cpu_clock;
  VirtualClock clock(cpu_clock, 1'000'000);
  std::string order;
  const auto a = clock.add_event("a", [&] { order += 'a'; });
  const auto b = clock.add_event("b", [&] { order += 'b'; });
  const auto c = clock.add_event("c", [&] { order += 'c'; });
  clock.schedule(c, 10);
  clock.schedule(b, 20);
  clock.schedule(a, 20);
  EXPECT_EQ(clock.next_deadline(), 10u);
  cpu_clock.set_cycles(25);
  EXPECT_EQ(clock.run_due(), 3u);
  EXPECT_EQ(order, "cab");
  EXPECT_EQ(clock.next_deadline(), VirtualClock::kNever);
}

TEST(VirtualClock, NotDueEventsWaitAndCancelledOnesNeverRun) {
  ModeledClock cpu_clock;
  VirtualClock clock(cpu_clock, 1'000'000);
  int runs = 0;
  const auto e = clock.add_event("e", [&] { ++runs; });
  clock.schedule(e, 100);
  cpu_clock.set_cycles(99);
  EXPECT_EQ(clock.run_due(), 0u);
  clock.cancel(e);
  cpu_clock.set_cycles(200);
  EXPECT_EQ(clock.run_due(), 0u);
  EXPECT_EQ(runs, 0);
}

TEST(VirtualClock, EarlierArmingNotifiesTheDeadlineListener) {
  ModeledClock cpu_clock;
  VirtualClock clock(cpu_clock, 1'000'000);
  u64 told = 0;
  clock.set_deadline_listener([&](u64 deadline) { told = deadline; });
  const auto e = clock.add_event("e", [] {});
  const auto f = clock.add_event("f", [] {});
  clock.schedule(e, 500);
  EXPECT_EQ(told, 500u);
  clock.schedule(f, 900);
  EXPECT_EQ(told, 500u);  // later: no need to shorten the CPU's slice
}

TEST(VirtualClock, AdvanceNeverGoesBack) {
  ModeledClock cpu_clock;
  VirtualClock clock(cpu_clock, 1'000'000);
  cpu_clock.set_cycles(50);
  clock.advance_to(10);
  EXPECT_EQ(clock.now(), 50u);
  clock.advance_to(70);
  EXPECT_EQ(clock.now(), 70u);
}

}  // namespace
}  // namespace x86lab
