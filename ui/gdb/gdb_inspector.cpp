// The gdb stub inside the inspector's frame loop (gdb_inspector.h).
#include "ui/gdb/gdb_inspector.h"

namespace x86lab::gdb {

bool InspectorLink::running() const {
  const gui::RunState state = session_.run_state();
  return state == gui::RunState::Running || state == gui::RunState::Busy;
}

InspectorLink::Frame InspectorLink::serve() {
  if (session_.run_state() != gui::RunState::Busy) server_.poll(*this);
  Frame frame;
  frame.hold = server_.attached() || (server_.wait_for_gdb() && !server_.session_ended());
  frame.quit = server_.killed();
  return frame;
}

}  // namespace x86lab::gdb
