#include "ui/compare_make_stream.h"

#include <boost/program_options.hpp>
#include <iostream>

#include "platform/input_error.h"
#include "platform/scenario/tls_stream.h"

namespace x86lab {

namespace po = boost::program_options;

int make_stream_command(const std::vector<std::string>& args) {
  po::options_description options("x86lab compare make-stream --pattern NAME --out FILE");
  options.add_options()("help,h", "this text")(
      "pattern", po::value<std::string>()->value_name("NAME"),
      "synthetic (the tls program's own accesses), positive (its offsets made non-negative), threads:T (round robin "
      "over T threads at each yield, 1-16)")("out", po::value<std::string>()->value_name("FILE"), "the stream file to write");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  if (!vm.count("pattern") || !vm.count("out")) throw InputError("compare make-stream needs --pattern NAME and --out FILE");
  const TlsStream stream = tls_stream_pattern(vm["pattern"].as<std::string>());
  write_tls_stream(stream, vm["out"].as<std::string>());
  return 0;
}

}  // namespace x86lab
