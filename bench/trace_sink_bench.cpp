// Benchmark (never a test): binary trace sink throughput in events per second, on a
// synthetic mix like a real trace (instructions, memory accesses, register writes).
// Target (issue 8): at least 20 million events per second.
// usage: trace_sink_bench [EVENTS] [PATH]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "trace/sink.h"

int main(int argc, char** argv) {
  using namespace x86lab;
  const u64 count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 50'000'000ull;
  const std::string path = argc > 2 ? argv[2] : "/tmp/x86lab_trace_bench.bin";
  auto sink = open_sink("bin:" + path, 500);
  Event insn;
  insn.kind = EventKind::Instruction;
  insn.size = 3;
  insn.bytes = {0x8B, 0x45, 0x08};
  insn.text = "MOV";
  Event mem;
  mem.kind = EventKind::MemoryAccess;
  mem.size = 4;
  mem.detail = static_cast<u8>(AccessKind::Data);
  Event reg;
  reg.kind = EventKind::RegisterWrite;
  const auto start = std::chrono::steady_clock::now();
  for (u64 i = 0; i < count; i += 3) {
    insn.instruction = mem.instruction = reg.instruction = i / 3;
    insn.cycle = mem.cycle = reg.cycle = i / 3;
    insn.b = 0x1000 + static_cast<u32>(i & 0xFFF);
    mem.a = mem.b = 0x8000 + static_cast<u32>(i & 0xFFC);
    mem.value = i;
    reg.value = i;
    sink->write(mem);
    sink->write(insn);
    sink->write(reg);
  }
  sink->finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("binary sink: %llu events in %.3f s = %.1f million events/s\n", static_cast<unsigned long long>(count),
              seconds, count / seconds / 1e6);
  std::remove(path.c_str());
  return 0;
}
