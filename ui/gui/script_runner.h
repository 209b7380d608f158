// The runner of `x86lab gui --script` (docs/gui.md "Scripts"): the script's commands
// one after another between frames; those that need frames drawn (frames, captures,
// input given to the input queue) hold the next one back.
#pragma once
#include <imgui.h>

#include <memory>
#include <string>
#include <vector>

#include "ui/gui/input_queue.h"
#include "ui/gui/script.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

// The open or closed window titled `title`, or null.
Window* find_window(const std::vector<std::unique_ptr<Window>>& windows, const std::string& title);

class ScriptRunner {
 public:
  explicit ScriptRunner(const std::vector<ScriptCommand>& commands) : commands_(commands) {}

  bool finished() const { return next_ >= commands_.size() && waiting_ == 0 && !capture_; }
  bool quit() const { return quit_; }
  // The capture to take in this frame, if its settle frames have passed.
  const ScriptCommand* capture_now() const { return capture_ && waiting_ == 0 ? capture_ : nullptr; }
  void captured() { capture_ = nullptr; }
  // Gives the window a `focus` command named the focus (inside a frame, before drawing).
  void apply_focus() {
    if (focus_.empty()) return;
    ImGui::SetWindowFocus(focus_.c_str());
    focus_.clear();
  }

  // Before a frame: runs commands until one needs frames drawn. Input the script typed
  // or clicked (into `input`) is all handed to frames before the next command runs.
  void advance(Session& session, UiState& ui, std::vector<std::unique_ptr<Window>>& windows, InputQueue& input) {
    if (waiting_ > 0 || capture_ || quit_ || !input.empty()) return;
    while (next_ < commands_.size()) {
      const ScriptCommand& c = commands_[next_++];
      if (run(c, session, ui, windows, input)) return;
    }
  }
  // After a frame.
  void frame_done() {
    if (waiting_ > 0) --waiting_;
  }

 private:
  // True when the command needs frames before the next one.
  bool run(const ScriptCommand& c, Session& session, UiState& ui, std::vector<std::unique_ptr<Window>>& windows,
           InputQueue& input);

  const std::vector<ScriptCommand>& commands_;
  std::size_t next_ = 0;
  int waiting_ = 0;
  const ScriptCommand* capture_ = nullptr;
  bool quit_ = false;
  std::string focus_;
};


}  // namespace x86lab::gui
