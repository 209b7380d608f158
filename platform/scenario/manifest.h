// The manifest of a design-comparison scenario (issue 9, docs/compare.md): the
// variants.json file each roms/scenarios/<scenario>/ folder copies into its build
// folder, naming the guest images of the variants and the seed's own numbers.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/types.h"

namespace x86lab {

// One variant of a scenario: a guest program run on a fresh machine.
struct VariantSpec {
  std::string name;                    // [a-z0-9_-]+, unique in its scenario
  std::string description;             // one line for the reader of a report
  std::filesystem::path kernel;        // Multiboot kernel (resolved against the manifest's folder), or empty
  std::filesystem::path bios;          // ROM image (resolved likewise), or empty; exactly one of the two is set
  std::string append;                  // Multiboot or Linux command line ("" for none; "linux": {"cmdline"})
  // Multiboot module 0 or Linux initrd (as --initrd; resolved likewise; "linux": {"initrd"}), or empty; needs a kernel
  std::filesystem::path module;
  u32 memory_mib = 64;                 // RAM size in MiB (1 to 3584)
  u64 max_instructions = 0;            // safety limit in steps (instructions and deliveries); reaching it fails the variant
  std::map<std::string, double> seed;  // the seed document's numbers for this variant, keyed like METRIC names
  u32 code_range_begin = 0;            // linear range [begin, end) counted on its own (Counters::code_range_*),
  u32 code_range_end = 0;              // e.g. an interrupt stub table; "code_range": "BEGIN:END" in hex; 0, 0 = off
};

// A sweep knob of a scenario's guests (docs/compare.md, "Sweeps"): `x86lab compare sweep`
// appends "<name>=<value>" to every variant's Multiboot command line; the guests parse it.
struct ScenarioKnob {
  std::string name;         // [a-z0-9_]+, unique in the scenario
  std::string description;  // what it sets, with its unit
  u64 min = 0, max = 0;     // the values the guest accepts, inclusive
  std::optional<u64> fallback;  // the guest's value without the knob ("default"); none when it is per variant
};

struct ScenarioManifest {
  std::filesystem::path path;  // the variants.json that was read
  std::string scenario;        // [a-z0-9_-]+, e.g. "tls"
  std::string title;           // one line
  std::string seed;            // the seed document's file name, e.g. "000_60a64b4897ed0d0d.txt"
  std::string baseline;        // the variant that ratios divide by (names one of `variants`)
  std::string operation;       // what one operation is, for cycles per operation ("TLS access")
  // Seed keys with no x86lab quantity of the same name, mapped to the METRIC or counter
  // key that stands for them ("seed_counterparts": {"hackbench_seconds": "pingpong_cycles"}).
  std::map<std::string, std::string> seed_counterparts;
  bool in_all = true;          // false: left out of `x86lab compare all` (test fixtures)
  // The built-in profile of the CPU the seed measured on ("seed_profile": "k7" for seed
  // 004's Sempron), or empty: compare also reports the seed figures under it.
  std::string seed_profile;
  std::vector<VariantSpec> variants;  // in the manifest's order (the order of reports)
  std::vector<ScenarioKnob> knobs;    // "knobs": [{"name", "description", "min", "max", "default"}], may be empty

  // The variant called `name`, or nullptr.
  const VariantSpec* find(std::string_view name) const;
};

// Reads and checks a manifest (layout in docs/compare.md). Throws InputError with one
// line "manifest '<path>': <problem>" when the file is missing, is not JSON, lacks a
// field, has a field of the wrong type or range, names a variant twice, sets not exactly
// one of kernel, bios and linux (a Linux kernel: {"kernel", "initrd", "cmdline"}), or names a baseline that is not one of its variants. Image
// files are not opened here (run_variant reports a missing one).
ScenarioManifest load_manifest(const std::filesystem::path& variants_json);

// The folder `${guest_cache}` names in manifest paths: $X86LAB_GUEST_CACHE, else
// ~/.cache/x86lab/guests (where scripts/fetch-linux-guest.sh puts the Linux guests).
std::filesystem::path guest_cache_dir();

// A manifest path: "${guest_cache}/REST" is REST in guest_cache_dir(); a relative path is
// relative to `folder` (the manifest's); an absolute one stays.
std::filesystem::path resolve_manifest_path(const std::string& text, const std::filesystem::path& folder);

// True when `name` is a non-empty [a-z0-9_-]+ word (scenario and variant names).
bool is_valid_name(std::string_view name);

// Where the built scenarios are when no folder is named (--scenario-dir): roms/scenarios/
// beside the running x86lab executable (its build folder), else the build folder this
// binary was configured for. The one answer for `x86lab compare` and `x86lab gui`.
std::filesystem::path default_scenario_dir();

// The scenario folders of `dir` that hold a variants.json, by folder name: the design
// scenarios in the order of their seeds (tls, ctxsw, irq), then the others
// alphabetically. None when `dir` is missing.
std::vector<std::string> scenario_names(const std::filesystem::path& dir);

}  // namespace x86lab
