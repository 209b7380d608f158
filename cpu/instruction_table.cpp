// Builds the opcode map from the family row lists and parses SDM operand notation.
#include "cpu/instruction_table.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

namespace x86lab {

OperandSpec parse_operand(std::string_view text) {
  using M = OperandMethod;
  using S = OperandSize;
  struct Fixed {
    std::string_view name;
    OperandSpec spec;
  };
  static constexpr Fixed kFixed[] = {
      {"AL", {M::Accumulator, S::b}}, {"AX", {M::Accumulator, S::w}},   {"eAX", {M::Accumulator, S::v}},
      {"CL", {M::Counter, S::b}},     {"DX", {M::Port, S::w}},          {"1", {M::One, S::b}},
      {"ES", {M::Segment, S::w, 0}},  {"CS", {M::Segment, S::w, 1}},    {"SS", {M::Segment, S::w, 2}},
      {"DS", {M::Segment, S::w, 3}},  {"FS", {M::Segment, S::w, 4}},    {"GS", {M::Segment, S::w, 5}},
      {"ST", {M::StackTop}},          {"ST(i)", {M::StackRegister}},
  };
  for (const auto& f : kFixed)
    if (f.name == text) return f.spec;
  if (text.size() < 1 || text.size() > 2) throw std::invalid_argument("unknown operand notation '" + std::string(text) + "'");
  // The addressing-method letter and the operand-size letter (none for a lone letter).
  static constexpr std::pair<char, M> kMethods[] = {{'E', M::E}, {'G', M::G}, {'M', M::M}, {'R', M::R}, {'S', M::S},
                                                    {'C', M::C}, {'D', M::D}, {'I', M::I}, {'J', M::J}, {'A', M::A},
                                                    {'O', M::O}, {'Z', M::Z}, {'X', M::X}, {'Y', M::Y}};
  static constexpr std::pair<char, S> kSizes[] = {{'\0', S::None}, {'b', S::b}, {'w', S::w}, {'d', S::d}, {'v', S::v},
                                                  {'z', S::z},     {'p', S::p}, {'a', S::a}, {'q', S::q}, {'s', S::s}};
  const auto letter = [](const auto& table, char c) {
    const auto* found =
        std::find_if(std::begin(table), std::end(table), [c](const auto& row) { return row.first == c; });
    return found == std::end(table) ? nullptr : &found->second;
  };
  OperandSpec spec;
  const M* method = letter(kMethods, text[0]);
  if (!method) throw std::invalid_argument("unknown operand notation '" + std::string(text) + "'");
  spec.method = *method;
  const S* size = letter(kSizes, text.size() == 2 ? text[1] : '\0');
  if (!size) throw std::invalid_argument("unknown operand size in '" + std::string(text) + "'");
  spec.size = *size;
  return spec;
}

namespace {

bool method_uses_modrm(OperandMethod m) {
  using M = OperandMethod;
  return m == M::E || m == M::G || m == M::M || m == M::R || m == M::S || m == M::C || m == M::D ||
         m == M::StackRegister;
}

TableEntry make_entry(const InstructionForm& form) {
  TableEntry entry;
  entry.form = &form;
  std::string_view rest = form.operands;
  for (unsigned i = 0; !rest.empty(); ++i) {
    if (i == 3) throw std::logic_error("more than 3 operands in " + std::string(form.mnemonic));
    const auto comma = rest.find(',');
    entry.operands[i] = parse_operand(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return entry;
}

void claim(TableEntry& slot, const TableEntry& entry) {
  if (slot.form)
    throw std::logic_error("two rows claim one opcode slot: " + std::string(slot.form->mnemonic) + " and " +
                           std::string(entry.form->mnemonic));
  slot = entry;
}

}  // namespace

InstructionTable::InstructionTable() {
  const FormList families[] = {data_transfer_forms(), arithmetic_forms(), shift_forms(), bit_forms(),
                               decimal_forms(),       stack_forms(),      control_forms(), string_forms(),
                               system_forms(),        segment_forms(),    far_transfer_forms(),
                               x87_forms()};
  // The rows in the map's order (each family's rows keep it; a stable sort by map line
  // interleaves the families as the map does).
  std::vector<const InstructionForm*> in_map_order;
  for (FormList family : families)
    for (const InstructionForm& form : family) in_map_order.push_back(&form);
  std::stable_sort(in_map_order.begin(), in_map_order.end(),
                   [](const InstructionForm* a, const InstructionForm* b) { return a->map_line < b->map_line; });
  {
    for (const InstructionForm* row : in_map_order) {
      const InstructionForm& form = *row;
      TableEntry entry = make_entry(form);
      entry.row = static_cast<u16>(rows_.size());
      rows_.push_back(&form);
      OpcodeSlot& slot = slots_.at(form.opcode);
      bool modrm = form.extension >= 0;
      for (const auto& op : entry.operands) modrm = modrm || method_uses_modrm(op.method);
      slot.needs_modrm = slot.needs_modrm || modrm;
      for (const auto& op : entry.operands) slot.modrm_always_register |= op.method == OperandMethod::R;
      if (form.rm >= 0) {
        // An x87 register form named by the whole ModRM byte: a table by ModRM.rm for its ModRM.reg.
        if (form.extension < 0 || !(form.attributes & kRegisterOnly) || form.rm > 7)
          throw std::logic_error("a row keyed by ModRM.rm needs a ModRM.reg extension and kRegisterOnly: " +
                                 std::string(form.mnemonic));
        auto& by_rm = slot.registers_by_rm[form.extension];
        if (!by_rm) {
          if (slot.registers[form.extension].form) throw std::logic_error("rows by ModRM.reg and by ModRM.rm clash: " + std::string(form.mnemonic));
          by_rm = &rm_tables_.emplace_back();
        }
        claim((*by_rm)[form.rm], entry);
        continue;
      }
      for (int reg = 0; reg < 8; ++reg) {
        if (form.extension >= 0 && reg != form.extension) continue;
        if (!(form.attributes & kRegisterOnly)) claim(slot.memory[reg], entry);
        if (!(form.attributes & kMemoryOnly)) {
          if (slot.registers_by_rm[reg]) throw std::logic_error("rows by ModRM.reg and by ModRM.rm clash: " + std::string(form.mnemonic));
          claim(slot.registers[reg], entry);
        }
      }
    }
  }
}

const InstructionTable& InstructionTable::get() {
  static const InstructionTable table;
  return table;
}

}  // namespace x86lab
