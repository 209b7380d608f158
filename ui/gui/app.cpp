// The inspector's frame loop: SDL2 window, software renderer, Dear ImGui windows over
// the session, shortcuts, the script runner, screenshots and text dumps.
#include "ui/gui/app.h"

#include <SDL.h>
#include <imgui.h>
#include <imgui_impl_sdl.h>
#include <imgui_impl_sdlrenderer.h>
#include <imgui_internal.h>
#include <stb_image_write.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "platform/input_error.h"
#include "trace/output_file.h"
#include "ui/gui/input_queue.h"
#include "ui/gui/layout.h"
#include "ui/gui/renderer.h"
#include "ui/gui/script_runner.h"
#include "ui/signal_guard.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {

std::vector<std::unique_ptr<Window>> make_windows() {
  std::vector<std::unique_ptr<Window>> windows;
  windows.push_back(make_control_window());
  windows.push_back(make_cpu_window());
  windows.push_back(make_counters_window());
  windows.push_back(make_breakpoints_window());
  windows.push_back(make_disassembly_window());
  windows.push_back(make_segments_window());
  windows.push_back(make_memory_window());
  windows.push_back(make_descriptor_tables_window());
  windows.push_back(make_trace_window());
  windows.push_back(make_serial_window());
  windows.push_back(make_tss_window());
  windows.push_back(make_page_walk_window());
  windows.push_back(make_apic_window());
  windows.push_back(make_vga_window());
  windows.push_back(make_scenario_window());
  windows.push_back(make_compare_window());
  windows.push_back(make_timeline_window());
  for (auto& window : windows) window->open = open_at_start(window->title());
  return windows;
}


// The SDL window, renderer and ImGui context, torn down in reverse order.
class Display {
 public:
  Display(int width, int height, const std::string& title, const std::optional<std::filesystem::path>& layout) {
    // SIGINT and SIGTERM are the frame loop's (SignalHandlers), not SDL's: SDL turns
    // them into an SDL_QUIT only when events are next pumped, after the guest's slice.
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) throw std::runtime_error(std::string("SDL cannot start: ") + SDL_GetError());
    SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
    // The software renderer draws into the window's own framebuffer (XShm under X11, plain
    // memory offscreen) instead of a GL texture that Mesa's llvmpipe would composite again
    // on the CPU, on extra threads, every frame.
    SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    window_ = SDL_CreateWindow(title.c_str(), SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, width, height,
                               SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!window_) throw std::runtime_error(std::string("SDL cannot open a window: ") + SDL_GetError());
    renderer_ = SDL_CreateRenderer(window_, -1, SDL_RENDERER_SOFTWARE);
    if (!renderer_) throw std::runtime_error(std::string("SDL cannot create a renderer: ") + SDL_GetError());
    set_frame_renderer(renderer_);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    if (layout) {
      layout_ = layout->string();
      io.IniFilename = layout_.c_str();
    } else {
      io.IniFilename = nullptr;
    }
    ImGui::StyleColorsDark();
    ImGui::GetStyle().WindowRounding = 0;
    // Opaque window backgrounds, which render_draw_data fills without blending.
    ImGui::GetStyle().Colors[ImGuiCol_WindowBg].w = 1.0f;
    ImGui_ImplSDL2_InitForSDLRenderer(window_);
    ImGui_ImplSDLRenderer_Init(renderer_);
  }
  ~Display() {
    set_frame_renderer(nullptr);
    ImGui_ImplSDLRenderer_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    if (renderer_) SDL_DestroyRenderer(renderer_);
    if (window_) SDL_DestroyWindow(window_);
    SDL_Quit();
  }
  Display(const Display&) = delete;
  Display& operator=(const Display&) = delete;

  SDL_Window* window() const { return window_; }
  SDL_Renderer* renderer() const { return renderer_; }

  // The frame as rendered so far (call after RenderDrawData, before present): the whole
  // display, or the part `crop` covers (a window's place, clipped to the display).
  void screenshot(const std::filesystem::path& path, const std::optional<Window::Placement>& crop = std::nullopt) const {
    int width = 0, height = 0;
    SDL_GetRendererOutputSize(renderer_, &width, &height);
    SDL_Rect area{0, 0, width, height};
    if (crop) {
      const int left = std::clamp(static_cast<int>(crop->x), 0, width);
      const int top = std::clamp(static_cast<int>(crop->y), 0, height);
      const int right = std::clamp(static_cast<int>(crop->x + crop->width), left, width);
      const int bottom = std::clamp(static_cast<int>(crop->y + crop->height), top, height);
      area = {left, top, right - left, bottom - top};
      if (area.w == 0 || area.h == 0) throw InputError("cannot take screenshot '" + path.string() + "': the window is off the display");
      width = area.w;
      height = area.h;
    }
    std::vector<u8> pixels(static_cast<std::size_t>(width) * height * 4);
    // ABGR8888 is R, G, B, A in memory on little-endian hosts: what stb writes.
    if (SDL_RenderReadPixels(renderer_, &area, SDL_PIXELFORMAT_ABGR8888, pixels.data(), width * 4) != 0)
      throw std::runtime_error(std::string("cannot read the frame's pixels: ") + SDL_GetError());
    for (std::size_t i = 3; i < pixels.size(); i += 4) pixels[i] = 255;
    std::string png;
    const auto append = [](void* context, void* data, int size) {
      static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
    };
    if (!stbi_write_png_to_func(append, &png, width, height, 4, pixels.data(), width * 4))
      throw InputError("cannot encode screenshot '" + path.string() + "'");
    try {
      write_whole_file(path.string(), png, "screenshot");
    } catch (const OutputError& error) {
      throw InputError(error.what());
    }
  }

 private:
  SDL_Window* window_ = nullptr;
  SDL_Renderer* renderer_ = nullptr;
  std::string layout_;
};

