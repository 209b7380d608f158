// Capture and restore of a whole machine (machine_state.h), section by section.
#include "platform/snapshot/machine_state.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "platform/input_error.h"
#include "trace/counters_state.h"

namespace x86lab {

namespace {

// Runs `transfer` in `mode` on a section's bytes; a decoding error names the section.
template <class Transfer>
void transfer_section(StateArchive::Mode mode, const std::vector<u8>& bytes, const char* section, Transfer transfer) {
  try {
    StateArchive archive(mode, bytes);
    transfer(archive);
    archive.expect_end(section);
  } catch (const StateArchiveError& error) {
    throw InputError(std::string("section ") + section + ": " + error.what());
  }
}

template <class Transfer>
std::vector<u8> save_section(Transfer transfer) {
  StateArchive archive;
  transfer(archive);
  return archive.take_bytes();
}

bool all_zero(const u8* bytes) {
  return std::all_of(bytes, bytes + kPageBytes, [](u8 b) { return b == 0; });
}

// The sections in restore order: the CPU before the Mmu (a change of paging bits
// flushes the TLB), the counters last (the restore itself counts flushes and retired
// code blocks).
template <class Apply>
void for_each_section(Machine& m, const MachineState& s, Apply apply) {
  apply(s.machine, "machine", [&](StateArchive& a) { m.transfer_state(a); });
  apply(s.cpu, "cpu", [&](StateArchive& a) { m.cpu.transfer_state(a); });
  apply(s.mmu, "mmu", [&](StateArchive& a) { m.mmu.transfer_state(a); });
  apply(s.devices, "devices", [&](StateArchive& a) { m.devices->transfer_state(a); });
  apply(s.clock, "clock", [&](StateArchive& a) { m.clock.transfer_state(a); });
  apply(s.counters, "counters", [&](StateArchive& a) { transfer_counters(a, m.counters); });
}

}  // namespace

u32 cost_model_fingerprint(const CostModel& model) {
  std::string text = model.name;
  for (const auto& [mnemonic, cost] : model.instruction) text += '\n' + mnemonic + ' ' + std::to_string(cost);
  for (u32 cost : model.parts) text += ' ' + std::to_string(cost);
  return static_cast<u32>(crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
}

MachineIdentity identity_of(const MachineConfig& config) {
  return {config.memory_mib, std::string(config.profile->name), cost_model_fingerprint(config.cost_model), config.cpu_hz,
          config.cache_model};
}

MachineState capture_machine_state(Machine& m, const MachineState* previous) {
  MachineState s;
  s.identity = identity_of(m.config());
  s.bios = m.config().bios;
  s.machine = save_section([&](StateArchive& a) { m.transfer_state(a); });
  s.cpu = save_section([&](StateArchive& a) { m.cpu.transfer_state(a); });
  s.mmu = save_section([&](StateArchive& a) { m.mmu.transfer_state(a); });
  s.devices = save_section([&](StateArchive& a) { m.devices->transfer_state(a); });
  s.clock = save_section([&](StateArchive& a) { m.clock.transfer_state(a); });
  s.counters = save_section([&](StateArchive& a) { transfer_counters(a, m.counters); });
  const std::span<u8> ram = m.bus.ram();
  const u32 pages = static_cast<u32>(ram.size() / kPageBytes);
  std::size_t reuse = 0;  // the next page of `previous` to compare with
  for (u32 index = 0; index < pages; ++index) {
    const u8* bytes = ram.data() + std::size_t{index} * kPageBytes;
    if (all_zero(bytes)) continue;
    if (previous) {
      while (reuse < previous->ram.size() && previous->ram[reuse].index < index) ++reuse;
      if (reuse < previous->ram.size() && previous->ram[reuse].index == index &&
          std::memcmp(previous->ram[reuse].bytes->data(), bytes, kPageBytes) == 0) {
        s.ram.push_back(previous->ram[reuse]);
        continue;
      }
    }
    auto page = std::make_shared<PageBytes>();
    std::memcpy(page->data(), bytes, kPageBytes);
    s.ram.push_back({index, std::move(page)});
  }
  if (SerialHost* host = m.config().com1_host) s.serial = host->input_position();
  if (InputJournal* inputs = m.config().inputs) s.inputs = inputs->cursor();
  s.instructions = m.counters.instructions;
  s.steps = m.cpu.steps();
  return s;
}

void check_machine_state(Machine& m, const MachineState& s) {
  const MachineIdentity here = identity_of(m.config());
  if (s.identity.memory_mib != here.memory_mib)
    throw InputError("saved with --memory " + std::to_string(s.identity.memory_mib) + ", not " +
                     std::to_string(here.memory_mib));
  if (s.identity.profile != here.profile || s.identity.cost_model_crc != here.cost_model_crc)
    throw InputError("saved with another --profile (CPU profile " + s.identity.profile + ") than this run's (" +
                     here.profile + ")");
  if (s.identity.cpu_hz != here.cpu_hz)
    throw InputError("saved with a CPU clock of " + std::to_string(s.identity.cpu_hz) + " Hz, not " +
                     std::to_string(here.cpu_hz) + " (--cpu-mhz)");
  if (s.identity.cache_model != here.cache_model)
    throw InputError(std::string("saved with --cache-model ") + (s.identity.cache_model ? "on" : "off") + ", not " +
                     (here.cache_model ? "on" : "off"));
  const u32 pages = static_cast<u32>(m.bus.ram_bytes() / kPageBytes);
  for (std::size_t i = 0; i < s.ram.size(); ++i) {
    if (s.ram[i].index >= pages || (i && s.ram[i].index <= s.ram[i - 1].index) || !s.ram[i].bytes)
      throw InputError("RAM page " + std::to_string(s.ram[i].index) + " is outside RAM or out of order");
  }
  for_each_section(m, s, [](const std::vector<u8>& bytes, const char* name, auto transfer) {
    transfer_section(StateArchive::Mode::Check, bytes, name, transfer);
  });
}

void restore_machine_state(Machine& m, const MachineState& s) {
  check_machine_state(m, s);
  if (InputJournal* inputs = m.config().inputs) inputs->seek(s.inputs);  // throws InputError before any change
  // RAM first: every decoded instruction goes, then the bytes are replaced behind the bus.
  m.bus.retire_all_code();
  const std::span<u8> ram = m.bus.ram();
  std::memset(ram.data(), 0, ram.size());
  for (const RamPage& page : s.ram)
    std::memcpy(ram.data() + std::size_t{page.index} * kPageBytes, page.bytes->data(), kPageBytes);
  for_each_section(m, s, [](const std::vector<u8>& bytes, const char* name, auto transfer) {
    transfer_section(StateArchive::Mode::Load, bytes, name, transfer);
  });
  if (SerialHost* host = m.config().com1_host) host->resume_input(s.serial);
}

}  // namespace x86lab
