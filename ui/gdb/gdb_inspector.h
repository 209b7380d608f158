// `x86lab gui --gdb`: the stub served from the inspector's frame loop, on the machine
// the inspector shows (docs/gdb.md "With the inspector"). The frame loop's thread stays
// the one owner of the machine: once per frame it lets GdbServer::poll answer what gdb
// sent, and gdb's continue, step and Ctrl-C become the session's own Run, Step into
// and Pause commands, so the windows show what gdb does and a stop made in the
// inspector (Pause, a breakpoint, a step) is gdb's stop reply.
#pragma once
#include "ui/gdb/gdb_server.h"
#include "ui/gui/session.h"

namespace x86lab::gdb {

class InspectorLink final : public GdbTarget {
 public:
  InspectorLink(gui::Session& session, GdbServer& server) : session_(session), server_(server) {}

  // What the frame loop must do after serve().
  struct Frame {
    bool hold = false;  // gdb is attached, or awaited (--wait-gdb, no session yet): scripts wait, offscreen stays open
    bool quit = false;  // gdb killed the machine: close the inspector
  };
  // Serves gdb once; call once per frame after the session's commands and tick. While
  // a worker runs the machine (step over/out, run to) packets wait for the next frame.
  Frame serve();

  // GdbTarget: the session's commands.
  void run() override { session_.apply({gui::CommandKind::Run}); }
  void halt() override { session_.apply({gui::CommandKind::Pause}); }
  void step() override { session_.apply({gui::CommandKind::StepInto}); }
  void release() override {}  // the machine stays where gdb left it: the inspector's user decides
  bool running() const override;
  StopInfo last_stop() const override { return session_.debugger().last_stop(); }

 private:
  gui::Session& session_;
  GdbServer& server_;
};

}  // namespace x86lab::gdb
