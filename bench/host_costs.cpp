// Measures on the host CPU, in core clock cycles, the two costs of the `modern` profile
// that a user-mode process can time (trace/profiles/modern.cost cites this program and
// the run recorded in bench/results.md, "Host instruction costs"):
//   - MOV Sreg, r16: a segment-register load with its descriptor read and checks (the
//     Accessed bit already set). Timed as MOV ES, r16 with the process's own data
//     selector; in 64-bit mode the load reads and checks the descriptor as in protected
//     mode (Intel SDM Vol. 3A, "Segment Loading Instructions in IA-32e Mode"; only the
//     base and limit are then ignored).
//   - REP MOVSD: the start-up (element counts 1 to 64, where the time does not change
//     with the count) and the cost per element (least squares over 128 to 2048 elements,
//     source and destination in the L1 data cache).
// Method (seed 003's): a loop timed with RDTSC between LFENCEs, 31 samples, the median
// kept, the empty loop subtracted. RDTSC ticks at a constant rate, not at the core
// clock, so ticks become cycles through a chain of dependent ADD r32, imm (latency one
// cycle on every Intel and AMD core since the P6: Agner Fog, "Instruction tables").
// The figures are throughputs of back-to-back instructions, as the seed's were.
//
// Usage: build/<dir>/bench/host_costs [ROUNDS]  (default 5; prints the median over the
// rounds). It asserts nothing and never runs as a test (DESIGN.md: timing lives in bench/).
#include <cpuid.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kIterations = 10000;  // loop iterations per sample
constexpr int kSamples = 31;

inline std::uint64_t ticks() {
  _mm_lfence();
  const std::uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}

template <class Body>
double median_ticks(Body body) {
  std::vector<std::uint64_t> samples;
  for (int s = 0; s < kSamples + 3; ++s) {  // 3 warm-up samples are not kept
    const std::uint64_t begin = ticks();
    body();
    const std::uint64_t end = ticks();
    if (s >= 3) samples.push_back(end - begin);
  }
  std::nth_element(samples.begin(), samples.begin() + kSamples / 2, samples.end());
  return double(samples[kSamples / 2]);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

alignas(64) std::uint32_t source[2048];
alignas(64) std::uint32_t destination[2048];

// One REP MOVSD of `n` elements per iteration, or only its register set-up.
template <bool kMove>
void string_loop(long n) {
  for (int i = 0; i < kIterations; ++i) {
    void* s = source;
    void* d = destination;
    long c = n;
    if constexpr (kMove)
      asm volatile("rep movsl" : "+S"(s), "+D"(d), "+c"(c) : : "memory");
    else
      asm volatile("" : "+S"(s), "+D"(d), "+c"(c) : : "memory");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (argc > 2 || rounds < 1 || rounds > 100) {
    std::fprintf(stderr, "host_costs: ROUNDS must be 1 to 100\n");
    return 2;
  }
  const int small[] = {1, 8, 16, 32, 64};
  const int large[] = {128, 256, 512, 1024, 2048};
  std::vector<double> per_tick, mov_sreg, startup, per_element;
  for (int r = 0; r < rounds; ++r) {
    const double empty = median_ticks([] {
      for (int i = 0; i < kIterations; ++i) asm volatile("" ::: "memory");
    });
    const double chain = median_ticks([] {
      std::uint32_t x = 0;
      for (int i = 0; i < kIterations; ++i) asm volatile(".rept 10\n add $1, %0\n.endr" : "+r"(x));
    });
    const double cycles_per_tick = 10.0 * kIterations / chain;
    std::uint16_t selector;
    asm volatile("mov %%ds, %0" : "=r"(selector));
    const double loads = median_ticks([selector] {
      for (int i = 0; i < kIterations; ++i) asm volatile(".rept 10\n mov %0, %%es\n.endr" : : "r"(selector));
    });
    per_tick.push_back(cycles_per_tick);
    mov_sreg.push_back((loads - empty) * cycles_per_tick / (10.0 * kIterations));
    auto rep_movsd = [&](int n) {
      const double setup = median_ticks([n] { string_loop<false>(n); });
      const double move = median_ticks([n] { string_loop<true>(n); });
      return (move - setup) * cycles_per_tick / kIterations;
    };
    std::vector<double> fixed;
    for (int n : small) fixed.push_back(rep_movsd(n));
    startup.push_back(median(fixed));
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int n : large) {
      const double c = rep_movsd(n);
      sx += n, sy += c, sxx += double(n) * n, sxy += n * c;
    }
    const double k = std::size(large);
    per_element.push_back((k * sxy - sx * sy) / (k * sxx - sx * sx));
  }
  unsigned a, b, c, d;
  __cpuid(1, a, b, c, d);
  const unsigned family = ((a >> 8) & 0xF) + ((a >> 20) & 0xFF);
  const unsigned model = ((a >> 4) & 0xF) | (((a >> 16) & 0xF) << 4);
  std::printf("host CPU: family %u model %u stepping %u; medians of %d rounds\n", family, model, a & 0xF, rounds);
  std::printf("core cycles per TSC tick        %8.3f\n", median(per_tick));
  std::printf("MOV ES, r16 (Accessed bit set)  %8.2f cycles\n", median(mov_sreg));
  std::printf("REP MOVSD start-up (1-64)       %8.2f cycles\n", median(startup));
  std::printf("REP MOVSD per element (128-2048)%8.4f cycles\n", median(per_element));
  return 0;
}
