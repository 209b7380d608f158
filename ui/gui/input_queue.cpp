// The per-frame input queue (see input_queue.h).
#include "ui/gui/input_queue.h"

#include <stdexcept>
#include <string_view>

namespace x86lab::gui {

void InputQueue::push(const SDL_Event& event) {
  if (event.type == SDL_KEYDOWN && event.key.repeat) {
    // An autorepeat becomes a release and a press: a held F11 steps on at the
    // keyboard's repeat rate, and taps closer than 2 ms, which SDL's X11 driver takes
    // for autorepeat (it drops their release), still count one each.
    SDL_Event release = event;
    release.type = SDL_KEYUP;
    release.key.state = SDL_RELEASED;
    release.key.repeat = 0;
    events_.push_back(release);
    SDL_Event press = event;
    press.key.repeat = 0;
    events_.push_back(press);
    return;
  }
  events_.push_back(event);
}

int InputQueue::channel(const SDL_Event& event, bool& down) {
  switch (event.type) {
    case SDL_KEYDOWN:
    case SDL_KEYUP:
      down = event.type == SDL_KEYDOWN;
      return event.key.keysym.scancode < SDL_NUM_SCANCODES ? event.key.keysym.scancode : -1;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
      down = event.type == SDL_MOUSEBUTTONDOWN;
      switch (event.button.button) {
        case SDL_BUTTON_LEFT: return kButtonBase + 0;
        case SDL_BUTTON_RIGHT: return kButtonBase + 1;
        case SDL_BUTTON_MIDDLE: return kButtonBase + 2;
        default: return -1;
      }
    default: return -1;
  }
}

void InputQueue::follow_pointer(const SDL_Event& event) {
  const bool held = down_[kButtonBase] || down_[kButtonBase + 1] || down_[kButtonBase + 2];
  switch (event.type) {
    case SDL_MOUSEMOTION:
      mouse_x_ = event.motion.x;
      mouse_y_ = event.motion.y;
      mouse_inside_ = true;
      break;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
      mouse_x_ = event.button.x;
      mouse_y_ = event.button.y;
      mouse_inside_ = true;
      break;
    case SDL_WINDOWEVENT:
      if (event.window.event == SDL_WINDOWEVENT_LEAVE && !held) mouse_inside_ = false;
      break;
    default: break;
  }
}

std::vector<SDL_Event> InputQueue::take_frame() {
  std::vector<SDL_Event> frame;
  std::array<bool, kButtonBase + 3> changed{};
  bool button_changed = false, moved = false;
  while (!events_.empty()) {
    const SDL_Event& event = events_.front();
    // The pointer moving after a button changed: a drag, whose press ImGui must see
    // where it happened, a frame before the moves.
    if (event.type == SDL_MOUSEMOTION && button_changed) break;
    // A release after moves: ImGui must see the moves held, a frame before the release.
    if (event.type == SDL_MOUSEBUTTONUP && moved) break;
    moved |= event.type == SDL_MOUSEMOTION;
    bool down = false;
    const int key = channel(event, down);
    if (key >= 0 && down_[key] != down) {
      if (changed[key]) break;  // a second change of this key or button: the next frame's
      changed[key] = true;
      down_[key] = down;
      button_changed |= key >= kButtonBase;
    }
    follow_pointer(event);
    frame.push_back(event);
    events_.pop_front();
  }
  return frame;
}

namespace {
SDL_Event key_event(Uint32 type, SDL_Scancode key, Uint16 mod) {
  SDL_Event event{};
  event.type = type;
  event.key.state = type == SDL_KEYDOWN ? SDL_PRESSED : SDL_RELEASED;
  event.key.keysym.scancode = key;
  event.key.keysym.sym = SDL_GetKeyFromScancode(key);
  event.key.keysym.mod = mod;
  return event;
}
}  // namespace

std::vector<SDL_Event> key_taps(SDL_Scancode key, Uint16 mod, int count) {
  struct Modifier {
    Uint16 mod;
    SDL_Scancode key;
  };
  constexpr Modifier kModifiers[] = {{KMOD_SHIFT, SDL_SCANCODE_LSHIFT}, {KMOD_CTRL, SDL_SCANCODE_LCTRL},
                                     {KMOD_ALT, SDL_SCANCODE_LALT}};
  std::vector<SDL_Event> events;
  Uint16 held = 0;
  for (const Modifier& m : kModifiers) {
    if (!(mod & m.mod)) continue;
    held |= static_cast<Uint16>(m.mod & (KMOD_LSHIFT | KMOD_LCTRL | KMOD_LALT));
    events.push_back(key_event(SDL_KEYDOWN, m.key, held));
  }
  for (int i = 0; i < count; ++i) {
    events.push_back(key_event(SDL_KEYDOWN, key, held));
    events.push_back(key_event(SDL_KEYUP, key, held));
  }
  for (const Modifier& m : kModifiers) {
    if (!(mod & m.mod)) continue;
    held &= static_cast<Uint16>(~m.mod);
    events.push_back(key_event(SDL_KEYUP, m.key, held));
  }
  return events;
}

namespace {
SDL_Event motion(int x, int y, int dx, int dy, bool held) {
  SDL_Event event{};
  event.type = SDL_MOUSEMOTION;
  event.motion.x = x;
  event.motion.y = y;
  event.motion.xrel = dx;
  event.motion.yrel = dy;
  event.motion.state = held ? SDL_BUTTON_LMASK : 0;
  return event;
}

SDL_Event button(bool down, int x, int y) {
  SDL_Event event{};
  event.type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
  event.button.button = SDL_BUTTON_LEFT;
  event.button.state = down ? SDL_PRESSED : SDL_RELEASED;
  event.button.clicks = 1;
  event.button.x = x;
  event.button.y = y;
  return event;
}
}  // namespace

std::vector<SDL_Event> left_click(int x, int y) { return {motion(x, y, 0, 1, false), button(true, x, y), button(false, x, y)}; }

namespace {
// The key that types `c` without Shift on a US keyboard (SDL's keymap is not there
// before SDL starts, and scripts are checked before that).
SDL_Scancode scancode_of(char c) {
  static constexpr std::pair<char, SDL_Scancode> kKeys[] = {
      {' ', SDL_SCANCODE_SPACE},     {'-', SDL_SCANCODE_MINUS},        {'=', SDL_SCANCODE_EQUALS},
      {'[', SDL_SCANCODE_LEFTBRACKET}, {']', SDL_SCANCODE_RIGHTBRACKET}, {';', SDL_SCANCODE_SEMICOLON},
      {'\'', SDL_SCANCODE_APOSTROPHE}, {'`', SDL_SCANCODE_GRAVE},       {'\\', SDL_SCANCODE_BACKSLASH},
      {',', SDL_SCANCODE_COMMA},     {'.', SDL_SCANCODE_PERIOD},       {'/', SDL_SCANCODE_SLASH}};
  if (c >= 'a' && c <= 'z') return static_cast<SDL_Scancode>(SDL_SCANCODE_A + (c - 'a'));
  if (c >= '1' && c <= '9') return static_cast<SDL_Scancode>(SDL_SCANCODE_1 + (c - '1'));
  if (c == '0') return SDL_SCANCODE_0;
  for (const auto& [character, key] : kKeys)
    if (c == character) return key;
  return SDL_SCANCODE_UNKNOWN;
}
}  // namespace

std::vector<SDL_Event> typed(const std::string& text) {
  static constexpr std::string_view kShiftedDigits = ")!@#$%^&*(";  // Shift+0 .. Shift+9
  static constexpr std::pair<char, char> kPunctuation[] = {{'-', '_'}, {'=', '+'}, {'[', '{'}, {']', '}'},
                                                           {';', ':'}, {'\'', '"'}, {'`', '~'}, {'\\', '|'},
                                                           {',', '<'}, {'.', '>'}, {'/', '?'}};
  std::vector<SDL_Event> events;
  for (const char c : text) {
    char base = c;
    bool shift = false;
    if (c >= 'A' && c <= 'Z') {
      base = static_cast<char>(c - 'A' + 'a');
      shift = true;
    } else if (const auto digit = kShiftedDigits.find(c); digit != std::string_view::npos) {
      base = static_cast<char>('0' + digit);
      shift = true;
    } else {
      for (const auto& [plain, shifted] : kPunctuation)
        if (c == shifted) {
          base = plain;
          shift = true;
        }
    }
    const SDL_Scancode key = c == '\n' ? SDL_SCANCODE_RETURN : scancode_of(base);
    if (key == SDL_SCANCODE_UNKNOWN || (c < ' ' && c != '\n') || c > '~')
      throw std::invalid_argument(std::string("no key types '") + c + "'");
    const Uint16 mod = shift ? KMOD_LSHIFT : 0;
    if (shift) events.push_back(key_event(SDL_KEYDOWN, SDL_SCANCODE_LSHIFT, mod));
    events.push_back(key_event(SDL_KEYDOWN, key, mod));
    if (c != '\n') {
      SDL_Event input{};
      input.type = SDL_TEXTINPUT;
      input.text.text[0] = c;
      events.push_back(input);
    }
    events.push_back(key_event(SDL_KEYUP, key, mod));
    if (shift) events.push_back(key_event(SDL_KEYUP, SDL_SCANCODE_LSHIFT, 0));
  }
  return events;
}

std::vector<SDL_Event> left_drag(int x1, int y1, int x2, int y2, int steps) {
  std::vector<SDL_Event> events = {motion(x1, y1, 0, 1, false), button(true, x1, y1)};
  int x = x1, y = y1;
  for (int i = 1; i <= steps; ++i) {
    const int nx = x1 + (x2 - x1) * i / steps, ny = y1 + (y2 - y1) * i / steps;
    events.push_back(motion(nx, ny, nx - x, ny - y, true));
    x = nx;
    y = ny;
  }
  events.push_back(button(false, x2, y2));
  return events;
}

}  // namespace x86lab::gui
