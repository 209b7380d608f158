// Cost-model files: parsing and validation (docs/cost-model.md).
#include "trace/cost_model.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "trace/cost_model_data.h"

namespace x86lab {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

CostModel parse_cost_model(const std::string& text, const std::string& file_name, const MnemonicCheck& is_mnemonic) {
  CostModel model;
  std::map<std::string, int> key_lines;  // each key given, and its line
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const std::string where = file_name + ":" + std::to_string(number) + ": ";
    if (line.find('\0') != std::string::npos) throw std::invalid_argument(where + "a NUL byte (not a text file)");
    const std::string content = trim(line);
    if (content.empty() || content[0] == '#') continue;
    const auto equals = content.find('=');
    if (equals == std::string::npos) throw std::invalid_argument(where + "expected 'key = number  source: ...'");
    const std::string key = trim(content.substr(0, equals));
    std::string rest = trim(content.substr(equals + 1));
    const auto source_at = rest.find("source:");
    if (source_at == std::string::npos || trim(rest.substr(source_at + 7)).empty())
      throw std::invalid_argument(where + "the number for '" + key + "' has no source");
    const std::string value_text = trim(rest.substr(0, source_at));
    if (const auto [first, added] = key_lines.try_emplace(key, number); !added)
      throw std::invalid_argument(where + "'" + key + "' is given twice (first on line " +
                                  std::to_string(first->second) + ")");
    if (key == "name") {
      model.name = value_text;
      continue;
    }
    double value;
    std::size_t used = 0;
    try {
      value = std::stod(value_text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value_text.size() || value < 0 || !std::isfinite(value))
      throw std::invalid_argument(where + "'" + value_text + "' is not a non-negative number");
    if (key != "cpu-mhz" && value > kMaxCostCycles)
      throw std::invalid_argument(where + "'" + value_text + "' cycles is too large (at most " +
                                  std::to_string(kMaxCostCycles) + ")");
    const u32 subcycles = static_cast<u32>(std::lround(value * kSubcyclesPerCycle));
    struct Field {
      const char* key;
      u32 CostModel::*member;
    };
    static constexpr Field kFields[] = {
        {"instruction.default", &CostModel::instruction_default}, {"memory-operand", &CostModel::memory_operand},
        {"segment-load", &CostModel::segment_load},               {"locked-access", &CostModel::locked_access},
        {"far-transfer", &CostModel::far_transfer},               {"exception-delivery", &CostModel::exception_delivery},
        {"interrupt-delivery", &CostModel::interrupt_delivery},   {"iret", &CostModel::iret},
        {"task-switch", &CostModel::task_switch},                 {"page-walk", &CostModel::page_walk},
        {"new-code-line", &CostModel::new_code_line},             {"string-iteration", &CostModel::string_iteration},
    };
    bool known = false;
    for (const Field& field : kFields)
      if (key == field.key) model.*field.member = subcycles, known = true;
    if (key == "cpu-mhz") {
      if (value <= 0) throw std::invalid_argument(where + "cpu-mhz must be positive");
      model.cpu_mhz = value;
      known = true;
    } else if (key.rfind("instruction.", 0) == 0 && key != "instruction.default") {
      const std::string mnemonic = key.substr(12);
      if (mnemonic.empty() || mnemonic.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != std::string::npos)
        throw std::invalid_argument(where + "'" + mnemonic + "' is not an upper-case mnemonic");
      if (is_mnemonic && !is_mnemonic(mnemonic))
        throw std::invalid_argument(where + "no instruction '" + mnemonic + "' in x86lab's instruction table");
      model.instruction[mnemonic] = subcycles;
      known = true;
    }
    if (!known) throw std::invalid_argument(where + "unknown key '" + key + "'");
  }
  if (model.name.empty()) throw std::invalid_argument(file_name + ": no 'name = ...' line");
  return model;
}

const std::vector<std::string>& builtin_cost_model_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const auto& file : kBuiltinCostModels) result.emplace_back(file.name);
    return result;
  }();
  return names;
}

CostModel builtin_cost_model(const std::string& name) {
  for (const auto& file : kBuiltinCostModels)
    if (name == file.name) return parse_cost_model(file.text, std::string("trace/profiles/") + file.name + ".cost", {});
  throw std::invalid_argument("unknown profile '" + name + "'");
}

}  // namespace x86lab
