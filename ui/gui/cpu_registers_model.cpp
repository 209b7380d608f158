// Bit names of EFLAGS, CR0, CR4, DR6 and DR7 as the SDM gives them, and the register
// lists of the CPU window.
#include "ui/gui/cpu_registers_model.h"

namespace x86lab::gui {

namespace {
// SDM Vol. 1, "EFLAGS Register" (Figure "EFLAGS Register").
constexpr std::array<BitField, 17> kEflags = {{
    {0, 1, "CF", "Carry flag"},
    {2, 1, "PF", "Parity flag"},
    {4, 1, "AF", "Auxiliary carry flag"},
    {6, 1, "ZF", "Zero flag"},
    {7, 1, "SF", "Sign flag"},
    {8, 1, "TF", "Trap flag"},
    {9, 1, "IF", "Interrupt enable flag"},
    {10, 1, "DF", "Direction flag"},
    {11, 1, "OF", "Overflow flag"},
    {12, 2, "IOPL", "I/O privilege level"},
    {14, 1, "NT", "Nested task"},
    {16, 1, "RF", "Resume flag"},
    {17, 1, "VM", "Virtual-8086 mode"},
    {18, 1, "AC", "Alignment check"},
    {19, 1, "VIF", "Virtual interrupt flag"},
    {20, 1, "VIP", "Virtual interrupt pending"},
    {21, 1, "ID", "ID flag"},
}};
// SDM Vol. 3, "Control Registers".
constexpr std::array<BitField, 11> kCr0 = {{
    {0, 1, "PE", "Protection enable"},
    {1, 1, "MP", "Monitor coprocessor"},
    {2, 1, "EM", "Emulation"},
    {3, 1, "TS", "Task switched"},
    {4, 1, "ET", "Extension type"},
    {5, 1, "NE", "Numeric error"},
    {16, 1, "WP", "Write protect"},
    {18, 1, "AM", "Alignment mask"},
    {29, 1, "NW", "Not write-through"},
    {30, 1, "CD", "Cache disable"},
    {31, 1, "PG", "Paging"},
}};
constexpr std::array<BitField, 9> kCr4 = {{
    {0, 1, "VME", "Virtual-8086 mode extensions"},
    {1, 1, "PVI", "Protected-mode virtual interrupts"},
    {2, 1, "TSD", "Time stamp disable"},
    {3, 1, "DE", "Debugging extensions"},
    {4, 1, "PSE", "Page size extensions"},
    {5, 1, "PAE", "Physical address extension"},
    {6, 1, "MCE", "Machine-check enable"},
    {7, 1, "PGE", "Page global enable"},
    {8, 1, "PCE", "Performance-monitoring counter enable"},
}};
// SDM Vol. 3, "Debug Registers" (Figure "Debug Registers").
constexpr std::array<BitField, 19> kDr7 = {{
    {0, 1, "L0", "Local breakpoint enable 0"},
    {1, 1, "G0", "Global breakpoint enable 0"},
    {2, 1, "L1", "Local breakpoint enable 1"},
    {3, 1, "G1", "Global breakpoint enable 1"},
    {4, 1, "L2", "Local breakpoint enable 2"},
    {5, 1, "G2", "Global breakpoint enable 2"},
    {6, 1, "L3", "Local breakpoint enable 3"},
    {7, 1, "G3", "Global breakpoint enable 3"},
    {8, 1, "LE", "Local exact breakpoint enable"},
    {9, 1, "GE", "Global exact breakpoint enable"},
    {13, 1, "GD", "General detect enable"},
    {16, 2, "R/W0", "Breakpoint 0 condition (0 execute, 1 write, 2 I/O, 3 read/write)"},
    {18, 2, "LEN0", "Breakpoint 0 length (0 byte, 1 word, 3 dword)"},
    {20, 2, "R/W1", "Breakpoint 1 condition"},
    {22, 2, "LEN1", "Breakpoint 1 length"},
    {24, 2, "R/W2", "Breakpoint 2 condition"},
    {26, 2, "LEN2", "Breakpoint 2 length"},
    {28, 2, "R/W3", "Breakpoint 3 condition"},
    {30, 2, "LEN3", "Breakpoint 3 length"},
}};
constexpr std::array<BitField, 7> kDr6 = {{
    {0, 1, "B0", "Breakpoint 0 condition detected"},
    {1, 1, "B1", "Breakpoint 1 condition detected"},
    {2, 1, "B2", "Breakpoint 2 condition detected"},
    {3, 1, "B3", "Breakpoint 3 condition detected"},
    {13, 1, "BD", "Debug register access detected"},
    {14, 1, "BS", "Single step"},
    {15, 1, "BT", "Task switch"},
}};

constexpr std::array<std::string_view, 8> kGeneralNames = {"EAX", "ECX", "EDX", "EBX", "ESP", "EBP", "ESI", "EDI"};
}  // namespace

std::span<const BitField> eflags_fields() { return kEflags; }
std::span<const BitField> cr0_fields() { return kCr0; }
std::span<const BitField> cr4_fields() { return kCr4; }
std::span<const BitField> dr7_fields() { return kDr7; }
std::span<const BitField> dr6_fields() { return kDr6; }

std::string describe_bits(std::span<const BitField> fields, u32 value) {
  std::string text;
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) {
    const u32 v = field_value(*it, value);
    if (it->width == 1 && !v) continue;
    if (!text.empty()) text += ' ';
    text += it->name;
    if (it->width > 1) {
      text += '=';
      text += std::to_string(v);
    }
  }
  return text;
}

std::vector<RegisterValue> general_registers(const CpuState& now, const CpuState& previous) {
  std::vector<RegisterValue> rows;
  for (unsigned i = 0; i < 8; ++i) rows.push_back({kGeneralNames[i], now.gpr[i], now.gpr[i] != previous.gpr[i]});
  rows.push_back({"EIP", now.eip, now.eip != previous.eip});
  rows.push_back({"EFLAGS", now.eflags, now.eflags != previous.eflags});
  return rows;
}

std::vector<RegisterValue> control_registers(const CpuState& now, const CpuState& previous) {
  return {{"CR0", now.cr0, now.cr0 != previous.cr0},
          {"CR2", now.cr2, now.cr2 != previous.cr2},
          {"CR3", now.cr3, now.cr3 != previous.cr3},
          {"CR4", now.cr4, now.cr4 != previous.cr4}};
}

std::vector<RegisterValue> debug_registers(const CpuState& now, const CpuState& previous) {
  std::vector<RegisterValue> rows;
  static constexpr std::array<std::string_view, 4> kNames = {"DR0", "DR1", "DR2", "DR3"};
  for (unsigned i = 0; i < 4; ++i) rows.push_back({kNames[i], now.dr[i], now.dr[i] != previous.dr[i]});
  rows.push_back({"DR6", now.dr[6], now.dr[6] != previous.dr[6]});
  rows.push_back({"DR7", now.dr[7], now.dr[7] != previous.dr[7]});
  return rows;
}

}  // namespace x86lab::gui
