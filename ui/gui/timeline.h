// The Control window's Timeline (docs/gui.md "Going back"): the run's steps
// (Cpu::steps) with marks where the inspector saw a fault delivered, a task switch or a
// mode change (CR0.PE or CR0.PG written with a new value). The marks come from the
// trace events of the steps the inspector observes (single steps, the recorded tail of
// each run slice, every step under --trace), so a long run on the fast path leaves
// marks only near its stops.
#pragma once
#include <set>

#include "cpu/cpu.h"
#include "trace/sink.h"

namespace x86lab::gui {

enum class TimelineMarkKind : u8 { Fault, TaskSwitch, ModeChange };

struct TimelineMark {
  u64 step = 0;  // Cpu::steps before the instruction or delivery that made it
  TimelineMarkKind kind = TimelineMarkKind::Fault;
  auto operator<=>(const TimelineMark&) const = default;
};

struct Timeline {
  std::set<TimelineMark> marks;  // a replay of the same steps adds nothing
  u64 furthest = 0;              // the furthest step the run has reached
  void clear() {
    marks.clear();
    furthest = 0;
  }
};

// The sink that feeds a Timeline from the events of `cpu` (both outlive it).
class TimelineSink final : public TraceSink {
 public:
  TimelineSink(Timeline& timeline, const Cpu& cpu) : timeline_(timeline), cpu_(cpu) {}
  void write(const Event& event) override;
  void finish() override {}

 private:
  Timeline& timeline_;
  const Cpu& cpu_;
};

}  // namespace x86lab::gui
