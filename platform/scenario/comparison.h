// The comparison of one scenario's variants (docs/compare.md): rows of metrics taken
// from each variant's counters, METRIC lines and SAMPLES distributions, one value per
// variant, with the ratio of each headline metric to the manifest's baseline. The one
// table model of `x86lab compare`'s reports (ui/compare_report*) and the inspector's
// Compare view (ui/gui/compare_window.cpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "platform/scenario/scenario_runner.h"

namespace x86lab {

// Where a row's values come from.
enum class MetricSource { Counter, Guest, Samples };
const char* name_of(MetricSource source);  // "counter", "guest", "samples"

struct MetricRow {
  MetricSource source;
  std::string key;    // [a-z0-9_.]+, unique per source: "cycles", "vector_13", "locked_accessed_bit", "latency.p99"
  std::string label;  // for people: "modeled cycles", "vector 13 #GP"
  bool headline;      // ratios to the baseline are reported and plotted
  std::vector<std::optional<double>> values;  // per variant; nullopt: failed variant, or no such METRIC/SAMPLES
};

struct ScenarioComparison {
  const ScenarioManifest* manifest;
  std::vector<const VariantSpec*> variants;    // the variants run, in manifest order
  std::vector<const VariantResult*> results;   // their results, same order
  std::optional<std::size_t> baseline;         // index of the baseline in `variants`
  std::vector<MetricRow> rows;

  // value / baseline value, when both exist and the baseline's is not 0.
  std::optional<double> ratio(const MetricRow& row, std::size_t variant) const;
  // The row `key` of `source`, or nullptr.
  const MetricRow* find(MetricSource source, const std::string& key) const;
  // The x86lab quantity standing for a seed key: the manifest's seed_counterparts entry,
  // else the METRIC or counter of the same name, else "cycles" for a wall-clock time
  // (a key ending in _ms or _us, or containing "seconds"), else the key itself.
  std::string seed_quantity(const std::string& seed_key) const;
  // Its value for a variant: the METRIC of that name, else the counter row of that key,
  // else nullopt.
  std::optional<double> seed_counterpart(const std::string& seed_key, std::size_t variant) const;
};

// Builds the rows. Counter rows appear when some variant's value is non-zero (except
// instructions and cycles, always present); cycles per operation needs METRIC
// operations. Samples give count, median, 99th percentile and maximum rows.
ScenarioComparison build_comparison(const ScenarioManifest& manifest, const std::vector<const VariantSpec*>& variants,
                                    const std::vector<const VariantResult*>& results);

// Formats a value: integers without decimals, others with 2 (3 for ratios).
std::string format_value(double value);
std::string format_ratio(double ratio);
std::string format_seed(double value);  // up to 6 significant digits, as the seeds give them

}  // namespace x86lab
