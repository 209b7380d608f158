// The x86lab executable: hands the command line to run_cli (ui/cli.cpp).
#include <string>
#include <vector>

#include "ui/cli.h"

int main(int argc, char** argv) {
  return x86lab::run_cli(std::vector<std::string>(argv + 1, argv + argc));
}
