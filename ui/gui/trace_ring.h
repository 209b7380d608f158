// The Trace window's memory: the last N trace events of the machine (trace/event.h),
// kept by a sink on the machine's tracer, and what the last instruction touched (for
// the "touched" mark of the Descriptor tables window).
#pragma once
#include <boost/circular_buffer.hpp>
#include <vector>

#include "trace/sink.h"

namespace x86lab::gui {

class TraceRing : public TraceSink {
 public:
  // Keeps the last `capacity` events (at least 1).
  explicit TraceRing(std::size_t capacity = 4096) : events_(capacity ? capacity : 1) {}

  void write(const Event& event) override;
  void finish() override {}

  const boost::circular_buffer<Event>& events() const { return events_; }
  void clear() { events_.clear(); }
  // Events of the last instruction (or delivery) that produced any, oldest first.
  std::vector<Event> last_instruction_events() const;
  // True when an event of the last instruction accessed a byte of the linear range
  // [linear, linear + size) (memory accesses by any kind, locked or not).
  bool last_instruction_touched(u32 linear, u32 size) const;

 private:
  boost::circular_buffer<Event> events_;
};

// True for a memory access the bus performed locked (explicit LOCK or an implied lock).
constexpr bool is_locked_access(const Event& event) {
  return event.kind == EventKind::MemoryAccess && (event.flags & kEventLocked);
}

}  // namespace x86lab::gui
