// Parsing of inspector scripts (see script.h for the commands).
#include "ui/gui/script.h"

#include <SDL.h>

#include <cstring>
#include <map>
#include <sstream>

#include "platform/debugger/breakpoint_spec.h"
#include "platform/input_error.h"
#include "ui/gui/input_queue.h"
#include "ui/gui/widgets.h"

namespace x86lab::gui {

namespace {
u64 decimal(const std::string& word, const std::string& what) {
  if (word.empty() || word.size() > 18 || word.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(what + " must be a whole decimal number, not '" + word + "'");
  return std::stoull(word);
}

u32 address(const std::string& word) {
  const auto value = parse_hex(word.c_str());
  if (!value) throw std::invalid_argument("'" + word + "' is not a hex address");
  return *value;
}

// The rest of the line after the verb, trimmed (paths and window titles may hold spaces).
std::string rest_of(std::istringstream& in) {
  std::string rest;
  std::getline(in, rest);
  const auto first = rest.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  rest = rest.substr(first);
  rest.erase(rest.find_last_not_of(" \t\r") + 1);
  if (rest.size() >= 2 && rest.front() == '"' && rest.back() == '"') rest = rest.substr(1, rest.size() - 2);
  return rest;
}

ScriptCommand parse_line(const std::string& verb, std::istringstream& in) {
  static const std::map<std::string, ScriptVerb> kVerbs = {
      {"step", ScriptVerb::Step},     {"back", ScriptVerb::Back},     {"run-back", ScriptVerb::RunBack},
      {"goto", ScriptVerb::GoTo},     {"snapshot", ScriptVerb::SnapshotSave},
      {"over", ScriptVerb::Over},     {"out", ScriptVerb::Out},
      {"run-to", ScriptVerb::RunTo},  {"run", ScriptVerb::Run},       {"break", ScriptVerb::Break},   {"break-on", ScriptVerb::BreakOn},
      {"memory", ScriptVerb::Memory}, {"walk", ScriptVerb::Walk},     {"open", ScriptVerb::Open},
      {"close", ScriptVerb::Close},   {"click", ScriptVerb::Click},   {"frames", ScriptVerb::Frames},
      {"key", ScriptVerb::Key},       {"drag", ScriptVerb::Drag},     {"type", ScriptVerb::Type},
      {"focus", ScriptVerb::Focus},
      {"compare", ScriptVerb::Compare},
      {"screenshot", ScriptVerb::Screenshot}, {"screenshot-window", ScriptVerb::ScreenshotWindow},
      {"place", ScriptVerb::Place}, {"dump", ScriptVerb::Dump}, {"quit", ScriptVerb::Quit}};
  const auto found = kVerbs.find(verb);
  if (found == kVerbs.end()) throw std::invalid_argument("unknown command '" + verb + "'");
  ScriptCommand command{found->second};
  std::vector<std::string> words;
  std::string text;
  switch (command.verb) {
    case ScriptVerb::Type: {
      std::string rest;
      std::getline(in, rest);
      if (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
      rest.erase(rest.find_last_not_of("\r") + 1);
      // "\n" stands for Return.
      for (std::size_t i = 0; i < rest.size(); ++i) {
        const bool newline = rest[i] == '\\' && i + 1 < rest.size() && rest[i + 1] == 'n';
        command.text += newline ? '\n' : rest[i];
        if (newline) ++i;
      }
      if (command.text.empty()) throw std::invalid_argument("type needs the text to type");
      typed(command.text);  // refused now: a character no key types
      return command;
    }
    case ScriptVerb::SnapshotSave: {
      std::string action;
      in >> action;
      if (action != "save" && action != "load") throw std::invalid_argument("snapshot takes 'save FILE' or 'load FILE'");
      if (action == "load") command.verb = ScriptVerb::SnapshotLoad;
      command.text = rest_of(in);
      if (command.text.empty()) throw std::invalid_argument("snapshot " + action + " needs a file path");
      return command;
    }
    case ScriptVerb::Open: case ScriptVerb::Close: case ScriptVerb::Focus: case ScriptVerb::Screenshot: case ScriptVerb::Dump:
    case ScriptVerb::Compare: case ScriptVerb::BreakOn: {
      command.text = rest_of(in);
      if (command.verb == ScriptVerb::BreakOn) {
        if (command.text.empty()) throw std::invalid_argument("break-on needs a breakpoint (break-on vector 13)");
        parse_breakpoint(command.text);  // refused now, before anything runs
        return command;
      }
      const char* what = command.verb == ScriptVerb::Compare ? "a scenario name"
                         : command.verb == ScriptVerb::Open || command.verb == ScriptVerb::Close ||
                                   command.verb == ScriptVerb::Focus
                             ? "a window title"
                                                                                                  : "a file path";
      if (command.text.empty()) throw std::invalid_argument(verb + " needs " + what);
      return command;
    }
    case ScriptVerb::ScreenshotWindow: {
      in >> command.text;
      command.title = rest_of(in);
      if (command.text.empty() || command.title.empty())
        throw std::invalid_argument("screenshot-window needs a file path and a window title");
      return command;
    }
    case ScriptVerb::Place: {
      const char* names[] = {"X", "Y", "the width", "the height"};
      u64* fields[] = {&command.number, &command.number2, &command.number3, &command.number4};
      for (int i = 0; i < 4; ++i) {
        std::string word;
        if (!(in >> word)) throw std::invalid_argument("place takes X Y WIDTH HEIGHT and a window title");
        *fields[i] = decimal(word, names[i]);
        if (*fields[i] > 16384) throw std::invalid_argument(std::string(names[i]) + " must be at most 16384 pixels");
      }
      command.title = rest_of(in);
      if (command.title.empty()) throw std::invalid_argument("place needs a window title after X Y WIDTH HEIGHT");
      return command;
    }
    default: break;
  }
  for (std::string word; in >> word;) words.push_back(word);
  auto need = [&](std::size_t low, std::size_t high) {
    if (words.size() < low || words.size() > high)
      throw std::invalid_argument(verb + " takes " + (low == high ? std::to_string(low) : std::to_string(low) + " to " + std::to_string(high)) + " argument(s)");
  };
  switch (command.verb) {
    case ScriptVerb::Step: case ScriptVerb::Back:
      need(0, 1);
      command.number = words.empty() ? 1 : decimal(words[0], "the step count");
      break;
    case ScriptVerb::GoTo:
      need(1, 1);
      command.number = decimal(words[0], "the step");
      break;
    case ScriptVerb::Run:
      need(0, 1);
      command.flag = !words.empty();
      if (command.flag) command.number = decimal(words[0], "the step limit");
      break;
    case ScriptVerb::Over: case ScriptVerb::Out: case ScriptVerb::RunBack: case ScriptVerb::Quit: need(0, 0); break;
    case ScriptVerb::RunTo: case ScriptVerb::Walk:
      need(1, 1);
      command.number = address(words[0]);
      break;
    case ScriptVerb::Break:
      need(1, 2);
      if (words[0] == "vector") {
        need(2, 2);
        command.verb = ScriptVerb::BreakVector;
        command.number = decimal(words[1], "the vector");
        if (command.number > 255) throw std::invalid_argument("the vector must be 0 to 255");
      } else {
        need(1, 1);
        command.number = address(words[0]);
      }
      break;
    case ScriptVerb::Memory:
      need(1, 2);
      command.number = address(words[0]);
      if (words.size() == 2 && words[1] != "physical") throw std::invalid_argument("memory ADDR takes only 'physical' after it");
      command.flag = words.size() == 2;
      break;
    case ScriptVerb::Click:
      need(2, 2);
      command.number = decimal(words[0], "X");
      command.number2 = decimal(words[1], "Y");
      break;
    case ScriptVerb::Drag:
      need(4, 4);
      command.number = decimal(words[0], "X1");
      command.number2 = decimal(words[1], "Y1");
      command.number3 = decimal(words[2], "X2");
      command.number4 = decimal(words[3], "Y2");
      break;
    case ScriptVerb::Key: {
      need(1, 2);
      command.number = words.size() == 2 ? decimal(words[1], "the tap count") : 1;
      if (command.number == 0 || command.number > 1000) throw std::invalid_argument("the tap count must be 1 to 1000");
      std::string name = words[0];
      static const std::pair<const char*, Uint16> kModifiers[] = {{"Shift+", KMOD_SHIFT}, {"Ctrl+", KMOD_CTRL}, {"Alt+", KMOD_ALT}};
      for (bool more = true; more;) {
        more = false;
        for (const auto& [prefix, mod] : kModifiers)
          if (name.size() > std::strlen(prefix) && name.compare(0, std::strlen(prefix), prefix) == 0) {
            command.number2 |= mod;
            name.erase(0, std::strlen(prefix));
            more = true;
          }
      }
      if (SDL_GetScancodeFromName(name.c_str()) == SDL_SCANCODE_UNKNOWN)
        throw std::invalid_argument("no key '" + name + "' (SDL key names: F11, Return, Space, A)");
      command.text = name;
      break;
    }
    case ScriptVerb::Frames:
      need(1, 1);
      command.number = decimal(words[0], "the frame count");
      break;
    default: break;
  }
  return command;
}
}  // namespace

std::vector<ScriptCommand> parse_script(const std::string& text, const std::string& name) {
  std::vector<ScriptCommand> commands;
  std::istringstream lines(text);
  std::string line;
  for (unsigned number = 1; std::getline(lines, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream in(line);
    std::string verb;
    if (!(in >> verb)) continue;
    try {
      commands.push_back(parse_line(verb, in));
      commands.back().line = number;
    } catch (const std::invalid_argument& problem) {
      throw InputError("script '" + name + "' line " + std::to_string(number) + ": " + problem.what());
    }
  }
  return commands;
}

std::vector<ScriptCommand> load_script(const std::filesystem::path& path) {
  return parse_script(read_input_text(path.string(), "script", kTextInputLimit), path.string());
}

}  // namespace x86lab::gui