// F5 run/continue (pause while running), Shift+F5 run back, F7 step back, F9 toggle
// breakpoint, F10 step over, F11 step into, Shift+F11 step out, Ctrl+R restart.
void shortcuts(const MachineView& view, CommandQueue& commands) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || view.ui.keyboard_to_guest) return;
  const bool moving = view.run_state == RunState::Running || view.run_state == RunState::Busy;
  if (ImGui::IsKeyPressed(SDL_SCANCODE_F5, false))
    commands.push({moving ? CommandKind::Pause : io.KeyShift ? CommandKind::RunBack : CommandKind::Run});
  if (moving) return;
  if (ImGui::IsKeyPressed(SDL_SCANCODE_F7, false)) commands.push({CommandKind::StepBack});
  if (ImGui::IsKeyPressed(SDL_SCANCODE_F9, false))
    commands.push({CommandKind::ToggleBreakpoint,
                   view.ui.selected_linear.value_or(view.state.segments[CS].cache.base + view.state.eip)});
  if (ImGui::IsKeyPressed(SDL_SCANCODE_F10, false)) commands.push({CommandKind::StepOver});
  if (ImGui::IsKeyPressed(SDL_SCANCODE_F11, false)) commands.push({io.KeyShift ? CommandKind::StepOut : CommandKind::StepInto});
  if (io.KeyCtrl && ImGui::IsKeyPressed(SDL_SCANCODE_R, false)) commands.push({CommandKind::Restart});
}

// The main menu; true when "Tile windows" was chosen.
bool menu(std::vector<std::unique_ptr<Window>>& windows) {
  if (!ImGui::BeginMainMenuBar()) return false;
  bool tile = false;
  if (ImGui::BeginMenu("View")) {
    for (auto& window : windows) ImGui::MenuItem(window->title(), nullptr, &window->open);
    ImGui::Separator();
    tile = ImGui::MenuItem("Tile windows");
    ImGui::EndMenu();
  }
  ImGui::TextDisabled("F5 run/pause  Shift+F5 run back  F7 step back  F9 breakpoint  F10 over  F11 into  Shift+F11 out  Ctrl+R restart");
  ImGui::EndMainMenuBar();
  return tile;
}

