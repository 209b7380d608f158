// A machine's whole state as a value (docs/snapshots.md): captured between
// instructions, restored into a machine built with the same configuration. The file
// encoding is apart (platform/snapshot/snapshot_file.h). Each stateful class lists its
// fields once, in a transfer_state(StateArchive&) of its own (trace/state_archive.h);
// here they are gathered into sections. Decode caches, accelerator links and the TLB
// statistics model's marks are rebuilt, not saved.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "platform/machine.h"
#include "platform/replay/input_journal.h"

namespace x86lab {

// What a snapshot can only be restored into a machine of: the same RAM size, CPU
// profile, cost model and CPU frequency (the ROM image travels in the snapshot).
struct MachineIdentity {
  u32 memory_mib = 0;
  std::string profile;     // CpuProfile::name
  u32 cost_model_crc = 0;  // cost_model_fingerprint of the machine's cost model
  u64 cpu_hz = 0;
  bool cache_model = false;  // MachineConfig::cache_model (--cache-model)

  bool operator==(const MachineIdentity&) const = default;
};

// CRC-32 over the cost model's values (name, prices, per-mnemonic costs).
u32 cost_model_fingerprint(const CostModel& model);
MachineIdentity identity_of(const MachineConfig& config);

inline constexpr std::size_t kPageBytes = 4096;
using PageBytes = std::array<u8, kPageBytes>;

// One 4 KiB page of RAM that is not all zero. Pages are immutable and shared: a
// capture given the previous state reuses its page objects where RAM is unchanged.
struct RamPage {
  u32 index = 0;  // physical address >> 12
  std::shared_ptr<const PageBytes> bytes;
};

struct MachineState {
  MachineIdentity identity;
  std::vector<u8> bios;  // the ROM image at the top of 4 GiB (may be empty)
  // The sections, each a StateArchive stream of the named part.
  std::vector<u8> machine;   // Machine::transfer_state (port 92h, A20, resets)
  std::vector<u8> cpu;       // Cpu::transfer_state
  std::vector<u8> mmu;       // Mmu::transfer_state (TLB and its statistics model)
  std::vector<u8> devices;   // PcDevices::transfer_state
  std::vector<u8> clock;     // VirtualClock::transfer_state (modeled clock, device events)
  std::vector<u8> counters;  // transfer_counters
  std::vector<RamPage> ram;  // non-zero pages, ascending by index
  SerialHost::InputPosition serial;  // COM1's host input (none without a host)
  InputCursor inputs;                // how far the run had consumed its replay log (MachineConfig::inputs)

  // Instructions retired (Counters::instructions) and steps taken (Cpu::steps) at the capture.
  u64 instructions = 0, steps = 0;
};

// Captures `machine` between instructions (after run()/run_for() returned). With
// `previous` (an earlier capture of the same machine), unchanged RAM pages share its
// page objects, so periodic captures cost memory only for the pages that changed.
MachineState capture_machine_state(Machine& machine, const MachineState* previous = nullptr);

// Throws InputError (the text without a file name) when `state` cannot be restored
// into `machine`: another identity, a RAM page outside its RAM, or a section that does
// not decode (StateArchive's check mode). Changes nothing.
void check_machine_state(Machine& machine, const MachineState& state);

// check_machine_state, then applies `state`: afterwards `machine` runs on exactly as
// the captured machine would have (same output, counters and trace).
void restore_machine_state(Machine& machine, const MachineState& state);

}  // namespace x86lab
