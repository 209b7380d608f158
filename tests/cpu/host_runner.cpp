// The two CPUs of the host differential tests: the host's own, through a stub in an
// executable page, and x86lab's in flat 32-bit protected mode (see host_runner.h).
#include "host_runner.h"

#include <cerrno>
#include <csetjmp>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#if X86LAB_HOST_CPU_SUPPORTED
#include <sys/mman.h>
#include <ucontext.h>
#endif

namespace x86lab::testing {

#if X86LAB_HOST_CPU_SUPPORTED
namespace {

// Host layout: one mapping holding the stub, its context block, a scratch stack for
// PUSHFQ/POPFQ and the shared data buffer, all below 4 GiB so 32-bit absolute
// addresses reach them.
constexpr u32 kHostBase = 0x000C0000u;
constexpr u32 kHostBytes = 0x10000u;
constexpr u32 kCodeAddress = kHostBase;
constexpr u32 kContextAddress = kHostBase + 0x1000;
constexpr u32 kScratchStackTop = kHostBase + 0x4000;
static_assert(kDataAddress >= kScratchStackTop && kDataAddress + kDataBytes <= kHostBase + kHostBytes);

// The context block the stub reads and writes (offsets are baked into the stub).
struct Context {
  u32 in[8];     // +0x00
  u64 in_flags;  // +0x20
  u64 pad0[3];
  u32 out[8];       // +0x40
  u64 out_flags;    // +0x60
  u64 saved_rsp;    // +0x68 the C caller's RSP
  u64 scratch_rsp;  // +0x70
};
static_assert(offsetof(Context, out) == 0x40 && offsetof(Context, scratch_rsp) == 0x70);

constexpr unsigned kSlotBytes = 16;  // the instruction under test, padded with NOPs

// Signal state shared with the handler (one HostCpu at a time).
sigjmp_buf g_jump;
volatile std::sig_atomic_t g_in_stub = 0;
int g_signal = 0;
RegisterState g_fault_state;
constexpr int kSignals[] = {SIGFPE, SIGILL, SIGSEGV, SIGBUS};
struct sigaction g_previous[std::size(kSignals)];
bool g_alive = false;

void on_signal(int signal, siginfo_t*, void* context) {
  if (!g_in_stub) {
    // Not raised by an instruction under test: let the default action happen when the
    // faulting instruction runs again.
    std::signal(signal, SIG_DFL);
    return;
  }
  const greg_t* g = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  constexpr int kOrder[8] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI};
  for (int r = 0; r < 8; ++r) g_fault_state.gpr[r] = static_cast<u32>(g[kOrder[r]]);
  g_fault_state.eflags = static_cast<u32>(g[REG_EFL]);
  g_signal = signal;
  g_in_stub = 0;
  siglongjmp(g_jump, 1);
}

// A tiny x86-64 assembler for the stub: absolute [disp32] operands use ModRM mod=00
// rm=100 with SIB 25h (no base, no index), since mod=00 rm=101 means RIP-relative.
class Emitter {
 public:
  explicit Emitter(u8* at) : at_(at) {}
  Emitter& bytes(std::initializer_list<u8> list) {
    for (u8 b : list) at_[n_++] = b;
    return *this;
  }
  // `prefix... opcode` then ModRM(reg) SIB disp32 for the absolute address.
  Emitter& absolute(std::initializer_list<u8> opcode, unsigned reg, u32 address) {
    bytes(opcode);
    bytes({static_cast<u8>((reg << 3) | 4), 0x25});
    for (int i = 0; i < 4; ++i) at_[n_++] = static_cast<u8>(address >> (8 * i));
    return *this;
  }
  unsigned size() const { return n_; }

