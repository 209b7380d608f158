// Replays a fuzz corpus without libFuzzer: feeds every file of the given folders to
// LLVMFuzzerTestOneInput (tests/fuzz/cpu_fuzzer.cpp or apic_fuzzer.cpp), in name order, so the CI can
// rerun every input the fuzzer kept with the normal compiler. With X86LAB_REPLAY_VERBOSE
// set in the environment, each file's name goes to stderr before it is replayed (which
// input broke an invariant).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_FOLDER...\n", argv[0]);
    return 2;
  }
  std::size_t replayed = 0;
  for (int a = 1; a < argc; ++a) {
    std::vector<std::filesystem::path> files;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(argv[a], error))
      if (entry.is_regular_file()) files.push_back(entry.path());
    if (error) {
      std::fprintf(stderr, "x86lab: %s: %s\n", argv[a], error.message().c_str());
      return 2;
    }
    std::sort(files.begin(), files.end());
    const bool verbose = std::getenv("X86LAB_REPLAY_VERBOSE") != nullptr;
    for (const auto& file : files) {
      if (verbose) std::fprintf(stderr, "%s\n", file.string().c_str());
      std::ifstream stream(file, std::ios::binary);
      const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++replayed;
    }
  }
  std::printf("replayed %zu inputs\n", replayed);
  return replayed > 0 ? 0 : 1;
}
