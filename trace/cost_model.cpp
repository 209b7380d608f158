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

struct Tag {
  const char* text;
  Provenance kind;
};
constexpr Tag kTags[] = {{"source:", Provenance::Source},
                         {"assumption:", Provenance::Assumption},
                         {"calibrated on:", Provenance::Calibrated}};

// Splits "number  TAG text" into the number's text and the provenance (the first tag
// on the line is the tag); `where` prefixes errors.
std::pair<std::string, ConstantProvenance> split_tag(const std::string& rest, const std::string& key,
                                                     const std::string& where) {
  std::size_t at = std::string::npos;
  const Tag* found = nullptr;
  for (const Tag& tag : kTags) {
    const auto position = rest.find(tag.text);
    if (position == std::string::npos) continue;
    if (!found || position < at) at = position, found = &tag;  // the first tag; later ones are text
  }
  if (!found)
    throw std::invalid_argument(where + "the number for '" + key +
                                "' has no provenance (source:, assumption: or calibrated on:)");
  const std::string text = trim(rest.substr(at + std::string(found->text).size()));
  if (text.empty()) throw std::invalid_argument(where + "the " + found->text + " of '" + key + "' is empty");
  ConstantProvenance provenance;
  provenance.kind = found->kind, provenance.text = text;
  return {trim(rest.substr(0, at)), provenance};
}

// Splits an optional range "[low..high]" off the end of `value_text` into `provenance`
// (docs/cost-model.md, "Ranges"); `where` prefixes errors.
void parse_range(std::string& value_text, ConstantProvenance& provenance, const std::string& key,
                 const std::string& where) {
  const auto open = value_text.find('[');
  if (open == std::string::npos) return;
  const auto close = value_text.find(']', open);
  const auto dots = value_text.find("..", open);
  const auto bad = [&](const std::string& problem) {
    return std::invalid_argument(where + "the range of '" + key + "' " + problem);
  };
  if (close == std::string::npos || close + 1 != value_text.size() || dots == std::string::npos || dots > close)
    throw bad("must be written [low..high] after the number");
  const auto number = [&](const std::string& text) {
    std::size_t used = 0;
    double v = -1;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || v < 0 || !std::isfinite(v) || v > kMaxCostCycles)
      throw bad("has '" + text + "', not a non-negative number");
    return v;
  };
  provenance.low = number(trim(value_text.substr(open + 1, dots - open - 1)));
  provenance.high = number(trim(value_text.substr(dots + 2, close - dots - 2)));
  if (provenance.low > provenance.high) throw bad("has low above high");
  if (provenance.kind != Provenance::Assumption) throw bad("is given on a line not tagged assumption:");
  const auto reason = provenance.text.find("range:");
  if (reason == std::string::npos || trim(provenance.text.substr(reason + 6)).empty())
    throw bad("has no reasoning (\"range: why these bounds\" in the text)");
  provenance.range_reason = trim(provenance.text.substr(reason + 6));
  provenance.range_given = true;
  value_text = trim(value_text.substr(0, open));
}

// The cache model's keys (docs/cost-model.md, "Cache model"): l1i-size, l1i-ways,
// l1i-line (whole powers of two: bytes, ways, bytes), the same for l1d (the miss
// costs l1i-miss and l1d-miss are CostParts). True when `key` is one of them.
bool parse_cache_key(CostModel& model, const std::string& key, double value, const std::string& where,
                     std::map<std::string, int>& lines, int number) {
  if (key.size() < 5 || (key.rfind("l1i-", 0) != 0 && key.rfind("l1d-", 0) != 0)) return false;
  CacheGeometry& geometry = key[2] == 'i' ? model.l1i : model.l1d;
  const std::string what = key.substr(4);  // ("miss" is a CostPart: l1i-miss, l1d-miss)
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

const char* name_of(Provenance provenance) {
  switch (provenance) {
    case Provenance::Source: return "source";
    case Provenance::Assumption: return "assumption";
    case Provenance::Calibrated: return "calibrated";
  }
  return "?";
}

CostModel parse_cost_model(const std::string& text, const std::string& file_name, const MnemonicCheck& is_mnemonic) {
  CostModel model;
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
    auto [value_text, provenance] = split_tag(trim(content.substr(equals + 1)), key, where);
    provenance.line = number;
    if (const auto first = model.provenance.find(key); first != model.provenance.end())
      throw std::invalid_argument(where + "'" + key + "' is given twice (first on line " +
                                  std::to_string(first->second.line) + ")");
    if (key != "name") parse_range(value_text, provenance, key, where);
    if (key == "name") {
      model.name = value_text;
      model.provenance.emplace(key, provenance);
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
    provenance.value = value;
    if (provenance.range_given) {
      if (provenance.low > value || provenance.high < value)
        throw std::invalid_argument(where + "the range of '" + key + "' does not hold its value " + value_text);
    } else if (provenance.kind == Provenance::Assumption) {
      provenance.low = value / 2, provenance.high = value * 2;  // the default: half to double
    } else {
      provenance.low = provenance.high = value;
    }
    const u32 subcycles = static_cast<u32>(std::lround(value * kSubcyclesPerCycle));
    bool known = parse_cache_key(model, key, value, where, cache_key_lines, number);
    for (std::size_t p = 0; p < kCostPartCount; ++p)
      if (key == kCostPartKeys[p]) model.parts[p] = subcycles, known = true;
    if (key == "cpu-mhz") {
      if (value <= 0) throw std::invalid_argument(where + "cpu-mhz must be positive");
      model.cpu_mhz = value;
      known = true;
    } else if (key == "instruction.default") {
      throw std::invalid_argument(where + "there is no instruction.default: give each instruction its own cost");
    } else if (key.rfind("instruction.", 0) == 0) {
      const std::string mnemonic = key.substr(12);
      if (mnemonic.empty() || mnemonic.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != std::string::npos)
        throw std::invalid_argument(where + "'" + mnemonic + "' is not an upper-case mnemonic");
      if (is_mnemonic && !is_mnemonic(mnemonic))
        throw std::invalid_argument(where + "no instruction '" + mnemonic + "' in x86lab's instruction table");
      model.instruction[mnemonic] = subcycles;
      known = true;
    }
    if (!known) throw std::invalid_argument(where + "unknown key '" + key + "'");
    model.provenance.emplace(key, provenance);
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

std::string builtin_cost_model_text(const std::string& name) {
  for (const auto& file : kBuiltinCostModels)
    if (name == file.name) return file.text;
  throw std::invalid_argument("unknown profile '" + name + "'");
}

CostModel builtin_cost_model(const std::string& name) {
  return parse_cost_model(builtin_cost_model_text(name), "trace/profiles/" + name + ".cost", {});
}

}  // namespace x86lab