 private:
  u8* at_;
  unsigned n_ = 0;
};

constexpr u32 context_field(std::size_t offset) { return kContextAddress + static_cast<u32>(offset); }

// Writes the stub and returns the offset of the instruction slot. Registers are
// numbered as in ModRM: 0 EAX ... 4 ESP ... 7 EDI.
unsigned emit_stub(u8* code) {
  Emitter e(code);
  e.bytes({0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57});       // push rbx rbp r12-r15
  e.absolute({0x48, 0x89}, 4, context_field(offsetof(Context, saved_rsp)));    // mov [saved], rsp
  e.absolute({0x48, 0x8B}, 4, context_field(offsetof(Context, scratch_rsp)));  // mov rsp, [scratch]
  e.absolute({0xFF}, 6, context_field(offsetof(Context, in_flags)));           // push qword [in_flags]
  e.bytes({0x9D});                                                             // popfq
  for (unsigned r : {0u, 1u, 2u, 3u, 5u, 6u, 7u, 4u})                          // ESP last
    e.absolute({0x8B}, r, context_field(offsetof(Context, in) + 4 * r));       // mov r32, [in+4r]
  const unsigned slot = e.size();
  for (unsigned i = 0; i < kSlotBytes; ++i) e.bytes({0x90});
  for (unsigned r = 0; r < 8; ++r)
    e.absolute({0x89}, r, context_field(offsetof(Context, out) + 4 * r));       // mov [out+4r], r32
  e.absolute({0x48, 0x8B}, 4, context_field(offsetof(Context, scratch_rsp)));   // mov rsp, [scratch]
  e.bytes({0x9C});                                                              // pushfq
  e.absolute({0x8F}, 0, context_field(offsetof(Context, out_flags)));           // pop qword [out_flags]
  e.bytes({0xFC});                                                              // cld (the ABI wants DF = 0)
  e.absolute({0x48, 0x8B}, 4, context_field(offsetof(Context, saved_rsp)));     // mov rsp, [saved]
  e.bytes({0x41, 0x5F, 0x41, 0x5E, 0x41, 0x5D, 0x41, 0x5C, 0x5D, 0x5B, 0xC3});  // pop ...; ret
  return slot;
}

unsigned g_slot = 0;

Context& context() { return *reinterpret_cast<Context*>(static_cast<std::uintptr_t>(kContextAddress)); }

constexpr u32 kComparedFlags = flag::kStatus | flag::DF;

}  // namespace

HostCpu::HostCpu() {
  if (g_alive) throw std::runtime_error("only one HostCpu may exist at a time");
  void* at = mmap(reinterpret_cast<void*>(static_cast<std::uintptr_t>(kHostBase)), kHostBytes,
                  PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (at == MAP_FAILED || at != reinterpret_cast<void*>(static_cast<std::uintptr_t>(kHostBase))) {
    if (at != MAP_FAILED) munmap(at, kHostBytes);
    char text[160];
    std::snprintf(text, sizeof(text), "cannot map the host stub's pages at %#x (in use, or W+X mappings refused): %s",
                  kHostBase, std::strerror(errno));
    throw std::runtime_error(text);
  }
  g_slot = emit_stub(reinterpret_cast<u8*>(at));
  context().scratch_rsp = kScratchStackTop;

  // Signals from the instruction under test are handled on an alternate stack: the
  // test's own ESP value is in RSP when it faults.
  static u8 alternate_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alternate_stack;
  ss.ss_size = sizeof(alternate_stack);
  sigaltstack(&ss, nullptr);
  struct sigaction action {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &action, &g_previous[i]);
  g_alive = true;
}

HostCpu::~HostCpu() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
  munmap(reinterpret_cast<void*>(static_cast<std::uintptr_t>(kHostBase)), kHostBytes);
  g_alive = false;
}

Outcome HostCpu::run(std::span<const u8> bytes, const RegisterState& before) {
  if (bytes.size() > kSlotBytes) throw std::invalid_argument("instruction longer than the stub's slot");
  u8* slot = reinterpret_cast<u8*>(static_cast<std::uintptr_t>(kCodeAddress)) + g_slot;
  std::memcpy(slot, bytes.data(), bytes.size());
  std::memset(slot + bytes.size(), 0x90, kSlotBytes - bytes.size());
  Context& c = context();
  for (int r = 0; r < 8; ++r) c.in[r] = before.gpr[r];
  c.in_flags = flag::Reserved1 | flag::IF | (before.eflags & kComparedFlags);

  Outcome outcome;
  if (sigsetjmp(g_jump, 0) == 0) {
    g_in_stub = 1;
    reinterpret_cast<void (*)()>(static_cast<std::uintptr_t>(kCodeAddress))();
    g_in_stub = 0;
    for (int r = 0; r < 8; ++r) outcome.after.gpr[r] = c.out[r];
    outcome.after.eflags = static_cast<u32>(c.out_flags);
  } else {
    outcome.ending = g_signal == SIGFPE ? Ending::DivideError : Ending::OtherFault;
    outcome.detail = g_signal;
    outcome.after = g_fault_state;
  }
  outcome.after.eflags = (outcome.after.eflags & kComparedFlags) | flag::Reserved1;
  return outcome;
}

