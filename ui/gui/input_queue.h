// Input events held between frames. Dear ImGui 1.86 (Debian) reads keys and mouse
// buttons as "down now" once per frame, without the event queue that 1.87 added: a key
// pressed and released between two frames (a quick tap, xdotool) or a click shorter than
// a frame was lost. The queue hands each frame the longest run of events in which every
// key and mouse button changes at most once; the rest waits for the next frame.
#pragma once
#include <SDL.h>

#include <array>
#include <deque>
#include <string>
#include <vector>

namespace x86lab::gui {

class InputQueue {
 public:
  // Appends an event (in the order SDL delivered it); a key's autorepeat is appended as
  // its release and a new press.
  void push(const SDL_Event& event);
  bool empty() const { return events_.empty(); }
  std::size_t size() const { return events_.size(); }

  // The events for one frame, oldest first: the longest prefix of the queue in which no
  // key (by scancode) and no mouse button goes down or up twice, the pointer does not
  // move after a button changed and no button is released after the pointer moved (a
  // drag is seen pressed where it starts, then moving, then released). Empty when the
  // queue is empty.
  std::vector<SDL_Event> take_frame();

  // The pointer as of the events taken so far (window pixels), and whether it is in
  // the window (false after it left, until it moves in again; true while a button is
  // held, so that dragging past the edge goes on).
  int mouse_x() const { return mouse_x_; }
  int mouse_y() const { return mouse_y_; }
  bool mouse_inside() const { return mouse_inside_; }
  // Left (0), right (1) and middle (2) button held, as of the events taken so far.
  bool button_down(int button) const { return down_[kButtonBase + button]; }
  // A key held (SDL scancode), as of the events taken so far.
  bool key_down(SDL_Scancode key) const { return down_[key]; }

 private:
  static constexpr int kButtonBase = SDL_NUM_SCANCODES;  // channels: scancodes, then buttons 0-2
  // The key or button an event changes, or -1; `down` gets the state it sets.
  static int channel(const SDL_Event& event, bool& down);
  void follow_pointer(const SDL_Event& event);

  std::deque<SDL_Event> events_;
  std::array<bool, kButtonBase + 3> down_{};
  int mouse_x_ = 0, mouse_y_ = 0;
  bool mouse_inside_ = false;
};

// Events as a user's quick taps give them, for scripts (`key`, `click`) and tests:
// `count` presses and releases of `key` with the modifier keys of `mod` (KMOD_SHIFT,
// KMOD_CTRL, KMOD_ALT) held around them, all at once; and a left click at window pixel
// x,y (a motion there, a press and a release); a drag.
std::vector<SDL_Event> key_taps(SDL_Scancode key, Uint16 mod, int count);
std::vector<SDL_Event> left_click(int x, int y);
// A left-button drag: press at x1,y1, move to x2,y2 in `steps` motions, release there.
std::vector<SDL_Event> left_drag(int x1, int y1, int x2, int y2, int steps = 4);
// The keys a US keyboard types `text` with (printable ASCII; '\n' is Return), each a
// press, its text input and a release, Shift held around the shifted characters.
// Throws std::invalid_argument naming a character no key types.
std::vector<SDL_Event> typed(const std::string& text);

}  // namespace x86lab::gui
