// The snapshot file (docs/snapshots.md, "File format"): a header with magic and
// version, then sections, each with a tag, its lengths and a CRC-32, zlib-compressed.
// Reading parses and checks the whole file into a MachineState before anything is
// applied to a machine.
#pragma once
#include <string>

#include "platform/snapshot/machine_state.h"

namespace x86lab {

inline constexpr char kSnapshotMagic[8] = {'X', '8', '6', 'L', 'S', 'N', 'A', 'P'};
inline constexpr u32 kSnapshotVersion = 4;

// The file's bytes for `state`.
std::vector<u8> encode_snapshot(const MachineState& state);
// Parses a file's bytes. Throws InputError with the problem (without the file name):
// bad magic, another version, a truncated or overlong file, a section whose CRC-32
// does not match, that does not inflate to its length, that is missing, repeated or
// unknown, or whose contents do not decode.
MachineState decode_snapshot(const std::vector<u8>& bytes);

// Writes `state` to `path` (replacing it; the file appears whole or not at all: a
// temporary file renamed). Throws OutputError naming the file.
void write_snapshot_file(const std::string& path, const MachineState& state);
// Reads and parses the snapshot at `path`. Throws InputError "snapshot 'PATH': PROBLEM".
MachineState read_snapshot_file(const std::string& path);

// Captures `machine` (between instructions) and writes it to `path`: --save-snapshot,
// the monitors' `snapshot save FILE`, Ctrl-A s. Throws OutputError.
struct SavedSnapshot {
  std::string path;
  u64 steps = 0;       // Cpu::steps at the capture
  u64 file_bytes = 0;  // the file's size
};
SavedSnapshot save_machine_snapshot(Machine& machine, const std::string& path);

}  // namespace x86lab
