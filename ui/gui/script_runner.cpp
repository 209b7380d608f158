// The script runner (see script_runner.h).
#include "ui/gui/script_runner.h"

#include <SDL.h>

#include "platform/input_error.h"

namespace x86lab::gui {

Window* find_window(const std::vector<std::unique_ptr<Window>>& windows, const std::string& title) {
  for (const auto& window : windows)
    if (title == window->title()) return window.get();
  return nullptr;
}

bool ScriptRunner::run(const ScriptCommand& c, Session& session, UiState& ui, std::vector<std::unique_ptr<Window>>& windows,
         InputQueue& input) {
  auto fail = [&](const std::string& problem) {
    throw InputError("script line " + std::to_string(c.line) + ": " + problem);
  };
  switch (c.verb) {
    case ScriptVerb::Step: session.step_into(c.number); break;
    case ScriptVerb::Back: session.step_back(c.number); break;
    case ScriptVerb::RunBack: session.run_back(); break;
    case ScriptVerb::GoTo:
      if (!session.go_to_step(c.number)) fail("step " + std::to_string(c.number) + " lies before the history");
      break;
    case ScriptVerb::SnapshotSave: session.save_snapshot(c.text); break;
    case ScriptVerb::SnapshotLoad: session.load_snapshot(c.text); break;
    case ScriptVerb::Over: session.step_over(); break;
    case ScriptVerb::Out: session.step_out(); break;
    case ScriptVerb::RunTo: session.run_to(static_cast<u32>(c.number)); break;
    case ScriptVerb::Run: session.run(c.flag ? c.number : UINT64_MAX); break;
    case ScriptVerb::Break: session.debugger().breakpoints().add(Breakpoint::at_linear(static_cast<u32>(c.number))); break;
    case ScriptVerb::BreakVector: {
      const u8 vector = static_cast<u8>(c.number);
      session.debugger().breakpoints().add(Breakpoint::on_vector(vector, vector));
      break;
    }
    case ScriptVerb::BreakOn: session.apply({CommandKind::AddBreakpoint, 0, false, {}, c.text}); break;
    case ScriptVerb::Memory:
      ui.memory_address = static_cast<u32>(c.number);
      ui.memory_physical = c.flag;
      ui.memory_follow = MemoryFollow::Address;
      break;
    case ScriptVerb::Walk: ui.walk_address = static_cast<u32>(c.number); break;
    case ScriptVerb::Open:
    case ScriptVerb::Close: {
      Window* window = find_window(windows, c.text);
      if (!window) fail("no window '" + c.text + "'");
      window->open = c.verb == ScriptVerb::Open;
      break;
    }
    case ScriptVerb::Compare:
      session.apply({CommandKind::RunCompare, 0, false, {}, c.text});
      while (session.compare().running) {
        SDL_Delay(10);
        session.tick(0);
      }
      break;
    case ScriptVerb::Click:
      for (const SDL_Event& event : left_click(static_cast<int>(c.number), static_cast<int>(c.number2))) input.push(event);
      return true;
    case ScriptVerb::Drag:
      for (const SDL_Event& event : left_drag(static_cast<int>(c.number), static_cast<int>(c.number2),
                                              static_cast<int>(c.number3), static_cast<int>(c.number4)))
        input.push(event);
      return true;
    case ScriptVerb::Type:
      for (const SDL_Event& event : typed(c.text)) input.push(event);
      return true;
    case ScriptVerb::Focus: {
      Window* window = find_window(windows, c.text);
      if (!window) fail("no window '" + c.text + "'");
      window->open = true;
      focus_ = c.text;
      waiting_ = 1;
      return true;
    }
    case ScriptVerb::Key:
      for (const SDL_Event& event : key_taps(SDL_GetScancodeFromName(c.text.c_str()), static_cast<Uint16>(c.number2),
                                             static_cast<int>(c.number)))
        input.push(event);
      return true;
    case ScriptVerb::Frames: waiting_ = static_cast<int>(c.number); return waiting_ > 0;
    case ScriptVerb::Place: {
      Window* window = find_window(windows, c.title);
      if (!window) fail("no window '" + c.title + "'");
      window->open = true;
      window->place_next = Window::Placement{static_cast<float>(c.number), static_cast<float>(c.number2),
                                             static_cast<float>(c.number3), static_cast<float>(c.number4)};
      waiting_ = 1;
      return true;
    }
    case ScriptVerb::Screenshot:
    case ScriptVerb::ScreenshotWindow:
    case ScriptVerb::Dump:
      // Two frames let windows and tables settle their sizes before the capture.
      capture_ = &c;
      waiting_ = 2;
      return true;
    case ScriptVerb::Quit: quit_ = true; return true;
  }
  return false;
}

}  // namespace x86lab::gui
