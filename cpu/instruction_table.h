// The opcode map assembled from every family's rows (the lines of cpu/opcode_map.tsv,
// compiled into the kForms table of each family file), with each row's operand
// notation parsed once. Lookups are by opcode, ModRM.reg and whether
// ModRM names a register or memory.
#pragma once
#include <array>
#include <deque>
#include <vector>

#include "cpu/instruction.h"

namespace x86lab {

// Each family file defines one of these, returning its rows in the map's order.
FormList data_transfer_forms();   // exec_data.cpp
FormList arithmetic_forms();      // exec_arithmetic.cpp
FormList shift_forms();           // exec_shift.cpp
FormList bit_forms();             // exec_bits.cpp
FormList decimal_forms();         // exec_decimal.cpp
FormList stack_forms();           // exec_stack.cpp
FormList control_forms();         // exec_control.cpp
FormList string_forms();          // exec_string.cpp
FormList system_forms();          // exec_system.cpp
FormList segment_forms();         // exec_segment.cpp
FormList far_transfer_forms();    // far_transfer.cpp
FormList x87_forms();             // x87/x87_forms.cpp (D8-DF, 9B)

struct TableEntry {
  const InstructionForm* form = nullptr;
  u16 row = 0;  // index of the form in InstructionTable::rows()
  std::array<OperandSpec, 3> operands{};
  u8 immediate_kinds = 0;  // internal: which immediates follow ModRM
};

struct OpcodeSlot {
  bool needs_modrm = false;
  bool modrm_always_register = false;  // MOV CRn/DRn: ModRM.mod is ignored (SDM "MOV - Move to/from Control Registers")
  // Forms by ModRM.reg for memory (mod != 3) and register (mod = 3) operands.
  // Rows without an extension fill all eight.
  std::array<TableEntry, 8> memory{};
  std::array<TableEntry, 8> registers{};
  // x87 escapes whose register forms the SDM names by ModRM.rm too (D9 E0-FF): for
  // such a ModRM.reg, eight forms by ModRM.rm replace registers[reg].
  std::array<std::array<TableEntry, 8>*, 8> registers_by_rm{};
};

class InstructionTable {
 public:
  // The table of all rows; built on first use. Throws std::logic_error if two rows
  // claim the same slot or a row's operand notation is unknown.
  static const InstructionTable& get();

  const OpcodeSlot& slot(u16 opcode) const { return slots_[opcode]; }
  const std::vector<const InstructionForm*>& rows() const { return rows_; }

 private:
  InstructionTable();
  std::array<OpcodeSlot, 512> slots_{};
  std::vector<const InstructionForm*> rows_;
  std::deque<std::array<TableEntry, 8>> rm_tables_;  // storage behind registers_by_rm
};

}  // namespace x86lab
