// Parsing the METRIC/SAMPLES line protocol of scenario guests (docs/compare.md).
#include "platform/scenario/console_report.h"

#include <charconv>

namespace x86lab {
namespace {

bool is_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Splits at runs of spaces and tabs (a trailing '\r' counts as space).
std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

bool parse_integer(std::string_view word, i64& value) {
  const char* end = word.data() + word.size();
  const auto [ptr, error] = std::from_chars(word.data(), end, value);
  return error == std::errc() && ptr == end;
}

// Parses one METRIC or SAMPLES line into `report`; returns the problem, or "".
std::string parse_line(const std::vector<std::string_view>& words, ConsoleReport& report) {
  const bool metric = words[0] == "METRIC";
  if (words.size() < 2) return std::string(words[0]) + " without a name";
  const std::string name(words[1]);
  if (!is_metric_name(name)) return std::string(words[0]) + " name '" + name + "' is not [a-z0-9_]+";
  if (metric && words.size() != 3) return "METRIC " + name + " needs exactly one value";
  std::vector<i64> values;
  for (std::size_t i = 2; i < words.size(); ++i) {
    i64 value = 0;
    if (!parse_integer(words[i], value))
      return std::string(words[0]) + " " + name + " value '" + std::string(words[i]) + "' is not an integer";
    values.push_back(value);
  }
  if (metric) {
    report.metrics[name] = values[0];
  } else {
    auto& samples = report.samples[name];
    samples.insert(samples.end(), values.begin(), values.end());
  }
  return {};
}

}  // namespace

ConsoleReport parse_console(std::string_view text) {
  ConsoleReport report;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    const auto words = words_of(line);
    if (words.empty() || (words[0] != "METRIC" && words[0] != "SAMPLES")) continue;
    const std::string problem = parse_line(words, report);
    if (!problem.empty()) report.malformed.push_back("line " + std::to_string(line_number) + ": " + problem);
  }
  return report;
}

}  // namespace x86lab
