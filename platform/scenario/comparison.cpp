// Building the metric rows of a scenario comparison (docs/compare.md, "Metrics").
#include "platform/scenario/comparison.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

namespace x86lab {
namespace {

// Exception mnemonics of the SDM's "Exception and Interrupt Reference", vectors 0-19.
constexpr std::array<const char*, 20> kVectorNames = {"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD",
                                                      "#NM", "#DF", "CSO", "#TS", "#NP", "#SS", "#GP",
                                                      "#PF", "",    "#MF", "#AC", "#MC", "#XM"};
constexpr std::array<const char*, 6> kSegmentNames = {"es", "cs", "ss", "ds", "fs", "gs"};

std::string underscored(std::string_view name) {
  std::string key(name);
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

// Nearest-rank percentile of sorted values: the smallest value with at least
// `percent` % of the samples at or below it.
i64 percentile(const std::vector<i64>& sorted, double percent) {
  const auto rank = static_cast<std::size_t>(std::ceil(percent / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

// The names in the per-variant map `map` (VariantResult::metrics or ::samples) of all
// variants, sorted, each once.
template <class Map>
std::set<std::string> names_in(const std::vector<const VariantResult*>& results, Map VariantResult::*map) {
  std::set<std::string> names;
  for (const VariantResult* result : results)
    for (const auto& entry : result->*map) names.insert(entry.first);
  return names;
}

// The value of `name` in `result`'s `map`, or null when the variant failed or has no such name.
template <class Map>
const typename Map::mapped_type* successful_value(const VariantResult& result, Map VariantResult::*map,
                                                  const std::string& name) {
  if (!result.succeeded) return nullptr;
  const auto found = (result.*map).find(name);
  return found == (result.*map).end() ? nullptr : &found->second;
}

class RowBuilder {
 public:
  RowBuilder(ScenarioComparison& comparison) : c_(comparison) {}

  using CounterValue = std::function<double(const Counters&)>;
  using ResultValue = std::function<double(const VariantResult&)>;

  // A counter row; kept when `always` or some successful variant's value is non-zero.
  void counter(std::string key, std::string label, bool headline, const CounterValue& value, bool always = false) {
    result_row(std::move(key), std::move(label), headline, [&value](const VariantResult& r) { return value(r.counters); },
               always);
  }
  // A row of a value of each variant's result (the counters, or the modeled clock).
  void result_row(std::string key, std::string label, bool headline, const ResultValue& value, bool always = false) {
    MetricRow row{MetricSource::Counter, std::move(key), std::move(label), headline, {}};
    bool any = always;
    for (const VariantResult* result : c_.results) {
      if (!result->succeeded) {
        row.values.emplace_back();
        continue;
      }
      row.values.emplace_back(value(*result));
      any = any || *row.values.back() != 0;
    }
    if (any) c_.rows.push_back(std::move(row));
  }

  // A counter row of one Counters field.
  void field(std::string key, std::string label, bool headline, u64 Counters::*member, bool always = false) {
    const CounterValue value = [member](const Counters& c) { return double(c.*member); };
    counter(std::move(key), std::move(label), headline, value, always);
  }

  void run_rows() {
    field("instructions", "instructions", true, &Counters::instructions, true);
    result_row("cycles", "modeled cycles", true, [](const VariantResult& r) { return double(r.cycles); }, true);
    MetricRow per_op{MetricSource::Counter, "cycles_per_operation", "modeled cycles per operation", true, {}};
    bool any = false;
    for (const VariantResult* result : c_.results) {
      const auto operations = result->metrics.find("operations");
      if (!result->succeeded || operations == result->metrics.end() || operations->second <= 0) {
        per_op.values.emplace_back();
        continue;
      }
      per_op.values.emplace_back(double(result->cycles) / double(operations->second));
      any = true;
    }
    if (any) c_.rows.push_back(std::move(per_op));
  }

  void delivery_rows() {
    counter("deliveries", "exceptions and interrupts delivered", true, [](const Counters& c) {
      double total = 0;
      for (u64 count : c.exceptions_by_vector) total += double(count);
      return total;
    });
    for (std::size_t v = 0; v < 256; ++v) {
      char hex[8];
      std::snprintf(hex, sizeof hex, " (%02zXh)", v);
      std::string label = "  vector " + std::to_string(v) + hex;
      if (v < kVectorNames.size() && *kVectorNames[v]) label += std::string(" ") + kVectorNames[v];
      counter("vector_" + std::to_string(v), label, false,
              [v](const Counters& c) { return double(c.exceptions_by_vector[v]); });
    }
  }

  // The APIC path of an interrupt (platform/devices/apic/): what the I/O APIC put on the
  // APIC bus and the local APIC's EOIs; zero (so no rows) for guests that keep to the 8259A.
  void apic_rows() {
    field("ioapic_deliveries", "I/O APIC interrupt messages", false, &Counters::ioapic_deliveries);
    field("apic_eois", "local APIC EOIs", false, &Counters::apic_eois);
  }

  void segment_rows() {
    counter("segment_loads", "segment-register loads", true, [](const Counters& c) {
      double total = 0;
      for (u64 count : c.segment_loads) total += double(count);
      return total;
    });
    for (std::size_t r = 0; r < kSegmentNames.size(); ++r)
      counter(std::string("segment_loads_") + kSegmentNames[r], std::string("  ") + kSegmentNames[r] + " loads", false,
              [r](const Counters& c) { return double(c.segment_loads[r]); });
    access("descriptor_reads", "descriptor reads (GDT/LDT)", AccessKind::DescriptorTableRead, true);
    access("interrupt_table_reads", "IDT gate / IVT reads", AccessKind::InterruptTableRead, false);
  }

  void lock_rows() {
    counter("locked", "implied and explicit locked accesses", true, [](const Counters& c) {
      double total = 0;
      for (u64 count : c.locked_by_kind) total += double(count);
      return total;
    });
    for (std::size_t k = 0; k < kAccessKindCount; ++k) {
      const std::string name(kAccessKindNames[k]);
      counter("locked_" + underscored(name), "  locked " + name, false,
              [k](const Counters& c) { return double(c.locked_by_kind[k]); });
    }
  }

  void code_rows() {
    field("replayed_instructions", "replayed instructions", true, &Counters::replayed_instructions);
    field("code_lines_32", "32-byte code lines fetched", false, &Counters::code_lines_32);
    field("l1i_misses", "L1 instruction-cache misses", true, &Counters::l1i_misses);
    field("l1d_misses", "L1 data-cache misses", true, &Counters::l1d_misses);
    field("code_range_instructions", "instructions in the code range", false, &Counters::code_range_instructions);
    field("code_range_bytes", "code-range bytes executed", true, &Counters::code_range_bytes);
    field("code_range_lines_32", "code-range 32-byte lines", false, &Counters::code_range_lines_32);
    field("code_range_lines_64", "code-range 64-byte lines", false, &Counters::code_range_lines_64);
  }

  void guest_rows() {
    for (const std::string& name : names_in(c_.results, &VariantResult::metrics)) {
      MetricRow row{MetricSource::Guest, name, name + " (guest)", true, {}};
      for (const VariantResult* result : c_.results) {
        const i64* value = successful_value(*result, &VariantResult::metrics, name);
        if (value)
          row.values.emplace_back(double(*value));
        else row.values.emplace_back();
      }
      c_.rows.push_back(std::move(row));
    }
  }

  void sample_rows() {
    for (const std::string& name : names_in(c_.results, &VariantResult::samples)) {
      const std::array<std::pair<const char*, double>, 4> stats = {
          {{"count", -1}, {"median", 50}, {"p99", 99}, {"max", 100}}};
      for (const auto& [stat, percent] : stats) {
        MetricRow row{MetricSource::Samples, name + "." + stat, name + " " + stat + " (samples)", stat != std::string("count"), {}};
        for (const VariantResult* result : c_.results) {
          const std::vector<i64>* values = successful_value(*result, &VariantResult::samples, name);
          if (!values || values->empty()) {
            row.values.emplace_back();
            continue;
          }
          std::vector<i64> sorted = *values;
          std::sort(sorted.begin(), sorted.end());
          row.values.emplace_back(percent < 0 ? double(sorted.size()) : double(percentile(sorted, percent)));
        }
        c_.rows.push_back(std::move(row));
      }
    }
  }

 private:
  void access(const char* key, const char* label, AccessKind kind, bool headline) {
    const auto k = static_cast<std::size_t>(kind);
    counter(key, label, headline, [k](const Counters& c) { return double(c.accesses_by_kind[k]); });
  }
  ScenarioComparison& c_;
};

}  // namespace

const char* name_of(MetricSource source) {
  switch (source) {
    case MetricSource::Counter: return "counter";
    case MetricSource::Guest: return "guest";
    case MetricSource::Samples: return "samples";
  }
  return "?";
}

std::optional<double> ScenarioComparison::ratio(const MetricRow& row, std::size_t variant) const {
  if (!baseline || !row.values[variant] || !row.values[*baseline] || *row.values[*baseline] == 0) return std::nullopt;
  return *row.values[variant] / *row.values[*baseline];
}

const MetricRow* ScenarioComparison::find(MetricSource source, const std::string& key) const {
  for (const MetricRow& row : rows)
    if (row.source == source && row.key == key) return &row;
  return nullptr;
}

std::string ScenarioComparison::seed_quantity(const std::string& key) const {
  const auto mapped = manifest->seed_counterparts.find(key);
  if (mapped != manifest->seed_counterparts.end()) return mapped->second;
  if (find(MetricSource::Guest, key) || find(MetricSource::Counter, key)) return key;
  // A wall-clock time of the seed (_ms, _us, seconds) stands for x86lab's modeled time.
  const auto ends_with = [&](std::string_view suffix) {
    return key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("_ms") || ends_with("_us") || key.find("seconds") != std::string::npos) return "cycles";
  return key;
}

std::optional<double> ScenarioComparison::seed_counterpart(const std::string& seed_key, std::size_t variant) const {
  const std::string key = seed_quantity(seed_key);
  if (const MetricRow* row = find(MetricSource::Guest, key)) return row->values[variant];
  if (const MetricRow* row = find(MetricSource::Counter, key)) return row->values[variant];
  return std::nullopt;
}

ScenarioComparison build_comparison(const ScenarioManifest& manifest, const std::vector<const VariantSpec*>& variants,
                                    const std::vector<const VariantResult*>& results) {
  ScenarioComparison comparison{&manifest, variants, results, std::nullopt, {}};
  for (std::size_t i = 0; i < variants.size(); ++i)
    if (variants[i]->name == manifest.baseline) comparison.baseline = i;
  RowBuilder builder(comparison);
  builder.run_rows();
  builder.delivery_rows();
  builder.apic_rows();
  builder.segment_rows();
  builder.lock_rows();
  builder.code_rows();
  builder.guest_rows();
  builder.sample_rows();
  return comparison;
}

std::string format_value(double value) {
  char text[64];
  if (value == std::floor(value) && std::fabs(value) < 1e18) std::snprintf(text, sizeof text, "%.0f", value);
  else std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

std::string format_seed(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string format_ratio(double ratio) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", ratio);
  return text;
}

}  // namespace x86lab