#else

HostCpu::HostCpu() { throw std::runtime_error("the host differential tests need an x86-64 Linux host"); }
HostCpu::~HostCpu() = default;
Outcome HostCpu::run(std::span<const u8>, const RegisterState&) { return {}; }

#endif  // X86LAB_HOST_CPU_SUPPORTED

// ---- x86lab ----------------------------------------------------------------------

namespace {
constexpr u32 kSimulatedCode = 0x1000;            // where x86lab fetches the instruction
constexpr u64 kFlatCode = 0x00CF9B000000FFFFull;  // base 0, limit 4 GiB, 32-bit execute/read, accessed
constexpr u64 kFlatData = 0x00CF93000000FFFFull;  // base 0, limit 4 GiB, read/write, accessed
}  // namespace

struct SimulatedCpu::Machine {
  Counters counters;
  PhysicalBus bus{1u << 20, counters};
  PortBus ports{counters};
  Mmu mmu{bus};
  Cpu cpu{mmu, ports, counters, default_profile()};
};

SimulatedCpu::SimulatedCpu() : machine_(std::make_unique<Machine>()) {
  CpuState& s = machine_->cpu.state;
  s.cr0 |= cr0::PE;
  s.cpl = 0;
  for (u8 r = 0; r < 6; ++r) {
    s.segments[r].selector = r == CS ? 0x08 : 0x10;
    s.segments[r].cache.load(Descriptor::parse(r == CS ? kFlatCode : kFlatData));
  }
  s.idtr = {0, 0};  // any exception: counted by vector, then #DF and shutdown
  machine_->cpu.sync_paging();
}

SimulatedCpu::~SimulatedCpu() = default;

void SimulatedCpu::load_data(std::span<const u8> bytes) { machine_->bus.load(kDataAddress, bytes); }

void SimulatedCpu::store_data(std::span<u8> bytes) const {
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = machine_->bus.peek(kDataAddress + static_cast<u32>(i));
}

Outcome SimulatedCpu::run(std::span<const u8> bytes, const RegisterState& before) {
  Cpu& cpu = machine_->cpu;
  machine_->bus.load(kSimulatedCode, bytes);
  cpu.state.gpr = before.gpr;
  cpu.state.eflags = flag::Reserved1 | (before.eflags & kComparedFlags);
  cpu.state.eip = kSimulatedCode;
  cpu.state.shutdown = false;
  cpu.state.halted = false;
  // A repeated string instruction may take more than one step (it yields between
  // batches of iterations with EIP still at the instruction).
  for (int steps = 0; steps < 64 && cpu.state.eip == kSimulatedCode && !cpu.state.shutdown; ++steps) cpu.step();

  Outcome outcome;
  auto& by_vector = machine_->counters.exceptions_by_vector;
  if (cpu.state.shutdown) {
    // The first vector counted is the instruction's own fault (the #DF after it is ours).
    for (unsigned v = 0; v < by_vector.size(); ++v) {
      if (v == 8 || by_vector[v] == 0) continue;
      outcome.ending = v == 0 ? Ending::DivideError : Ending::OtherFault;
      outcome.detail = static_cast<int>(v);
      break;
    }
    by_vector.fill(0);
  }
  outcome.after.gpr = cpu.state.gpr;
  outcome.after.eflags = (cpu.state.eflags & kComparedFlags) | flag::Reserved1;
  return outcome;
}

}  // namespace x86lab::testing