// How far the current window's content, or that of a child of it (a table that
// scrolls), reaches past its width, in pixels, as of the last frame: 0 when every
// line is in view without scrolling sideways.
float sideways_scroll() {
  const ImGuiWindow* window = ImGui::GetCurrentWindow();
  float widest = 0;
  for (const ImGuiWindow* other : GImGui->Windows)
    if (other->RootWindow == window->RootWindow && other->Active) widest = std::max(widest, other->ScrollMax.x);
  return widest;
}

// Draws the open windows; with `dump`, appends the text each one shows. Windows start
// in their tiles (layout.h; a layout file's places win) and go back to them when `tile`.
// Content wider than a window scrolls sideways, so every control stays reachable.
void draw_windows(std::vector<std::unique_ptr<Window>>& windows, const MachineView& view, CommandQueue& commands,
                  std::string* dump, bool tile) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  for (auto& window : windows) {
    if (!window->open) continue;
    if (const auto t = tile_of(window->title(), display.x, display.y, ImGui::GetFrameHeight())) {
      const ImGuiCond when = tile ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
      ImGui::SetNextWindowPos(ImVec2(t->x, t->y), when);
      ImGui::SetNextWindowSize(ImVec2(t->width, t->height), when);
    }
    if (window->place_next) {  // a script's `place` wins over the tiles
      ImGui::SetNextWindowPos(ImVec2(window->place_next->x, window->place_next->y), ImGuiCond_Always);
      ImGui::SetNextWindowSize(ImVec2(window->place_next->width, window->place_next->height), ImGuiCond_Always);
      window->place_next.reset();
    }
    // A window that opens (the VGA text screen by itself) does not take the focus, so
    // the keyboard stays with the shortcuts until the user clicks into it.
    const bool visible = ImGui::Begin(window->title(), &window->open,
                                      ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoFocusOnAppearing);
    // ImGui logs the text of one top-level window at a time (End() stops logging).
    if (dump) ImGui::LogToBuffer();
    {
      const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
      window->placed = {at.x, at.y, size.x, size.y};
    }
    if (visible) {
      window->draw(view, commands);
    }
    if (dump) {
      const ImVec2 at = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
      char place[96];
      std::snprintf(place, sizeof place, " at %.0f,%.0f size %.0fx%.0f", at.x, at.y, size.x, size.y);
      if (const float sideways = sideways_scroll(); sideways > 0)
        std::snprintf(place + std::strlen(place), sizeof place - std::strlen(place), " scrolls %.0f sideways", sideways);
      *dump += "==== " + std::string(window->title()) + " ====" + place + "\n" + GImGui->LogBuffer.c_str() + "\n";
      ImGui::LogFinish();
    }
    ImGui::End();
  }
}

// Opens the VGA text screen the first time the guest has put text there (checked every
// 32 frames), so that a guest with a VGA console shows it without a trip to the View
// menu; once opened (or closed by the user) it is left alone.
void open_vga_once(std::vector<std::unique_ptr<Window>>& windows, const Machine& machine, u64 frame, bool& done) {
  static const std::string kTitle = "VGA text screen";
  Window* vga = find_window(windows, kTitle);
  if (!vga || done || frame % 32 != 0) return;
  if (vga->open) {
    done = true;
    return;
  }
  const Vga& adapter = machine.devices->vga;
  if (adapter.dispi_enabled() || (adapter.graphics(6) & 1)) {  // a graphics mode was set
    vga->open = true;
    done = true;
    return;
  }
  for (u32 at = Vga::kTextBuffer; at < Vga::kTextBuffer + Vga::kColumns * Vga::kRows * 2; at += 2) {
    const u8 character = machine.bus.peek(at);
    if (character != 0 && character != ' ') {
      vga->open = true;
      done = true;
      return;
    }
  }
}

