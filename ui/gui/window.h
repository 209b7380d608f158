// The lifecycle every GUI window shares (STYLE.md "UI"): one class per file, drawn once
// per frame from a read-only MachineView; anything that would change the machine is
// posted to the CommandQueue. Windows keep only their own view settings (an address
// typed in, a filter), in UiState when a script or another window sets them.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ui/gui/command_queue.h"
#include "ui/gui/session.h"

namespace x86lab::gui {

// What the Memory window follows: an address typed in, or where a register points.
enum class MemoryFollow : int { Address, Eip, Esp, Esi, Edi, Ebx, Eax, Cr2 };

// View settings shared between windows, shortcuts and scripts.
struct UiState {
  std::optional<u32> selected_linear;  // the Disassembly line selected (F9 toggles a breakpoint there)
  u32 memory_address = 0;              // the Memory window's first address
  bool memory_physical = false;
  MemoryFollow memory_follow = MemoryFollow::Esp;
  u32 walk_address = 0;                // the Page walk window's linear address
  std::optional<u32> disassembly_at;   // show disassembly here instead of at EIP (Trace window jump)
  // This frame's key changes (SDL scancode, down), in the order they happened.
  std::vector<std::pair<int, bool>> frame_keys;
  bool keyboard_to_guest = false;      // the VGA text screen has the keyboard: no shortcuts
};

struct MachineView {
  const Session& session;
  const Machine& machine;
  const CpuState& state;     // the CPU now
  const CpuState& previous;  // the CPU at the last stop (for "changed" highlights)
  RunState run_state;
  UiState& ui;               // view settings only; never machine state
};

class Window {
 public:
  virtual ~Window() = default;
  // The window's title (also its ImGui id and the name scripts use).
  const char* title() const { return title_; }
  // Draws the window's contents (inside ImGui::Begin/End, which the app calls).
  virtual void draw(const MachineView& view, CommandQueue& commands) = 0;
  // Sets the title; called once, by make_window.
  void identify(const char* title) { title_ = title; }
  bool open = true;

  // A window's place on the display in pixels (top-left corner, outer size).
  struct Placement {
    float x = 0, y = 0, width = 0, height = 0;
  };
  // Where the window was drawn in the latest frame (screenshot-window crops to it).
  Placement placed{};
  // A place to take at the next frame (a script's `place`), then cleared.
  std::optional<Placement> place_next;

 private:
  const char* title_ = "";
};

// The one way the make_*_window functions create their window: class W (one per
// *_window.cpp, default-constructible) titled `title` (a string literal).
template <class W>
std::unique_ptr<Window> make_window(const char* title) {
  std::unique_ptr<Window> window = std::make_unique<W>();
  window->identify(title);
  return window;
}

// The windows, in the order of the View menu.
std::unique_ptr<Window> make_control_window();
std::unique_ptr<Window> make_timeline_window();
std::unique_ptr<Window> make_cpu_window();
std::unique_ptr<Window> make_segments_window();
std::unique_ptr<Window> make_descriptor_tables_window();
std::unique_ptr<Window> make_tss_window();
std::unique_ptr<Window> make_page_walk_window();
std::unique_ptr<Window> make_memory_window();
std::unique_ptr<Window> make_disassembly_window();
std::unique_ptr<Window> make_trace_window();
std::unique_ptr<Window> make_counters_window();
std::unique_ptr<Window> make_breakpoints_window();
std::unique_ptr<Window> make_serial_window();
std::unique_ptr<Window> make_vga_window();
std::unique_ptr<Window> make_scenario_window();
std::unique_ptr<Window> make_compare_window();
std::unique_ptr<Window> make_apic_window();

}  // namespace x86lab::gui
