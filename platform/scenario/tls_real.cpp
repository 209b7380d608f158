// Recording a real workload's TLS stream, with its cache (platform/scenario/tls_real.h).
#include "platform/scenario/tls_real.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "platform/input_error.h"
#include "platform/scenario/scenario_runner.h"
#include "trace/output_file.h"

namespace x86lab {
namespace {

// COM1 into a string; no input.
class CapturedSerial final : public SerialHost {
 public:
  void transmit(u8 byte) override { text.push_back(static_cast<char>(byte)); }
  std::optional<u8> receive() override { return std::nullopt; }
  bool input_open() const override { return false; }
  std::string text;
};

struct Fnv1a {
  u64 hash = 14695981039346656037ull;
  void add(const void* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) hash = (hash ^ static_cast<const u8*>(data)[i]) * 1099511628211ull;
  }
  void add(const std::string& text) {
    const u64 size = text.size();
    add(&size, sizeof size);
    add(text.data(), text.size());
  }
};

std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line, last;
  while (std::getline(lines, line))
    if (line.find_first_not_of(" \r\t") != std::string::npos) last = line;
  return last;
}

void count_stream(RecordedWorkload& recorded) {
  for (const tls_stream_record& r : recorded.stream.records) {
    if (r.flags & TLS_STREAM_SWITCH) {
      ++recorded.switches;
      continue;
    }
    ++recorded.accesses;
    if (r.offset < 0) ++recorded.negative_accesses;
  }
}

}  // namespace

std::string workload_key(const VariantSpec& workload, const MachineConfig& base, const TlsWindow& window) {
  Fnv1a fnv;
  for (const std::filesystem::path& file : {workload.kernel, workload.module}) {
    const std::vector<u8> bytes = read_input_bytes(file.string(), "workload file", kAnyInputSize);
    fnv.add(std::string(bytes.begin(), bytes.end()));
  }
  fnv.add(workload.append);
  fnv.add(std::to_string(workload.memory_mib) + " " + std::to_string(workload.max_instructions));
  fnv.add(window.begin + ".." + window.end + " " + std::to_string(window.from) + ".." + std::to_string(window.to));
  fnv.add(std::string(base.profile->name) + " " + base.cost_model.name + " " + (base.cache_model ? "cache" : "nocache") +
          " " + std::to_string(base.cpu_hz) + " " + std::to_string(base.rtc_start));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv.hash));
  return hex;
}

RecordedWorkload record_workload(const VariantSpec& workload, const MachineConfig& base, const TlsWindow& window,
                                 const std::filesystem::path& cache) {
  RecordedWorkload recorded;
  const std::string key = workload_key(workload, base, window);
  const std::filesystem::path stream_file = cache.empty() ? std::filesystem::path() : cache / (key + ".x86ltls");
  const std::filesystem::path facts_file = cache.empty() ? std::filesystem::path() : cache / (key + ".json");
  std::error_code error;
  if (!cache.empty() && std::filesystem::exists(stream_file, error) && std::filesystem::exists(facts_file, error)) {
    const auto facts = nlohmann::json::parse(read_input_text(facts_file.string(), "TLS stream facts", kTextInputLimit));
    recorded.stream = decode_tls_stream(read_input_bytes(stream_file.string(), "TLS stream", kAnyInputSize),
                                        stream_file.string());
    recorded.window = {true, true, facts.at("window_instructions").get<u64>(), facts.at("window_cycles").get<u64>()};
    recorded.boot_instructions = facts.at("boot_instructions").get<u64>();
    recorded.from_cache = true;
    recorded.stream_file = stream_file;
    count_stream(recorded);
    return recorded;
  }

  MachineConfig config = isolated_variant_config(workload, base);
  CapturedSerial serial;
  TlsRecorder recorder(window, &serial);
  config.com1_host = &recorder;
  auto machine = std::make_unique<Machine>(config);
  recorder.attach(*machine);
  const RunResult run = machine->run();
  recorder.finish();
  recorded.serial = serial.text;
  recorded.boot_instructions = machine->counters.instructions;
  const std::string where = "workload '" + workload.name + "': ";
  if (run.reason != RunResult::Reason::Halted || run.exit_status != 0)
    throw InputError(where + describe_run_end(run.reason) + " after " + std::to_string(machine->counters.instructions) +
                     " instructions (last COM1 line: '" + last_line(serial.text) + "')");
  if (!recorder.counts().opened || !recorder.counts().closed)
    throw InputError(where + "the recording window " + (recorder.counts().opened ? "never closed" : "never opened") +
                     " (markers '" + window.begin + "'..'" + window.end + "'; last COM1 line: '" +
                     last_line(serial.text) + "')");
  recorded.stream = recorder.stream();
  recorded.window = recorder.counts();
  count_stream(recorded);
  if (!cache.empty()) {
    std::filesystem::create_directories(cache, error);
    write_tls_stream(recorded.stream, stream_file.string() + ".part");
    const nlohmann::json facts = {{"window_instructions", recorded.window.instructions},
                                  {"window_cycles", recorded.window.cycles},
                                  {"boot_instructions", recorded.boot_instructions},
                                  {"workload", workload.name}, {"cmdline", workload.append}};
    write_whole_file(facts_file.string(), facts.dump(2) + "\n", "TLS stream facts");
    std::filesystem::rename(stream_file.string() + ".part", stream_file, error);
    if (error) throw InputError("cannot store TLS stream '" + stream_file.string() + "': " + error.message());
    recorded.stream_file = stream_file;
  }
  return recorded;
}

}  // namespace x86lab
