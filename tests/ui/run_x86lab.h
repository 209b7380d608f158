// Runs the built x86lab binary with arguments and captures its exit status and its
// stdout and stderr together, for tests of the command line.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace x86lab::testing {

struct Outcome {
  int status;
  std::string output;  // stdout and stderr together
};

inline Outcome run_x86lab(const std::string& arguments) {
  const std::string command = std::string(X86LAB_BINARY) + " " + arguments + " 2>&1";
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

}  // namespace x86lab::testing
