// Cost-model files: parsing and validation (docs/cost-model.md).
#include "trace/cost_model.h"

#include <algorithm>
#include <bit>
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

// The cache model's keys (docs/cost-model.md, "Cache model"): l1i-size, l1i-ways,
// l1i-line (whole powers of two: bytes, ways, bytes) and l1i-miss (cycles), the same
// for l1d. True when `key` is one of them.
bool parse_cache_key(CostModel& model, const std::string& key, double value, const std::string& where,
                     std::map<std::string, int>& lines, int number) {
  if (key.size() < 5 || (key.rfind("l1i-", 0) != 0 && key.rfind("l1d-", 0) != 0)) return false;
  CacheGeometry& geometry = key[2] == 'i' ? model.l1i : model.l1d;
  const std::string what = key.substr(4);
  if (what == "miss") {
    (key[2] == 'i' ? model.l1i_miss : model.l1d_miss) = static_cast<u32>(std::lround(value * kSubcyclesPerCycle));
    return true;
  }
  u32 CacheGeometry::*member = what == "size" ? &CacheGeometry::size
                               : what == "ways" ? &CacheGeometry::ways
                               : what == "line" ? &CacheGeometry::line
                                                : nullptr;
  if (!member) return false;
  constexpr double kLargest = 1 << 24;  // (below kMaxCostCycles, checked first)
  if (value < 1 || value > kLargest || value != std::floor(value) || !std::has_single_bit(static_cast<u32>(value)))
    throw std::invalid_argument(where + "'" + key + "' must be a whole power of two from 1 to 2^24");
  if (what == "line" && (value < 32 || value > 4096))
    throw std::invalid_argument(where + "'" + key + "' must be 32 to 4096 bytes");
  geometry.*member = static_cast<u32>(value);
  lines[key] = number;
  return true;
}

// Each cache is given whole (size, ways and line) or not at all, and holds at least one set.
void check_cache_geometry(const CostModel& model, const std::string& file_name, const std::map<std::string, int>& lines) {
  for (const char* cache : {"l1i", "l1d"}) {
    const CacheGeometry& g = cache[2] == 'i' ? model.l1i : model.l1d;
    const std::string prefix = std::string(cache) + "-";
    const bool any = g.size || g.ways || g.line;
    int line = 0;
    for (const char* part : {"size", "ways", "line"})
      if (const auto it = lines.find(prefix + part); it != lines.end()) line = std::max(line, it->second);
    const std::string where = file_name + ":" + std::to_string(line) + ": ";
    if (any && !(g.size && g.ways && g.line))
      throw std::invalid_argument(where + "'" + cache + "' needs all of " + prefix + "size, " + prefix + "ways and " +
                                  prefix + "line");
    if (any && u64{g.ways} * g.line > g.size)
      throw std::invalid_argument(where + "'" + cache + "': " + prefix + "ways times " + prefix + "line exceeds " +
                                  prefix + "size");
  }
}

}  // namespace

CostModel parse_cost_model(const std::string& text, const std::string& file_name, const MnemonicCheck& is_mnemonic) {
  CostModel model;
  std::map<std::string, int> key_lines;  // each key given, and its line
  std::map<std::string, int> cache_key_lines;  // the cache geometry keys given, and their lines
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
    bool known = parse_cache_key(model, key, value, where, cache_key_lines, number);
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
  check_cache_geometry(model, file_name, cache_key_lines);
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
