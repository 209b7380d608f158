// The GUI's command queue (STYLE.md "UI"): windows never change the machine; they post
// commands here, and the session applies them between frames, in order.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "trace/types.h"

namespace x86lab::gui {

enum class CommandKind : u8 {
  Run,               // run until a breakpoint, the end of the run, or Pause (F5)
  Pause,             // stop a running machine at the next frame
  StepInto,          // one instruction (F11)
  StepOver,          // over CALL, INT n and REP strings (F10)
  StepOut,           // to the return of the current function (Shift+F11)
  RunTo,             // run until CS.base + EIP == address
  Restart,           // restart: the machine as at start (image, kernel, counters); breakpoints stay (Ctrl+R)
  ToggleBreakpoint,  // a code breakpoint at linear `address` (F9, click in Disassembly)
  AddBreakpoint,     // the breakpoint `text` describes (platform/debugger/breakpoint_spec.h: "vector 13")
  RemoveBreakpoint,  // breakpoint id `address`
  EnableBreakpoint,  // breakpoint id `address` enabled when `physical`, else disabled
  WriteMemory,       // write `bytes` at `address` (linear, or physical when `physical`); only while paused
  SerialInput,       // bytes typed into the Serial console (`text`)
  GuestKey,          // a PC key to the 8042: bytes = {set 1 make code, extended, released} (VGA text screen)
  LaunchVariant,     // restart on scenario `text` variant `text2` (Scenario launcher)
  RunCompare,        // run all variants of scenario `text` and show the results (Compare view)
  StepBack,          // one instruction back on the snapshot history (F7)
  RunBack,           // back to the latest earlier stop of a breakpoint, or the start of the history (Shift+F5)
  GoToStep,          // to step `steps` of the run (Timeline click), forward or back
  SaveSnapshot,      // write the machine to snapshot file `text` (docs/snapshots.md)
  LoadSnapshot,      // replace the machine by snapshot file `text`; breakpoints stay
};

struct Command {
  CommandKind kind;
  u32 address = 0;
  bool physical = false;
  std::vector<u8> bytes{};
  std::string text{}, text2{};
  u64 steps = 0;  // GoToStep: the target (Cpu::steps)
};

class CommandQueue {
 public:
  void push(Command command) { commands_.push_back(std::move(command)); }
  // Removes and returns the queued commands, oldest first.
  std::vector<Command> take() { return std::exchange(commands_, {}); }
  bool empty() const { return commands_.empty(); }

 private:
  std::vector<Command> commands_;
};

}  // namespace x86lab::gui
