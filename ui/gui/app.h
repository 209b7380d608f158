// The inspector's SDL2 window and frame loop (docs/toolchain.md section 1): Dear ImGui
// 1.86 on the SDL_Renderer backend with the software renderer, so the same pixels come
// out on a desktop, under Xvfb and offscreen (SDL_VIDEODRIVER=offscreen, CI). Draws the
// windows over the session, turns shortcuts into commands, runs a script, takes PNG
// screenshots and text dumps, and keeps the window layout in a per-user ini file.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "ui/gui/script.h"
#include "ui/gui/session.h"

namespace x86lab::gui {

// What a service run between frames (x86lab gui --gdb) asks of the frame loop.
struct ServiceState {
  bool hold = false;  // the script waits and the offscreen inspector stays open (a gdb attached or awaited)
  bool quit = false;  // close now
};

struct AppOptions {
  int width = 1600, height = 1000;       // window size in pixels
  std::vector<ScriptCommand> script;     // run before handing over to the user (empty: none)
  bool script_given = false;             // --script was used: no layout file, quit at the end offscreen
  bool start_running = false;            // --run: Run at the first frame
  std::optional<std::filesystem::path> layout_file;  // ImGui ini; empty: the layout is not saved
  u64 max_frames = 0;                    // stop after this many frames (0: no limit; the FPS benchmark)
  double guest_seconds_per_frame = 0.08; // most wall time the guest may run per frame while Running (about 10 frames/s at least)
  // Called before the first frame and after each frame's commands and guest slice, on
  // the frame loop's thread (may be empty). Offscreen, a service keeps the inspector
  // open as a script does, until the service stops holding it.
  std::function<ServiceState(Session&)> service;
};

// Frame statistics (for bench/gui_fps).
struct AppStats {
  u64 frames = 0;
  double seconds = 0;       // wall time of the frame loop
  u64 guest_steps = 0;      // steps the guest ran during the loop
  int signal = 0;           // SIGINT or SIGTERM ended the loop (0: the window closed, quit, a script's end)
};

// Opens the window and runs until it is closed or `quit`. Throws InputError for a
// script command that cannot be carried out (an unknown window title, a screenshot
// path that cannot be written) and std::runtime_error when SDL cannot start.
AppStats run_app(Session& session, const AppOptions& options);

// Ends the frame loop's idle wait at once (any thread; nothing when no loop runs), so
// that a service's input is handled without waiting for the next idle frame.
void wake_frame_loop();

// The per-user layout file: $XDG_CONFIG_HOME/x86lab/gui-layout.ini, else
// ~/.config/x86lab/gui-layout.ini; empty when neither can be determined. The folder is
// created on demand.
std::optional<std::filesystem::path> default_layout_file();

}  // namespace x86lab::gui