// SIGINT and SIGTERM while the frame loop runs: the handler records the signal and asks
// the debugger to pause, which ends a guest slice within Debugger::kSliceSteps steps;
// the loop sees the signal before its next frame (or within 100 ms of an idle wait) and
// ends as when the window is closed, closing every output whole. A second signal acts
// as if none were caught (SA_RESETHAND), as for `x86lab run`.
std::atomic<int> caught_signal{0};
std::atomic<Debugger*> signalled_debugger{nullptr};

void on_signal(int signal) {
  caught_signal.store(signal);
  if (Debugger* debugger = signalled_debugger.load()) debugger->pause();
}

// The session keeps signalled_debugger naming its current debugger (Session::build
// replaces it on Restart and snapshot Load).
class SignalHandlers {
 public:
  explicit SignalHandlers(Session& session)
      : session_((caught_signal = 0, session.publish_debugger(&signalled_debugger), session)),
        guard_(on_signal) {}  // armed before installed
  ~SignalHandlers() {
    session_.publish_debugger(nullptr);
    signalled_debugger = nullptr;
  }
  SignalHandlers(const SignalHandlers&) = delete;
  SignalHandlers& operator=(const SignalHandlers&) = delete;
  // The signal caught, or 0.
  static int caught() { return caught_signal.load(); }

 private:
  Session& session_;
  SignalGuard guard_;
};

// wake_frame_loop() pushes an event only while a frame loop's SDL is up.
std::mutex wake_mutex;
bool wake_armed = false;

// Arms wake_frame_loop() for the life of the frame loop (declared after the Display).
struct WakeGuard {
  WakeGuard() { set(true); }
  ~WakeGuard() { set(false); }
  static void set(bool armed) {
    std::lock_guard lock(wake_mutex);
    wake_armed = armed;
  }
};

// True for the notices X11 sends back after every frame (window shown, exposed,
// entered, focused, moved; a pointer motion that does not move). Their source is
// Dear ImGui's SDL2 backend (Debian's imgui_impl_sdl.cpp, not ours to change), which
// calls SDL_CaptureMouse(SDL_FALSE) every frame; on X11 that ungrabs the pointer, and
// Xvfb answers with these events. A paused inspector that drew a frame for each drew
// back to back (~90 % of a core).
bool is_window_notice(const SDL_Event& event) {
  if (event.type == SDL_MOUSEMOTION) return event.motion.xrel == 0 && event.motion.yrel == 0;
  if (event.type != SDL_WINDOWEVENT) return false;
  switch (event.window.event) {
    case SDL_WINDOWEVENT_SHOWN: case SDL_WINDOWEVENT_EXPOSED: case SDL_WINDOWEVENT_MOVED:
    case SDL_WINDOWEVENT_ENTER: case SDL_WINDOWEVENT_LEAVE: case SDL_WINDOWEVENT_FOCUS_GAINED:
    case SDL_WINDOWEVENT_FOCUS_LOST: case SDL_WINDOWEVENT_TAKE_FOCUS:
      return true;
    default:
      return false;
  }
}

// Waits up to `timeout_ms` milliseconds of wall time (user interface pacing only) for
// an event worth drawing a frame at once. Window notices (is_window_notice) do not end
// the wait; every event taken goes to `input`, in order, for the frames. Then takes
// the events SDL holds. True when one of them asks to quit (the window closed,
// SIGINT or SIGTERM), which is never held back for a later frame.
bool collect_input(Uint32 timeout_ms, InputQueue& input) {
  const auto quits = [](const SDL_Event& event) {
    return event.type == SDL_QUIT || (event.type == SDL_WINDOWEVENT && event.window.event == SDL_WINDOWEVENT_CLOSE);
  };
  bool quit = false;
  SDL_Event event;
  const Uint32 deadline = SDL_GetTicks() + timeout_ms;
  for (;;) {
    const auto left = static_cast<Sint32>(deadline - SDL_GetTicks());
    if (timeout_ms == 0 || left <= 0 || !SDL_WaitEventTimeout(&event, left)) break;
    input.push(event);
    quit |= quits(event);
    if (!is_window_notice(event)) break;
  }
  while (SDL_PollEvent(&event)) {
    input.push(event);
    quit |= quits(event);
  }
  return quit;
}

