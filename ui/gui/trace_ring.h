// The Trace window's memory: the last N trace events of the machine (trace/event.h),
// kept by a sink on the machine's tracer, and what the last instruction touched (for
// the "touched" mark of the Descriptor tables window), and where the instructions in it
// ran (for the Disassembly window: the code size of code that ran in another mode).
#pragma once
#include <boost/circular_buffer.hpp>
#include <vector>

#include "trace/sink.h"
#include "ui/gui/disassembly_model.h"

namespace x86lab::gui {

class TraceRing : public TraceSink {
 public:
  // Keeps the last `capacity` events (at least 1). `cpu` (may be null) is read at each
  // Instruction event for CS's code size then.
  explicit TraceRing(std::size_t capacity = 4096, const CpuState* cpu = nullptr)
      : events_(capacity ? capacity : 1), code32_(capacity ? capacity : 1), cpu_(cpu) {}

  void write(const Event& event) override;
  void finish() override {}

  const boost::circular_buffer<Event>& events() const { return events_; }
  void clear() {
    events_.clear();
    code32_.clear();
  }
  // Events of the last instruction (or delivery) that produced any, oldest first.
  std::vector<Event> last_instruction_events() const;
  // True when an event of the last instruction accessed a byte of the linear range
  // [linear, linear + size) (memory accesses by any kind, locked or not).
  bool last_instruction_touched(u32 linear, u32 size) const;
  // The Instruction events kept, by linear address (the latest at each).
  ExecutedCode executed_code() const;

 private:
  boost::circular_buffer<Event> events_;
  boost::circular_buffer<bool> code32_;  // beside each event: CS's code size after it (Instruction events)
  const CpuState* cpu_;
};

// True for a memory access the bus performed locked (explicit LOCK or an implied lock).
constexpr bool is_locked_access(const Event& event) {
  return event.kind == EventKind::MemoryAccess && (event.flags & kEventLocked);
}

}  // namespace x86lab::gui
