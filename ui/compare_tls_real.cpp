// Recording the real workload and summarising its replay (ui/compare_tls_real.h).
#include "ui/compare_tls_real.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "platform/input_error.h"
#include "platform/scenario/figure_interval.h"

namespace x86lab {
namespace {

// The seed's figures (docs/seeds/000_60a64b4897ed0d0d.txt): `ls -R` slowdowns on Xen 2.0
// with each design, and the emulation faults of a Red Hat boot.
constexpr double kSeedEmulationPercent = 67;
constexpr double kSeedFlippingPercent = 117;
constexpr double kSeedBootFaults = 2.5e6;

i64 metric(const VariantResult& result, const char* name) {
  const auto found = result.metrics.find(name);
  return found == result.metrics.end() ? 0 : found->second;
}

struct DesignRow {
  std::string name;
  bool succeeded;
  i64 faults, replays, flips, emulations;
  u64 instructions, cycles;
  i64 replay_cycles;
  double slowdown_percent;  // of the real workload: (W + R_design - R_native) / W - 1
  // The slowdown over the assumption constants' ranges (platform/scenario/figure_interval.h):
  // R_design - R_native re-priced from the two runs' ledgers, W at its recorded value.
  std::optional<std::pair<double, double>> slowdown_interval;
};

std::optional<std::pair<double, double>> slowdown_interval(const VariantResult& design, const VariantResult& native,
                                                           double own, const CostModel& model) {
  const Affine added = Affine::of(cost_lines(design.ledger, model), model) - Affine::of(cost_lines(native.ledger, model), model);
  const double measured = double(metric(design, "replay_cycles_measured") - metric(native, "replay_cycles_measured"));
  const Affine percent = Affine::of(cost_lines(design.ledger, model), model, 100 / own) -
                         Affine::of(cost_lines(native.ledger, model), model, 100 / own);
  Affine shifted = percent;
  shifted.fixed += 100 * (measured - added.at(model)) / own;  // what the whole runs have beyond the replay loop
  return interval_over_ranges(FigureFunction{shifted, std::nullopt}, model);
}

std::vector<DesignRow> design_rows(const TlsRealRun& run, const std::vector<VariantResult>& results,
                                   const CostModel& model) {
  const VariantResult* native = nullptr;
  for (const VariantResult& result : results)
    if (result.name == "native") native = &result;
  const double own = static_cast<double>(run.recorded.window.cycles);
  std::vector<DesignRow> rows;
  for (const VariantResult& r : results) {
    DesignRow row{r.name, r.succeeded, metric(r, "gp_faults"), static_cast<i64>(r.counters.replayed_instructions),
                  metric(r, "flips_to_expand_down") + metric(r, "flips_to_expand_up"), metric(r, "emulations"),
                  r.counters.instructions, r.cycles, metric(r, "replay_cycles_measured"), std::nan(""), std::nullopt};
    if (native && native->succeeded && r.succeeded && own > 0) {
      row.slowdown_percent = 100.0 * (own + row.replay_cycles - metric(*native, "replay_cycles_measured")) / own - 100.0;
      row.slowdown_interval = slowdown_interval(r, *native, own, model);
    }
    rows.push_back(row);
  }
  return rows;
}

const DesignRow* find_row(const std::vector<DesignRow>& rows, const std::string& name) {
  for (const DesignRow& row : rows)
    if (row.name == name) return &row;
  return nullptr;
}

std::string percent(double value) {
  if (std::isnan(value)) return "-";
  std::ostringstream text;
  text << std::showpos << std::fixed << std::setprecision(1) << value << " %";
  return text.str();
}

// How a slowdown compares with the seed's, in words: from its interval over the
// assumption ranges, never from the point (docs/compare.md, "Labels, intervals and verdicts").
std::string against(const DesignRow& row, double seed) {
  if (std::isnan(row.slowdown_percent)) return "could not be computed (a variant failed)";
  std::ostringstream text;
  text << percent(row.slowdown_percent);
  if (!row.slowdown_interval) return text.str() + " against the seed's +" + std::to_string(int(seed)) + " %: no interval";
  const auto [low, high] = *row.slowdown_interval;
  text << " (" << percent(low) << " .. " << percent(high) << " over the assumption ranges) against the seed's +" << seed
       << " %: ";
  if (high < seed) text << "below it across the interval";
  else if (low > seed) text << "above it across the interval";
  else text << "the seed lies inside the interval (not distinguished)";
  return text.str();
}

}  // namespace

TlsRealRun record_tls_real(const std::filesystem::path& scenario_dir, const std::string& workload,
                           const MachineConfig& base, bool use_cache, const std::function<void()>& before_recording) {
  const ScenarioManifest manifest = load_manifest(scenario_dir / "tls-real" / "variants.json");
  const VariantSpec* variant = manifest.find(workload);
  if (!variant) {
    std::string names;
    for (const VariantSpec& v : manifest.variants) names += (names.empty() ? "" : ", ") + v.name;
    throw InputError("--workload '" + workload + "' is not a workload of tls-real (" + names + ")");
  }
  for (const std::filesystem::path& file : {variant->kernel, variant->module}) {
    std::error_code error;
    if (!std::filesystem::exists(file, error))
      throw InputError("tls-real needs the Linux compare guest: '" + file.string() +
                       "' is missing (run scripts/fetch-linux-compare-guest.sh)");
  }
  if (before_recording) before_recording();  // the caller's checks of its own input (the --out folder)
  // The boot itself is the workload of `boot`: the whole run is recorded.
  const TlsWindow window = workload == "boot" ? TlsWindow{} : parse_tls_window("X86LAB-WORKLOAD-BEGIN..X86LAB-WORKLOAD-END");
  const std::filesystem::path cache = use_cache ? guest_cache_dir() / "tls-streams" : std::filesystem::path();
  std::cerr << "x86lab: tls-real: workload '" << workload << "': recording its TLS stream on the Linux compare guest"
            << (use_cache ? " unless " + cache.string() + " has it" : "") << " (a boot takes minutes)\n";
  TlsRealRun run{workload, record_workload(*variant, base, window, cache)};
  if (run.recorded.stream_file.empty()) {
    run.recorded.stream_file = std::filesystem::temp_directory_path() / ("x86lab-tls-real-" + workload + ".x86ltls");
    write_tls_stream(run.recorded.stream, run.recorded.stream_file);
  }
  std::cerr << "x86lab: tls-real: " << run.recorded.accesses << " TLS accesses (" << run.recorded.negative_accesses
            << " at negative offsets), " << run.recorded.stream.threads << " threads, " << run.recorded.switches
            << " switches; the workload's own " << run.recorded.window.instructions << " instructions, "
            << run.recorded.window.cycles << " modeled cycles" << (run.recorded.from_cache ? " (from the cache)" : "")
            << "\n";
  return run;
}

TlsRealRun without_canary_reads(const TlsRealRun& run) {
  TlsRealRun plain = run;
  plain.stack_protector = "none";
  RecordedWorkload& w = plain.recorded;
  w.stream.records.clear();
  w.accesses = w.negative_accesses = 0;
  for (const tls_stream_record& r : run.recorded.stream.records) {
    const bool access = !(r.flags & TLS_STREAM_SWITCH);
    if (access && r.offset == 0x14 && r.size == 4 && !(r.flags & TLS_STREAM_WRITE)) {
      ++plain.canary_reads_removed;
      continue;
    }
    w.stream.records.push_back(r);
    if (access) ++w.accesses, w.negative_accesses += r.offset < 0;
  }
  w.stream_file = std::filesystem::temp_directory_path() / ("x86lab-tls-real-" + run.workload + "-no-canary.x86ltls");
  write_tls_stream(w.stream, w.stream_file);
  return plain;
}

void write_tls_real_text(std::ostream& out, const TlsRealRun& run, const std::vector<VariantResult>& results,
                         const CostModel& model) {
  const RecordedWorkload& w = run.recorded;
  out << "\ntls-real: workload '" << run.workload << "' of the Linux compare guest (Debian 12 i386 glibc), stack-protector "
      << run.stack_protector
      << (run.stack_protector == "none" ? " (its " + std::to_string(run.canary_reads_removed) +
                                              " canary reads of %gs:0x14 removed, approximating the 2004 binaries)"
                                        : std::string(" (the stream as recorded, canary reads of %gs:0x14 included)"))
      << "\n"
      << "  the workload's own: " << w.window.instructions << " instructions, " << w.window.cycles
      << " modeled cycles (between its markers; the whole boot " << w.boot_instructions << " instructions)\n"
      << "  its TLS stream: " << w.accesses << " accesses through %gs at CPL 3, " << w.negative_accesses
      << " at negative offsets, " << w.stream.threads << " threads, " << w.switches << " switches\n\n";
  const std::vector<DesignRow> rows = design_rows(run, results, model);
  out << std::left << std::setw(22) << "design" << std::right << std::setw(10) << "faults" << std::setw(10)
      << "replays" << std::setw(10) << "flips" << std::setw(14) << "instructions" << std::setw(14) << "cycles"
      << std::setw(14) << "replay cyc." << std::setw(12) << "slowdown" << "\n";
  for (const DesignRow& row : rows) {
    out << std::left << std::setw(22) << row.name << std::right;
    if (!row.succeeded) {
      out << "  failed\n";
      continue;
    }
    out << std::setw(10) << row.faults << std::setw(10) << row.replays << std::setw(10) << row.flips << std::setw(14)
        << row.instructions << std::setw(14) << row.cycles << std::setw(14) << row.replay_cycles << std::setw(12)
        << percent(row.slowdown_percent) << "\n";
  }
  out << "\n  slowdown = (the workload's cycles + the design's replay cycles - native's) / the workload's cycles - 1\n";
  const DesignRow* emulation = find_row(rows, "emulation");
  const DesignRow* flipping = find_row(rows, "flipping");
  if (emulation && flipping) {
    out << "  emulation: " << against(*emulation, kSeedEmulationPercent) << "\n"
        << "  flipping:  " << against(*flipping, kSeedFlippingPercent) << "\n";
    if (!std::isnan(emulation->slowdown_percent) && !std::isnan(flipping->slowdown_percent))
      out << "  order: flipping is " << (flipping->slowdown_percent > emulation->slowdown_percent ? "slower" : "not slower")
          << " than emulation here; in the seed it was slower (+117 % against +67 %)\n";
    out << "  faults: emulation takes " << emulation->faults << " #GP for " << w.negative_accesses
        << " negative-offset accesses of " << run.workload << "; the seed counted " << kSeedBootFaults / 1e6
        << " M emulation faults for a whole Red Hat boot (x86lab compare tls-real --workload boot for ours)\n";
  }
}

void write_tls_real_json(std::ostream& out, const TlsRealRun& run, const std::vector<VariantResult>& results,
                         const CostModel& model) {
  const RecordedWorkload& w = run.recorded;
  nlohmann::ordered_json designs = nlohmann::ordered_json::array();
  for (const DesignRow& row : design_rows(run, results, model)) {
    nlohmann::ordered_json d = {{"name", row.name}, {"succeeded", row.succeeded}};
    if (row.succeeded) {
      d["faults"] = row.faults;
      d["replays"] = row.replays;
      d["flips"] = row.flips;
      d["emulations"] = row.emulations;
      d["instructions"] = row.instructions;
      d["cycles"] = row.cycles;
      d["replay_cycles_measured"] = row.replay_cycles;
      if (!std::isnan(row.slowdown_percent)) d["slowdown_percent"] = std::round(row.slowdown_percent * 10) / 10;
      if (row.slowdown_interval)
        d["slowdown_interval"] = {std::round(row.slowdown_interval->first * 10) / 10,
                                  std::round(row.slowdown_interval->second * 10) / 10};
    }
    designs.push_back(d);
  }
  const nlohmann::ordered_json report = {
      {"workload", run.workload},
      {"stack_protector", run.stack_protector},
      {"canary_reads_removed", run.canary_reads_removed},
      {"workload_instructions", w.window.instructions},
      {"workload_cycles", w.window.cycles},
      {"boot_instructions", w.boot_instructions},
      {"stream", {{"accesses", w.accesses}, {"negative_accesses", w.negative_accesses},
                  {"threads", w.stream.threads}, {"switches", w.switches}}},
      {"seed", {{"emulation_percent", kSeedEmulationPercent}, {"flipping_percent", kSeedFlippingPercent},
                {"boot_emulation_faults", kSeedBootFaults}}},
      {"designs", designs}};
  out << report.dump(2) << "\n";
}

}  // namespace x86lab
