// Where the shared test data (../shared) is for the tests built here: the environment's
// X86LAB_SHARED_DIR when set and not empty (tests/plain_clone/ points it at a folder
// that does not exist to see a plain clone's skips from this build), else the folder
// configured (X86LAB_SHARED_DIR in the top CMakeLists.txt).
#pragma once
#include <cstdlib>
#include <filesystem>

namespace x86lab::testing {

inline std::filesystem::path shared_dir() {
  const char* from_environment = std::getenv("X86LAB_SHARED_DIR");
  return from_environment && *from_environment ? std::filesystem::path(from_environment)
                                               : std::filesystem::path(X86LAB_SHARED_DIR);
}

}  // namespace x86lab::testing
