// The x86lab executable: hands the command line to run_cli (ui/cli.cpp), then checks
// that standard output took everything written to it (a full disk, /dev/full).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "ui/cli.h"

int main(int argc, char** argv) {
  const int status = x86lab::run_cli(std::vector<std::string>(argv + 1, argv + argc));
  std::cout.flush();
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || std::cout.fail()) {
    const int error = errno;
    std::cerr << "x86lab: cannot write standard output: " << (error ? std::strerror(error) : "write error") << "\n";
    return 2;
  }
  return status;
}