// Hands one frame's events to ImGui's SDL backend, and its key changes to `ui` (for the
// guest's keyboard). The modifier keys come from each key event (the backend reads
// SDL's state now, which a queued event may no longer match).
void feed_frame(InputQueue& input, UiState& ui) {
  ImGuiIO& io = ImGui::GetIO();
  ui.frame_keys.clear();
  for (const SDL_Event& event : input.take_frame()) {
    ImGui_ImplSDL2_ProcessEvent(&event);
    if (event.type == SDL_KEYDOWN || event.type == SDL_KEYUP) {
      ui.frame_keys.emplace_back(event.key.keysym.scancode, event.type == SDL_KEYDOWN);
      const Uint16 mod = event.key.keysym.mod;
      io.KeyShift = (mod & KMOD_SHIFT) != 0;
      io.KeyCtrl = (mod & KMOD_CTRL) != 0;
      io.KeyAlt = (mod & KMOD_ALT) != 0;
      io.KeySuper = (mod & KMOD_GUI) != 0;
    }
  }
}

// The pointer and buttons as of the events fed so far (after ImGui_ImplSDL2_NewFrame,
// which reads SDL's state now and would see a queued click already released).
void feed_pointer(const InputQueue& input) {
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = input.mouse_inside() ? ImVec2(static_cast<float>(input.mouse_x()), static_cast<float>(input.mouse_y()))
                                     : ImVec2(-FLT_MAX, -FLT_MAX);
  for (int button = 0; button < 3; ++button) io.MouseDown[button] = input.button_down(button);
}

bool headless_driver() {
  const char* driver = SDL_GetCurrentVideoDriver();
  return driver && (std::strcmp(driver, "offscreen") == 0 || std::strcmp(driver, "dummy") == 0);
}

}  // namespace

void wake_frame_loop() {
  std::lock_guard lock(wake_mutex);
  if (!wake_armed) return;
  SDL_Event event{};
  event.type = SDL_USEREVENT;
  SDL_PushEvent(&event);
}

std::optional<std::filesystem::path> default_layout_file() {
  std::filesystem::path folder;
  if (const char* config = std::getenv("XDG_CONFIG_HOME"); config && *config) folder = config;
  else if (const char* home = std::getenv("HOME"); home && *home) folder = std::filesystem::path(home) / ".config";
  else return std::nullopt;
  std::error_code error;
  std::filesystem::create_directories(folder / "x86lab", error);
  if (error) return std::nullopt;
  return folder / "x86lab" / "gui-layout.ini";
}

