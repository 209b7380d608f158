// `x86lab gui --script FILE`: a list of inspector commands run one after another between
// frames, for tests and teaching material (docs/gui.md "Scripts"). One command per
// line; '#' starts a comment. Addresses are hex (1000, 0x1000 or 1000h), counts decimal.
//   step [N]            step into N instructions (default 1)
//   over | out          step over / step out
//   run-to ADDR         run until CS.base + EIP == ADDR (linear)
//   run [N]             run until a breakpoint or the end (at most N steps)
//   back [N]            step back N instructions (default 1) on the snapshot history
//   run-back            back to the latest earlier breakpoint stop (or the history's start)
//   goto STEP           to step STEP of the run (Cpu::steps, decimal), forward or back
//   snapshot save FILE | snapshot load FILE   write the machine to / replace it by a snapshot file
//   break ADDR          code breakpoint at linear ADDR
//   break vector N      stop after the delivery of exception/interrupt vector N (0-255)
//   break-on SPEC       any breakpoint as gdb's monitor break-on writes it ("lock accessed-bit",
//                       "io 0x60", platform/debugger/breakpoint_spec.h)
//   memory ADDR [physical]   show ADDR in the Memory window
//   walk ADDR           translate ADDR in the Page walk window
//   open NAME | close NAME   show or hide a window by its title ("Page walk")
//   click X Y           a left click at window pixel X,Y (motion, press and release at once)
//   drag X1 Y1 X2 Y2    a left-button drag from window pixel X1,Y1 to X2,Y2
//   type TEXT           the keys that type TEXT (US layout; "\n" is Return), as quick taps
//   focus TITLE         give a window the focus (the VGA text screen: keys go to the guest)
//   key NAME [N]        N quick taps (default 1) of key NAME as SDL names it ("F11",
//                       "Return", "A"), with "Shift+", "Ctrl+", "Alt+" in front for modifiers
//   compare SCENARIO    run every variant of a scenario for the Compare view (waits)
//   frames N            draw N more frames
//   screenshot PATH     write the window as PNG
//   screenshot-window PATH TITLE   write one window's part of it (PATH without spaces)
//   place X Y W H TITLE  put a window at X,Y (pixels) with outer size WxH (opens it)
//   dump PATH           write the text of every open window
//   quit                close the inspector (exit status 0)
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "trace/types.h"

namespace x86lab::gui {

enum class ScriptVerb : u8 { Step, Back, RunBack, GoTo, SnapshotSave, SnapshotLoad, Over, Out, RunTo, Run, Break, BreakVector, BreakOn, Memory, Walk, Open, Close, Click, Drag, Key, Type, Focus, Compare,
                             Frames, Screenshot, ScreenshotWindow, Place, Dump, Quit };

struct ScriptCommand {
  ScriptVerb verb;
  u64 number = 0;       // step/run count, address, vector, frames, X
  u64 number2 = 0;      // click Y; key: the modifiers (SDL KMOD_* bits)
  u64 number3 = 0, number4 = 0;  // drag X2 Y2; place W H
  bool flag = false;    // memory: physical; run: a count was given
  std::string text{};   // path or window title; key: the key's SDL name
  std::string title{};  // screenshot-window and place: the window's title
  unsigned line = 0;    // line number in the file (1-based)
};

// Parses script text; `name` names the file in errors. Throws InputError with one line
// "script 'NAME' line N: <problem>" for an unknown command or a bad argument.
std::vector<ScriptCommand> parse_script(const std::string& text, const std::string& name);
// Reads and parses a script file (InputError when it cannot be read).
std::vector<ScriptCommand> load_script(const std::filesystem::path& path);

}  // namespace x86lab::gui
