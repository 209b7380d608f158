// The host differential run and its mismatch reports (see host_differential.h).
#include "host_differential.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace x86lab::testing {
namespace {

constexpr const char* kRegisterNames[8] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"};

std::string hex(u32 value, int digits = 8) {
  char text[16];
  std::snprintf(text, sizeof(text), "%0*x", digits, value);
  return text;
}

std::string flag_names(u32 flags) {
  std::string text;
  const std::pair<u32, const char*> names[] = {{flag::OF, "OF"}, {flag::DF, "DF"}, {flag::SF, "SF"}, {flag::ZF, "ZF"},
                                               {flag::AF, "AF"}, {flag::PF, "PF"}, {flag::CF, "CF"}};
  for (const auto& [bit, name] : names) {
    if (!(flags & bit)) continue;
    if (!text.empty()) text.push_back(' ');
    text.append(name);
  }
  return "[" + text + "]";
}

std::string describe_state(const RegisterState& s) {
  std::string text;
  for (int r = 0; r < 8; ++r) text += std::string(kRegisterNames[r]) + "=" + hex(s.gpr[r]) + " ";
  return text + "flags=" + flag_names(s.eflags);
}

std::string describe_ending(const Outcome& o) {
  switch (o.ending) {
    case Ending::Completed: return "completed";
    case Ending::DivideError: return "#DE";
    case Ending::OtherFault: return "fault " + std::to_string(o.detail);
  }
  return "?";
}

}  // namespace

std::string compare_on_host(HostCpu& host, SimulatedCpu& simulated, const InstructionCase& c, Ending* ending) {
  std::copy(c.memory.begin(), c.memory.end(), host.data());
  simulated.load_data(c.memory);
  const Outcome native = host.run(c.instruction(), c.before);
  const Outcome modeled = simulated.run(c.instruction(), c.before);
  std::array<u8, kDataBytes> modeled_memory;
  simulated.store_data(modeled_memory);
  const u8* native_memory = host.data();
  if (ending) *ending = native.ending;

  std::string differences;
  if (native.ending != modeled.ending) differences += " ending";
  // Other faults must be the same exception: #UD is SIGILL on the host.
  if (native.ending == Ending::OtherFault && modeled.ending == Ending::OtherFault &&
      !(native.detail == SIGILL && modeled.detail == 6))
    differences += " fault";
  for (int r = 0; r < 8; ++r) {
    const u32 mask = r == c.undefined_register ? ~c.undefined_register_mask : 0xFFFFFFFFu;
    if ((native.after.gpr[r] ^ modeled.after.gpr[r]) & mask) differences.append(" ").append(kRegisterNames[r]);
  }
  const u32 defined = (flag::kStatus | flag::DF) & ~c.undefined_flags;
  if ((native.after.eflags ^ modeled.after.eflags) & defined)
    differences += " flags" + flag_names((native.after.eflags ^ modeled.after.eflags) & defined);
  // The flags column's "w:" (cpu/opcode_map.tsv) against the host: a status flag or DF
  // the host changed that the row does not list.
  const u32 unlisted = (native.after.eflags ^ c.before.eflags) & (flag::kStatus | flag::DF) & ~c.written_flags;
  if (native.ending == Ending::Completed && unlisted)
    differences += " flags-column" + flag_names(unlisted);
  std::string memory;
  unsigned shown = 0;
  for (unsigned i = 0; i < kDataBytes; ++i) {
    const bool undefined = c.undefined_memory_offset >= 0 && i >= static_cast<unsigned>(c.undefined_memory_offset) &&
                           i < c.undefined_memory_offset + c.undefined_memory_bytes;
    if (undefined || native_memory[i] == modeled_memory[i]) continue;
    if (shown++ < 8)
      memory += "    memory+" + hex(i, 2) + ": before " + hex(c.memory[i], 2) + " host " + hex(native_memory[i], 2) +
                " x86lab " + hex(modeled_memory[i], 2) + "\n";
  }
  if (shown) differences += " memory";
  if (differences.empty()) return "";

  std::string bytes;
  for (u8 b : c.instruction()) bytes += hex(b, 2) + " ";
  return std::string(c.mnemonic) + " (" + std::to_string(c.width) + "-bit): " + bytes + "differs in" + differences +
         "\n  before: " + describe_state(c.before) + "  (undefined " + flag_names(c.undefined_flags) + ")" +
         "\n  host:   " + describe_ending(native) + " " + describe_state(native.after) +
         "\n  x86lab: " + describe_ending(modeled) + " " + describe_state(modeled.after) + "\n" + memory;
}

DifferentialReport run_host_differential(u64 cases, u64 seed, unsigned max_details) {
  HostCpu host;
  SimulatedCpu simulated;
  std::mt19937_64 random(seed);
  DifferentialReport report;
  const unsigned forms = host_form_count();
  for (u64 n = 0; n < cases; ++n) {
    const InstructionCase c = make_host_case(static_cast<unsigned>(random() % forms), random);
    ++report.cases;
    ++report.by_mnemonic[c.mnemonic];
    Ending ending;
    const std::string difference = compare_on_host(host, simulated, c, &ending);
    if (!difference.empty()) {
      if (report.mismatches++ < max_details) report.details += "case " + std::to_string(n) + ": " + difference;
    } else if (ending == Ending::DivideError) {
      ++report.divide_errors;
    }
  }
  return report;
}

u64 differential_case_count(u64 fallback) {
  const char* text = std::getenv("X86LAB_DIFF_CASES");
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || value == 0)
    throw std::invalid_argument(std::string("X86LAB_DIFF_CASES: not a positive case count: ") + text);
  return value;
}

}  // namespace x86lab::testing
