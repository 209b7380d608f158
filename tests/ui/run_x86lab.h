// Runs the built x86lab binary with arguments and captures its exit status and its
// stdout and stderr together, for tests of the command line; and the bad-input
// contract those tests check (README "Exit status": one line, exit status 2).
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace x86lab::testing {

struct Outcome {
  int status;
  std::string output;  // stdout and stderr together
};

// Standard input is /dev/null, so that no run waits on the terminal.
inline Outcome run_x86lab(const std::string& arguments) {
  const std::string command = std::string(X86LAB_BINARY) + " " + arguments + " 2>&1 </dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  Outcome outcome{-1, {}};
  if (!pipe) return outcome;
  std::array<char, 512> buffer;
  while (fgets(buffer.data(), buffer.size(), pipe)) outcome.output += buffer.data();
  const int raw = pclose(pipe);
  outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return outcome;
}

// The number of lines in `text`.
inline int line_count(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// The whole file at `path` (empty when it cannot be read).
inline std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The cells of the table row `label` of `x86lab compare`'s text output (after the
// label, split at blanks); empty when no row has that label.
inline std::vector<std::string> row_cells(const std::string& output, const std::string& label) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    line.erase(0, line.find_first_not_of(' '));
    if (line.rfind(label + "  ", 0) != 0) continue;
    std::istringstream cells(line.substr(label.size()));
    std::vector<std::string> values;
    for (std::string cell; cells >> cell;) values.push_back(cell);
    return values;
  }
  return {};
}

// `arguments` are rejected with exit status 2 and exactly the line "x86lab: <message>".
inline void expect_rejected(const std::string& arguments, const std::string& message) {
  SCOPED_TRACE("x86lab " + arguments);
  const Outcome o = run_x86lab(arguments);
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: " + message + "\n");
}

// A command line and the message x86lab must reject it with (see expect_rejected);
// `name` (letters and digits) names the test case.
struct Rejection {
  std::string name;
  std::string arguments;
  std::string message;
};

// A test file lists its rejected command lines as a table of Rejection rows:
//   INSTANTIATE_TEST_SUITE_P(Suite, RejectedCommandLine, ::testing::ValuesIn(rows), rejection_name);
// The one test body, expect_rejected of each row, is in cli_test.cpp.
class RejectedCommandLine : public ::testing::TestWithParam<Rejection> {};
inline std::string rejection_name(const ::testing::TestParamInfo<Rejection>& info) { return info.param.name; }
inline void PrintTo(const Rejection& rejection, std::ostream* out) { *out << "x86lab " << rejection.arguments; }

// `arguments` are rejected with exit status 2 and one line; the outcome is returned
// for checks of that line.
inline Outcome expect_rejected_in_one_line(const std::string& arguments) {
  SCOPED_TRACE("x86lab " + arguments);
  const Outcome o = run_x86lab(arguments);
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(line_count(o.output), 1) << o.output;
  return o;
}

}  // namespace x86lab::testing
