// The Memory window: hex and ASCII, linear (through paging, by peek) or physical,
// optionally following a register; bytes can be written while the machine is paused.
#include <cstring>

#include "ui/gui/widgets.h"
#include "ui/gui/window.h"

namespace x86lab::gui {

namespace {
// The MemoryFollow choices: the address a register points to through its usual segment.
constexpr const char* kFollowNames[] = {"(address)", "CS:EIP", "SS:ESP", "DS:ESI", "ES:EDI", "DS:EBX", "DS:EAX", "CR2"};

u32 follow_address(const CpuState& s, MemoryFollow follow, u32 fallback) {
  switch (follow) {
    case MemoryFollow::Eip: return s.segments[CS].cache.base + s.eip;
    case MemoryFollow::Esp: return s.segments[SS].cache.base + s.gpr[ESP];
    case MemoryFollow::Esi: return s.segments[DS].cache.base + s.gpr[ESI];
    case MemoryFollow::Edi: return s.segments[ES].cache.base + s.gpr[EDI];
    case MemoryFollow::Ebx: return s.segments[DS].cache.base + s.gpr[EBX];
    case MemoryFollow::Eax: return s.segments[DS].cache.base + s.gpr[EAX];
    case MemoryFollow::Cr2: return s.cr2;
    case MemoryFollow::Address: break;
  }
  return fallback;
}

struct MemoryWindow final : Window {
  void draw(const MachineView& view, CommandQueue& commands) override {
    UiState& ui = view.ui;
    ImGui::SetNextItemWidth(90);
    if (ImGui::InputText("##address", address_, sizeof address_, ImGuiInputTextFlags_EnterReturnsTrue))
      if (auto address = parse_hex(address_)) {
        ui.memory_address = *address;
        ui.memory_follow = MemoryFollow::Address;
      }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(100);
    int follow = static_cast<int>(ui.memory_follow);
    if (ImGui::Combo("follow", &follow, kFollowNames, IM_ARRAYSIZE(kFollowNames))) ui.memory_follow = static_cast<MemoryFollow>(follow);
    ImGui::SameLine();
    ImGui::Checkbox("physical", &ui.memory_physical);
    const u32 start = follow_address(view.state, ui.memory_follow, ui.memory_address) & ~0xFu;
    edit_line(view, commands, start);
    if (!ImGui::BeginChild("bytes")) {
      ImGui::EndChild();
      return;
    }
    // 16 bytes a line, or 8 when the window is too narrow for 16 (4 KiB from the start address).
    const float sixteen = ImGui::CalcTextSize("00000000  ").x + ImGui::CalcTextSize("00 ").x * 16 +
                          ImGui::CalcTextSize("  ").x + ImGui::CalcTextSize("0").x * 16;
    const unsigned per_line = ImGui::GetContentRegionAvail().x >= sixteen ? 16 : 8;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(4096 / per_line));
    while (clipper.Step())
      for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row)
        line(view, start + static_cast<u32>(row) * per_line, per_line);
    ImGui::EndChild();
  }

 private:
  static std::optional<u8> byte_at(const MachineView& view, u32 address) {
    if (view.ui.memory_physical) return view.machine.bus.peek(address);
    return view.machine.mmu.peek_linear(address);
  }

  static void line(const MachineView& view, u32 address, unsigned count) {
    char text[16 * 3 + 1 + 16 + 2] = {};
    char ascii[17] = {};
    std::size_t at = 0;
    for (unsigned i = 0; i < count; ++i) {
      const auto byte = byte_at(view, address + i);
      at += std::snprintf(text + at, sizeof text - at, byte ? "%02X " : "-- ", byte.value_or(0));
      if (i == 7 && count == 16) text[at++] = ' ';
      ascii[i] = byte && *byte >= 0x20 && *byte < 0x7F ? static_cast<char>(*byte) : '.';
    }
    ImGui::Text("%08X  %s %s", address, text, ascii);
  }

  void edit_line(const MachineView& view, CommandQueue& commands, u32 start) {
    const bool paused = view.run_state == RunState::Paused || view.run_state == RunState::Ended;
    ImGui::SetNextItemWidth(90);
    ImGui::InputText("##edit_at", edit_at_, sizeof edit_at_);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(160);
    ImGui::InputText("bytes (hex)", edit_bytes_, sizeof edit_bytes_);
    ImGui::SameLine();
    if (ImGui::Button(paused ? "Write" : "Write (pause first)") && paused) {
      const auto address = parse_hex(edit_at_);
      std::vector<u8> bytes;
      for (const char* p = edit_bytes_; *p;) {
        while (*p == ' ') ++p;
        if (!*p) break;
        char pair[3] = {p[0], p[1] == ' ' ? '\0' : p[1], 0};
        const auto value = parse_hex(pair);
        if (!value) break;
        bytes.push_back(static_cast<u8>(*value));
        p += pair[1] ? 2 : 1;
      }
      if (address && !bytes.empty())
        commands.push({CommandKind::WriteMemory, *address, view.ui.memory_physical, bytes});
    }
    if (!edit_at_[0]) std::snprintf(edit_at_, sizeof edit_at_, "%08X", start);
  }

  char address_[12] = "0";
  char edit_at_[12] = "";
  char edit_bytes_[64] = "";
};
}  // namespace

std::unique_ptr<Window> make_memory_window() { return make_window<MemoryWindow>("Memory"); }

}  // namespace x86lab::gui
