// Runs the variants of a design-comparison scenario (issue 9, docs/compare.md): each
// variant in-process on a fresh Machine, its debug console captured and parsed, its
// counters copied. Machines share no mutable state, so variants run on threads.
#pragma once
#include <string>
#include <vector>

#include "platform/machine.h"
#include "platform/scenario/console_report.h"
#include "platform/scenario/manifest.h"

namespace x86lab {

struct VariantResult {
  std::string scenario;                             // the manifest's scenario name
  std::string name;                                 // the variant's name
  RunResult run{RunResult::Reason::Stopped, -1};    // how the run ended
  bool succeeded = false;                           // see run_variant
  std::string failure;                              // one line saying why not; empty when succeeded
  Counters counters;                                // the machine's counters at the end
  u64 cycles = 0;                                   // the modeled clock at the end (trace/modeled_clock.h)
  CostLedger ledger;                                // those cycles as counts x constants (trace/cost_ledger.h)
  std::vector<CostWindow> windows;                  // the charges between consecutive RDTSCs (Cpu::cost_windows)
  std::map<std::string, i64> metrics;               // METRIC values
  std::map<std::string, std::vector<i64>> samples;  // SAMPLES values
  std::string console;                              // the whole debug-console text
};

// The profile name of `x86lab run --profile` (p3, k7, p4, modern, i386-locking) put
// into `config` (CPU profile and cost model). Throws InputError for an unknown name.
void apply_builtin_profile(const std::string& name, MachineConfig& config);

// The machine configuration of `variant` on top of `base`: the variant's image
// (read here; a missing or unreadable file throws InputError naming it), memory size
// and step limit, with HLT at IF = 0 ending the run (the variants' success); everything
// else comes from `base`. The counted code range is not configuration (it lives in the
// machine's Counters): apply_code_range puts it into a machine built from this.
MachineConfig variant_config(const VariantSpec& variant, const MachineConfig& base);
void apply_code_range(const VariantSpec& variant, Machine& machine);
// variant_config on top of only the model of `base` (profile, cost model, cache model,
// clock frequency, RTC start): no host devices, tracing or console of the caller's
// machine reach a run on another thread.
MachineConfig isolated_variant_config(const VariantSpec& variant, const MachineConfig& base);

// Runs `variant` on a fresh machine configured from `base` (profile, cost model and
// clock; memory, image, limit and exit-on-halt come from the variant). Succeeded means:
// the guest wrote 10h to the exit port (exit status 33) or executed HLT with IF = 0
// (status 0), and every METRIC/SAMPLES line parsed. Anything else (instruction limit,
// triple fault, another exit value, a malformed line) fails the variant with a reason
// in `failure`. A missing or unreadable image throws InputError naming the file.
VariantResult run_variant(const ScenarioManifest& manifest, const VariantSpec& variant, const MachineConfig& base);

// The same with a built-in profile name (the scenario tests' usual call).
VariantResult run_variant(const ScenarioManifest& manifest, const VariantSpec& variant,
                          const std::string& profile = "p3");

// One variant to run by run_variants.
struct VariantJob {
  const ScenarioManifest* manifest;
  const VariantSpec* variant;
};

// Runs the jobs on up to `threads` threads (at least 1) and returns the results in
// the order of `jobs`, whatever order they finished in. The first InputError (in job
// order) is rethrown after all threads have finished.
std::vector<VariantResult> run_variants(const std::vector<VariantJob>& jobs, const MachineConfig& base,
                                        unsigned threads);

}  // namespace x86lab
