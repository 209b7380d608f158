// Bit names of EFLAGS, CR0, CR4, DR6 and DR7 as the SDM gives them, and the register
// lists of the CPU window.
#include "ui/gui/cpu_registers_model.h"

#include <algorithm>

namespace x86lab::gui {

namespace {
using enum BitRegister;

// Every named field, grouped by register in BitRegister order (bit_fields() returns
// one register's group).
constexpr BitField kFields[] = {
    // SDM Vol. 1, "EFLAGS Register" (Figure "EFLAGS Register").
    {Eflags, 0, 1, "CF", "Carry flag"},
    {Eflags, 2, 1, "PF", "Parity flag"},
    {Eflags, 4, 1, "AF", "Auxiliary carry flag"},
    {Eflags, 6, 1, "ZF", "Zero flag"},
    {Eflags, 7, 1, "SF", "Sign flag"},
    {Eflags, 8, 1, "TF", "Trap flag"},
    {Eflags, 9, 1, "IF", "Interrupt enable flag"},
    {Eflags, 10, 1, "DF", "Direction flag"},
    {Eflags, 11, 1, "OF", "Overflow flag"},
    {Eflags, 12, 2, "IOPL", "I/O privilege level"},
    {Eflags, 14, 1, "NT", "Nested task"},
    {Eflags, 16, 1, "RF", "Resume flag"},
    {Eflags, 17, 1, "VM", "Virtual-8086 mode"},
    {Eflags, 18, 1, "AC", "Alignment check"},
    {Eflags, 19, 1, "VIF", "Virtual interrupt flag"},
    {Eflags, 20, 1, "VIP", "Virtual interrupt pending"},
    {Eflags, 21, 1, "ID", "ID flag"},
    // SDM Vol. 3, "Control Registers".
    {Cr0, 0, 1, "PE", "Protection enable"},
    {Cr0, 1, 1, "MP", "Monitor coprocessor"},
    {Cr0, 2, 1, "EM", "Emulation"},
    {Cr0, 3, 1, "TS", "Task switched"},
    {Cr0, 4, 1, "ET", "Extension type"},
    {Cr0, 5, 1, "NE", "Numeric error"},
    {Cr0, 16, 1, "WP", "Write protect"},
    {Cr0, 18, 1, "AM", "Alignment mask"},
    {Cr0, 29, 1, "NW", "Not write-through"},
    {Cr0, 30, 1, "CD", "Cache disable"},
    {Cr0, 31, 1, "PG", "Paging"},
    {Cr4, 0, 1, "VME", "Virtual-8086 mode extensions"},
    {Cr4, 1, 1, "PVI", "Protected-mode virtual interrupts"},
    {Cr4, 2, 1, "TSD", "Time stamp disable"},
    {Cr4, 3, 1, "DE", "Debugging extensions"},
    {Cr4, 4, 1, "PSE", "Page size extensions"},
    {Cr4, 5, 1, "PAE", "Physical address extension"},
    {Cr4, 6, 1, "MCE", "Machine-check enable"},
    {Cr4, 7, 1, "PGE", "Page global enable"},
    {Cr4, 8, 1, "PCE", "Performance-monitoring counter enable"},
    // SDM Vol. 3, "Debug Registers" (Figure "Debug Registers").
    {Dr6, 0, 1, "B0", "Breakpoint 0 condition detected"},
    {Dr6, 1, 1, "B1", "Breakpoint 1 condition detected"},
    {Dr6, 2, 1, "B2", "Breakpoint 2 condition detected"},
    {Dr6, 3, 1, "B3", "Breakpoint 3 condition detected"},
    {Dr6, 13, 1, "BD", "Debug register access detected"},
    {Dr6, 14, 1, "BS", "Single step"},
    {Dr6, 15, 1, "BT", "Task switch"},
    {Dr7, 0, 1, "L0", "Local breakpoint enable 0"},
    {Dr7, 1, 1, "G0", "Global breakpoint enable 0"},
    {Dr7, 2, 1, "L1", "Local breakpoint enable 1"},
    {Dr7, 3, 1, "G1", "Global breakpoint enable 1"},
    {Dr7, 4, 1, "L2", "Local breakpoint enable 2"},
    {Dr7, 5, 1, "G2", "Global breakpoint enable 2"},
    {Dr7, 6, 1, "L3", "Local breakpoint enable 3"},
    {Dr7, 7, 1, "G3", "Global breakpoint enable 3"},
    {Dr7, 8, 1, "LE", "Local exact breakpoint enable"},
    {Dr7, 9, 1, "GE", "Global exact breakpoint enable"},
    {Dr7, 13, 1, "GD", "General detect enable"},
    {Dr7, 16, 2, "R/W0", "Breakpoint 0 condition (0 execute, 1 write, 2 I/O, 3 read/write)"},
    {Dr7, 18, 2, "LEN0", "Breakpoint 0 length (0 byte, 1 word, 3 dword)"},
    {Dr7, 20, 2, "R/W1", "Breakpoint 1 condition"},
    {Dr7, 22, 2, "LEN1", "Breakpoint 1 length"},
    {Dr7, 24, 2, "R/W2", "Breakpoint 2 condition"},
    {Dr7, 26, 2, "LEN2", "Breakpoint 2 length"},
    {Dr7, 28, 2, "R/W3", "Breakpoint 3 condition"},
    {Dr7, 30, 2, "LEN3", "Breakpoint 3 length"},
};
static_assert(std::ranges::is_sorted(kFields, {}, &BitField::reg));

constexpr std::array<std::string_view, 8> kGeneralNames = {"EAX", "ECX", "EDX", "EBX", "ESP", "EBP", "ESI", "EDI"};
}  // namespace

std::span<const BitField> bit_fields(BitRegister reg) {
  const auto group = std::ranges::equal_range(kFields, reg, {}, &BitField::reg);
  return {group.begin(), group.end()};
}

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