AppStats run_app(Session& session, const AppOptions& options) {
  auto windows = make_windows();
  for (const ScriptCommand& c : options.script) {
    const bool names_window = c.verb == ScriptVerb::Open || c.verb == ScriptVerb::Close || c.verb == ScriptVerb::Focus;
    if (names_window && !find_window(windows, c.text))
      throw InputError("script line " + std::to_string(c.line) + ": no window '" + c.text + "'");
    if ((c.verb == ScriptVerb::Place || c.verb == ScriptVerb::ScreenshotWindow) && !find_window(windows, c.title))
      throw InputError("script line " + std::to_string(c.line) + ": no window '" + c.title + "'");
  }
  Display display(options.width, options.height, "x86lab inspector - " + session.title(), options.layout_file);
  UiState ui;
  CommandQueue commands;
  ScriptRunner script(options.script);
  if (options.start_running) commands.push({CommandKind::Run});
  const WakeGuard wake;
  const SignalHandlers signals(session);
  ServiceState service = options.service ? options.service(session) : ServiceState{};
  AppStats stats;
  const auto start = std::chrono::steady_clock::now();
  bool quit = false;
  std::string window_title;
  InputQueue input;
  ImVec2 tiled_for;
  bool vga_opened = false;
  while (!quit) {
    const auto frame_start = std::chrono::steady_clock::now();
    const bool idle = session.run_state() != RunState::Running && session.run_state() != RunState::Busy &&
                      (script.finished() || service.hold) && !options.max_frames && input.empty();
    // While nothing moves, wait for input instead of drawing frames back to back.
    if (collect_input(idle ? 100 : 0, input) || SignalHandlers::caught()) break;
    feed_frame(input, ui);
    if (!service.hold) script.advance(session, ui, windows, input);
    if (script.quit() || service.quit) break;
    const ScriptCommand* capture = script.capture_now();

    ImGui_ImplSDLRenderer_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    feed_pointer(input);
    ImGui::NewFrame();
    const MachineView view{session, session.machine(), session.machine().cpu.state, session.previous(),
                           session.run_state(), ui};
    shortcuts(view, commands);
    ui.keyboard_to_guest = false;  // the VGA text screen sets it again while it has the focus
    // The tiles follow the display: tiled again when its size changes, or on request.
    bool tile = menu(windows);
    open_vga_once(windows, session.machine(), stats.frames, vga_opened);
    const ImVec2 display_size = ImGui::GetIO().DisplaySize;
    if (stats.frames > 0 && (display_size.x != tiled_for.x || display_size.y != tiled_for.y)) tile = true;
    tiled_for = display_size;
    std::string dump;
    const bool dumping = capture && capture->verb == ScriptVerb::Dump;
    draw_windows(windows, view, commands, dumping ? &dump : nullptr, tile);
    script.apply_focus();
    if (dumping) {
      try {
        write_whole_file(capture->text, dump, "dump");
      } catch (const OutputError& error) {
        throw InputError(error.what());
      }
    }
    ImGui::Render();
    SDL_SetRenderDrawColor(display.renderer(), 30, 30, 34, 255);
    SDL_RenderClear(display.renderer());
    render_draw_data(display.renderer(), ImGui::GetDrawData());
    if (capture && capture->verb == ScriptVerb::Screenshot) display.screenshot(capture->text);
    if (capture && capture->verb == ScriptVerb::ScreenshotWindow) {
      const Window* shot = find_window(windows, capture->title);
      if (!shot->open) throw InputError("script line " + std::to_string(capture->line) + ": window '" + capture->title + "' is closed");
      display.screenshot(capture->text, shot->placed);
    }
    if (capture) script.captured();
    SDL_RenderPresent(display.renderer());
    ++stats.frames;
    script.frame_done();

    for (const Command& command : commands.take()) session.apply(command);
    // The guest gets what is left of a 1/32 s frame after drawing, but at least four
    // times the drawing's time, so drawing takes at most a fifth of the host's time
    // while the guest runs (the frame rate gives way, not the guest); at least 4 ms,
    // at most guest_seconds_per_frame. Wall time decides only when the windows are
    // drawn, never what the guest computes (Session::tick).
    const auto drawn = std::chrono::steady_clock::now();
    const double draw_seconds = std::chrono::duration<double>(drawn - frame_start).count();
    const double guest_seconds = std::max(1.0 / 32 - draw_seconds, 4 * draw_seconds);
    stats.guest_steps += session.tick(std::clamp(guest_seconds, 0.004, options.guest_seconds_per_frame));
    if (SignalHandlers::caught()) break;
    if (options.service) service = options.service(session);
    // The title shows CS:EIP when paused (desktop task lists, and tests driving the window with xdotool).
    {
      const CpuState& s = session.machine().cpu.state;
      char title[256];
      std::snprintf(title, sizeof title, "x86lab inspector - %s - %04X:%08X", session.title().c_str(),
                    s.segments[CS].selector, s.eip);
      if (window_title != title) SDL_SetWindowTitle(display.window(), title);
      window_title = title;
    }
    if (options.max_frames && stats.frames >= options.max_frames) quit = true;
    if ((options.script_given || options.service) && script.finished() && !service.hold && headless_driver()) quit = true;
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats.signal = SignalHandlers::caught();
  return stats;
}

}  // namespace x86lab::gui
