// --help text (see help_text.h).
#include "ui/help_text.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

namespace po = boost::program_options;

namespace x86lab {

namespace {

constexpr unsigned kIndent = 2, kDescriptionColumn = 40;

// Where to cut a word of `word.size()` > `room` characters: after the last ',', '|',
// '/' or '-' that leaves at most `room` characters, else at `room`.
std::size_t cut_point(const std::string& word, std::size_t room) {
  for (std::size_t at = std::min(room, word.size() - 1); at > 0; --at)
    if (std::string_view(",|/-").find(word[at - 1]) != std::string_view::npos) return at;
  return std::max<std::size_t>(room, 1);
}

}  // namespace

std::string wrap_words(const std::string& text, unsigned indent, unsigned first_column, unsigned width) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  std::string out;
  std::size_t column = first_column;
  bool line_empty = true;
  const std::size_t line_room = width > indent ? width - indent : 1;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string word = words[i];
    while (!word.empty()) {
      const std::size_t need = word.size() + (line_empty ? 0 : 1);
      if (column + need <= width) {
        if (!line_empty) out += ' ';
        out += word;
        column += need;
        line_empty = false;
        break;
      }
      if (!line_empty && word.size() <= line_room) {  // the word fits on the next line
        out += '\n';
        out.append(indent, ' ');
        column = indent;
        line_empty = true;
        continue;
      }
      // Longer than a whole line: as much as fits here (or on a fresh line).
      const std::size_t room = width - column - (line_empty ? 0 : 1);
      if (room < 8 && !line_empty) {
        out += '\n';
        out.append(indent, ' ');
        column = indent;
        line_empty = true;
        continue;
      }
      const std::size_t cut = cut_point(word, room);
      if (!line_empty) out += ' ';
      out += word.substr(0, cut);
      word = word.substr(cut);
      out += '\n';
        out.append(indent, ' ');
      column = indent;
      line_empty = true;
    }
  }
  return out;
}

std::string format_options(const po::options_description& options, unsigned width) {
  // Boost's own text gives the order, the captions and the blank lines; each option's
  // line is rebuilt from its name, parameter and description.
  std::map<std::string, const po::option_description*> by_name;
  for (const auto& option : options.options()) {
    std::string name = option->format_name();
    const std::string parameter = option->format_parameter();
    if (!parameter.empty()) name += " " + parameter;
    by_name[name] = option.get();
  }
  std::ostringstream boost_text;
  boost_text << options;
  std::istringstream lines(boost_text.str());
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  -", 0) != 0) {
      // A caption or blank line; a continuation of Boost's wrapping is dropped.
      if (line.empty() || line[0] != ' ') out += line + "\n";
      continue;
    }
    // The longest known name that starts the line (a name may be a prefix of another).
    const po::option_description* found = nullptr;
    std::string found_name;
    for (const auto& [name, option] : by_name)
      if (line.compare(kIndent, name.size(), name) == 0 && name.size() > found_name.size() &&
          (line.size() == kIndent + name.size() || line[kIndent + name.size()] == ' '))
        found = option, found_name = name;
    if (!found) {
      out += line + "\n";
      continue;
    }
    std::string text = std::string(kIndent, ' ') + found_name;
    const std::string& description = found->description();
    if (!description.empty()) {
      if (text.size() + 1 > kDescriptionColumn) {
        text += '\n';
        text.append(kDescriptionColumn, ' ');
      } else {
        text.append(kDescriptionColumn - text.size(), ' ');
      }
      text += wrap_words(description, kDescriptionColumn, kDescriptionColumn, width);
    }
    out += text + "\n";
  }
  return out;
}

}  // namespace x86lab
