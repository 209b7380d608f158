// `x86lab compare make-stream --pattern NAME --out FILE` (docs/compare.md "Replaying a
// recorded stream"): writes a synthetic TLS access stream in the recorder's format
// (roms/scenarios/tls/stream.h) for the tls scenario's stream mode, for tests and for
// trying the replay without a Linux recording.
#pragma once
#include <string>
#include <vector>

namespace x86lab {

// Runs `x86lab compare make-stream ...` with the arguments after "make-stream". Exit
// status 0; bad input (a missing or unknown option or pattern, an --out that cannot be
// written) throws InputError for run_cli to print (status 2).
int make_stream_command(const std::vector<std::string>& args);

}  // namespace x86lab
