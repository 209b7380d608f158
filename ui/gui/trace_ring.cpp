// The last-N-events ring of the Trace window.
#include "ui/gui/trace_ring.h"

#include <iterator>

namespace x86lab::gui {

void TraceRing::write(const Event& event) {
  events_.push_back(event);
  code32_.push_back(event.kind == EventKind::Instruction && cpu_ ? code_is_32bit(*cpu_) : true);
}

ExecutedCode TraceRing::executed_code() const {
  ExecutedCode code;
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const Event& event = events_[i];
    if (event.kind == EventKind::Instruction)
      code[event.c] = {static_cast<u16>(event.a), event.b, event.size, code32_[i]};
  }
  return code;
}

std::vector<Event> TraceRing::last_instruction_events() const {
  std::vector<Event> last;
  if (events_.empty()) return last;
  const u64 instruction = events_.back().instruction;
  auto it = events_.end();
  while (it != events_.begin() && std::prev(it)->instruction == instruction) --it;
  last.assign(it, events_.end());
  return last;
}

bool TraceRing::last_instruction_touched(u32 linear, u32 size) const {
  for (const Event& event : last_instruction_events()) {
    if (event.kind != EventKind::MemoryAccess) continue;
    const u64 begin = event.a, end = u64{event.a} + event.size;
    if (begin < u64{linear} + size && end > linear) return true;
  }
  return false;
}

}  // namespace x86lab::gui
