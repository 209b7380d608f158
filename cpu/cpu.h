// The CPU core: run loop with one attention word, instruction fetch, memory and stack
// access through the descriptor caches and the MMU, and fault delivery (DESIGN.md
// sections 2-4). Executors (cpu/exec_*.cpp) use the helpers here and never catch
// faults: a Fault thrown anywhere in an instruction, or signalled without unwinding
// (signal_fault: the operand helpers, try_read/try_write), restores the
// instruction-start EIP and ESP and is delivered by the run loop. The data accesses'
// bodies are in cpu/memory_access.h and the operand helpers in cpu/operands.h (both
// included at the end). The instruction cycle that drives it is cpu/instruction_cycle.h,
// its fetch and decode cache cpu/fetch_unit.h, the accelerator cpu/linked_runner.h.
#pragma once
#include <array>
#include <atomic>
#include "cpu/code_lines.h"
#include "cpu/cpu_profile.h"
#include "cpu/cpu_state.h"
#include "cpu/fetch_unit.h"
#include "cpu/x87/error_pins.h"
#include "cpu/flags.h"
#include "cpu/instruction.h"
#include "cpu/replay_watch.h"
#include "mmu/paging.h"
#include "mmu/port_bus.h"
#include "segmentation/segment_loading.h"
#include "trace/cost_ledger.h"
#include "trace/cost_model.h"
#include "trace/state_archive.h"

#include <memory>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

namespace x86lab {

// The CPU's INTR line: the platform's interrupt controller (local APIC or 8259A pair) implements it.
class InterruptController {
 public:
  virtual ~InterruptController() = default;
  virtual bool interrupt_pending() const = 0;
  // The INTA cycle: returns the vector and updates the controller's state.
  virtual u8 acknowledge() = 0;
};

// IA32_APIC_BASE (MSR 1Bh) as RDMSR and WRMSR reach it: the platform's local APIC
// implements it (Intel SDM Vol. 3, "Local APIC Status and Location"). Without one,
// RDMSR reads FEE00000h (APIC globally disabled) and WRMSR raises #GP(0).
class ApicBaseRegister {
 public:
  virtual ~ApicBaseRegister() = default;
  // The MSR's 64-bit value: base address 31:12, global enable bit 11, BSP flag bit 8.
  virtual u64 apic_base() const = 0;
  // Writes the MSR; false when `value` sets a reserved bit (WRMSR then raises #GP(0)).
  virtual bool write_apic_base(u64 value) = 0;
};

// The condition codes of Jcc/SETcc/CMOVcc (SDM Vol. 1 Appendix B "EFLAGS Condition
// Codes"), by pairs: code 2n holds when EFLAGS & kConditionMasks[n] is not zero, code
// 2n+1 when it is zero (O B E BE S P L LE). Bit 15, reserved and always 0 in EFLAGS,
// stands for SF != OF (Cpu::condition puts it there).
inline constexpr u32 kSfNotOf = 1u << 15;
inline constexpr std::array<u32, 8> kConditionMasks = {
    flag::OF, flag::CF, flag::ZF, flag::CF | flag::ZF, flag::SF, flag::PF, kSfNotOf, flag::ZF | kSfNotOf};
static_assert((flag::kImplemented & kSfNotOf) == 0);

// Why run() returned.
enum class StopReason : u8 { InstructionLimit, Halted, Shutdown, StopRequested, CycleLimit };

// What kind of event is delivered through the IDT/IVT, which decides the error code's
// EXT bit, the gate DPL check and which EIP is pushed.
// Where an event comes from. PrivilegedSoftwareException is INT1 (ICEBP, F1): #DB
// delivered like an exception (no gate DPL check, EXT = 1 in error codes, not
// IOPL-sensitive in virtual-8086 mode; SDM Vol. 2 "INT n/INTO/INT3/INT1").
enum class EventSource : u8 { Exception, SoftwareInterrupt, External, Nmi, PrivilegedSoftwareException };

// A debugger's hook into the run loop (platform/debugger): while one is set, run()
// calls before_step() at every step boundary before it checks for a stop request, so
// the hook may call Cpu::stop() to end run() there. Costs nothing while none is set.
class StepMonitor {
 public:
  virtual ~StepMonitor() = default;
  virtual void before_step() = 0;
};

// The fields of CpuState in a snapshot's order (cpu/cpu_snapshot.cpp).
void transfer_cpu_state(StateArchive& archive, CpuState& state);

class Cpu;
class LinkedRunner;

// An observer of the data accesses made through one segment register (Cpu::observe_segment;
// `x86lab run --record-tls` watches GS, the thread pointer of Linux i386 glibc). Called
// after each access that completed (a faulting one is seen again when it is retried),
// with the offset (the effective address), the size in bytes and whether it wrote; a
// read-modify-write without LOCK is a read and a write, a locked one a write.
class SegmentAccessObserver {
 public:
  virtual ~SegmentAccessObserver() = default;
  virtual void segment_access(const Cpu& cpu, u32 offset, unsigned size, bool write) = 0;
};

class Cpu {
 public:
  Cpu(Mmu& mmu, PortBus& ports, Counters& counters, const CpuProfile& profile);
  ~Cpu();
  Cpu(const Cpu&) = delete;
  Cpu& operator=(const Cpu&) = delete;
  // (Not movable either: the bus and the Mmu keep the addresses of its clock and caches.)
  Cpu(Cpu&&) = delete;
  Cpu& operator=(Cpu&&) = delete;

  CpuState state;

  // Saves, checks or loads the CPU's part of a machine snapshot (cpu/cpu_snapshot.cpp,
  // docs/snapshots.md) between instructions: CpuState, the step count, debug traps
  // waiting, the replay watch, the fault chain and the code-line set. A load rebuilds
  // what is derived (armed breakpoints, the Mmu's paging bits, whose change flushes the
  // TLB: restore the Mmu after this; the decode cache). Throws StateArchiveError.
  void transfer_state(StateArchive& archive);

  // Reset state (Intel SDM Vol. 3, "Processor State After Reset"): CS F000h with base
  // FFFF0000h, EIP FFF0h, EDX = the profile's signature, CR0 = 60000010h.
  void reset();

  // Executes up to `max_instructions` instructions (delivering interrupts between
  // them) or until the CPU halts, shuts down or stop() is called: as many calls of
  // step() would, with the same state and counters. Unless a tracer or a step monitor
  // observes every instruction, the accelerator runs it (cpu/linked_runner.h).
  // Counters are exact when it returns (the decode cache's per-entry statistics are
  // added up then, DecodeCache::settle).
  StopReason run(u64 max_instructions);
  // run() also returns (StopReason::CycleLimit) before a step when clock().cycles()
  // has reached this cycle count: the platform sets it to its next device event.
  // (Kept in 1/256 cycles, as ModeledClock::subcycles; a count beyond 2^56 means none.)
  // Also ends a signal stop (stop_from_signal).
  void set_cycle_limit(u64 cycles) {
    subcycle_limit_ = cycles >> 56 ? ~u64{0} : cycles << 8;
    attention_.clear_signal();
  }
  // Ends run() at the next instruction boundary (or REP batch) as a reached cycle limit
  // does, and every run() until the next set_cycle_limit; async-signal-safe
  // (Attention::raise_from_signal), for a signal handler: the caller records why and
  // checks that before the next run().
  void stop_from_signal() { attention_.raise_from_signal(); }
  // Steps (instructions and deliveries) run() has taken since construction.
  u64 steps() const { return steps_; }
  // The reference interpreter (InstructionCycle::step): executes one instruction
  // (fetch from the decode cache, execute, retire), or delivers one pending interrupt,
  // or does nothing when halted.
  void step();
  // Turns the decode cache off (or on again, the default): off, every instruction is
  // decoded from its bytes (FetchUnit::decode_at) and run() takes the reference
  // interpreter's loop. Results, counters and traces are the same either way (the
  // accelerator contract, tests/platform/accelerator_contract_test.cpp, compares a
  // run without the cache to one with the accelerator); off is slower.
  void set_decode_cache(bool on) {
    decode_cache_on_ = on;
    fetch_.decode_cache().clear();
  }
  bool decode_cache_on() const { return decode_cache_on_; }
  void stop() { attention_.raise(Attention::kStopRequested); }
  // Sets (or, with null, removes) the debugger's step monitor.
  void set_step_monitor(StepMonitor* monitor) {
    monitor_ = monitor;
    if (monitor) attention_.raise(Attention::kMonitor);
    else attention_.clear(Attention::kMonitor);
  }
  void set_interrupt_controller(InterruptController* pic) { pic_ = pic; }
  // Sets (or, with null, removes) what MSR 1Bh (IA32_APIC_BASE) reads and writes.
  void set_apic_base_register(ApicBaseRegister* apic_base) { apic_base_ = apic_base; }
  ApicBaseRegister* apic_base_register() const { return apic_base_; }
  // The x87 FERR#/IGNNE# pins (cpu/x87/error_pins.h); the platform wires FERR# to IRQ 13.
  void set_x87_error_pins(X87ErrorPins pins) { x87_error_pins_ = std::move(pins); }
  const X87ErrorPins& x87_error_pins() const { return x87_error_pins_; }
  // Counts Counters::replayed_instructions from now on (the replay watch,
  // cpu/replay_watch.h). Off by default: the scenario runner and `x86lab run` (whose
  // counters --stats, --stats-json and snapshots report) attach it; the inspector (x86lab gui)
  // and CPU tests need not.
  void watch_replays() { replay_.attach(); }
  // Re-evaluates whether an interrupt could be pending (devices call it when an IRQ line changes).
  void notify_interrupt() { attention_.raise(Attention::kCheckInterrupt); }

  const CpuProfile& profile() const { return profile_; }
  // Installs a cost model: per-mnemonic instruction costs and the event costs in
  // the clock's costs (clock().costs). Without one (CPU tests), each instruction costs one cycle. An
  // instruction whose mnemonic the model has no cost for charges nothing and is
  // listed by uncosted_mnemonics() once it has retired.
  void set_cost_model(const CostModel& model);
  // The mnemonics of retired instructions the cost model has no cost for, sorted
  // (needs the statistics: Counters::instructions_by_row; call after run(), which settles them).
  std::vector<std::string> uncosted_mnemonics() const;
  // Retired instructions by mnemonic, sorted by mnemonic (Counters::instructions_by_row summed).
  std::vector<std::pair<std::string, u64>> retirements_by_mnemonic() const;
  // The run's cycles as counts x constants (trace/cost_ledger.h); after run().
  CostLedger cost_ledger() const;
  // Records the charges between consecutive RDTSC executions (CostWindow), from now on;
  // costs a decode-cache settle per RDTSC (the scenario runner's choice, not run's).
  void enable_cost_windows() { cost_windows_.enabled = true; }
  // The windows recorded, in the order each pair first ran.
  std::vector<CostWindow> cost_windows() const;
  // Called by RDTSC before it reads the clock (exec_system.cpp).
  void note_rdtsc() {
    if (cost_windows_.enabled) [[unlikely]] close_cost_window();
  }
  // Turns the L1 cache model (trace/cache_model.h; the cost model's geometry and miss
  // costs) on or off, with empty caches (MachineConfig::cache_model, --cache-model).
  // On, the Mmu's direct paths are off, so that every data access reaches the bus and
  // its observer, and the linked run checks each instruction's L1I line; off (the
  // default), neither fetches nor data accesses do any work for it, and
  // l1i-misses/l1d-misses are not counted. Whether it is on is stored once, in
  // Counters::cache_model (the counters it fills say whether they were counted).
  void set_cache_model(bool on);
  bool cache_model() const { return counters_.cache_model; }
  Counters& counters() { return counters_; }
  const Counters& counters() const { return counters_; }
  // The modeled clock (trace/modeled_clock.h): machine state the CPU owns; the bus it
  // is attached to charges its locked cycles to it, the Mmu its page walks.
  ModeledClock& clock() { return clock_; }
  const ModeledClock& clock() const { return clock_; }
  // The attached tracer, or null (events are produced only while one is set): the
  // Mmu's, which the port bus shares. set_tracer attaches one to both (or detaches).
  Tracer* tracer() const { return mmu_.tracer(); }
  void set_tracer(Tracer* tracer) {
    mmu_.set_tracer(tracer);
    ports_.set_tracer(tracer);
  }
  Mmu& mmu() { return mmu_; }
  const Mmu& mmu() const { return mmu_; }
  PortBus& ports() { return ports_; }

  // ---- mode ----
  bool protected_mode() const { return (state.cr0 & cr0::PE) && !(state.eflags & flag::VM); }
  bool virtual_8086() const { return (state.cr0 & cr0::PE) && (state.eflags & flag::VM); }
  bool real_mode() const { return !(state.cr0 & cr0::PE); }
  bool user() const { return state.cpl == 3; }
  u8 iopl() const { return static_cast<u8>((state.eflags >> 12) & 3); }
  bool stack32() const { return state.segments[SS].cache.db; }

  // ---- registers by width: u8 numbers AL CL DL BL AH CH DH BH ----
  template <class T>
  T reg(unsigned n) const {
    if constexpr (sizeof(T) == 1) return static_cast<u8>(n < 4 ? state.gpr[n] : state.gpr[n - 4] >> 8);
    else return static_cast<T>(state.gpr[n]);
  }
  template <class T>
  void set_reg(unsigned n, T value) {
    if constexpr (sizeof(T) == 1) {
      if (n < 4) state.gpr[n] = (state.gpr[n] & 0xFFFFFF00u) | value;
      else state.gpr[n - 4] = (state.gpr[n - 4] & 0xFFFF00FFu) | (u32{value} << 8);
    } else if constexpr (sizeof(T) == 2) {
      state.gpr[n] = (state.gpr[n] & 0xFFFF0000u) | value;
    } else {
      state.gpr[n] = value;
    }
  }

  // ---- flags ----
  bool flag_set(u32 mask) const { return (state.eflags & mask) != 0; }
  // Replaces the flags in `mask` with those in `values`.
  void set_flags(u32 values, u32 mask) { state.eflags = (state.eflags & ~mask) | (values & mask); }
  // Writes EFLAGS as POPF/IRET/task switch may: only the bits in `writable` change;
  // reserved bits keep their fixed values.
  void write_eflags(u32 value, u32 writable);
  // The condition of Jcc/SETcc/CMOVcc by its 4-bit code (SDM Vol. 1 Appendix B
  // "EFLAGS Condition Codes"), with kConditionMasks.
  bool condition(unsigned code) const {
    const u32 f = state.eflags;
    const u32 with_sf_not_of = f | (((f << 8) ^ (f << 4)) & kSfNotOf);  // SF (bit 7) and OF (bit 11) to bit 15
    return ((with_sf_not_of & kConditionMasks[code >> 1]) != 0) != bool(code & 1);
  }

  // ---- memory through a segment (defined in cpu/memory_access.h) ----
  // Offsets are already reduced to the address size. Raise #GP(0)/#SS(0) from the
  // descriptor cache checks and #PF from paging.
  // The common case (direct_data) is inline and makes no call; every other goes to
  // read_checked/write_checked, which raise the faults.
  template <class T>
  [[gnu::always_inline]] T read(u8 segment, u32 offset, AccessKind kind = AccessKind::Data);
  template <class T>
  [[gnu::always_inline]] void write(u8 segment, u32 offset, T value, AccessKind kind = AccessKind::Data);
  template <class T>
  [[gnu::noinline]] T read_checked(u8 segment, u32 offset, AccessKind kind);
  template <class T>
  [[gnu::noinline]] void write_checked(u8 segment, u32 offset, T value, AccessKind kind);
  // read() and write() for executors, without C++ unwinding: a fault found by the
  // segment checks or by paging is handed to signal_fault and the access returns false
  // (nothing read, nothing written), and the executor then returns at once. Faults
  // that are rare here (#AC, from check_access) are still thrown. The fast path is
  // that of read() and write(); the false return costs a test only after the call.
  template <class T>
  [[nodiscard, gnu::always_inline]] bool try_read(u8 segment, u32 offset, T& value, AccessKind kind = AccessKind::Data);
  template <class T>
  [[nodiscard, gnu::always_inline]] bool try_write(u8 segment, u32 offset, T value, AccessKind kind = AccessKind::Data);
  // try_read returning the value, 0 after a signalled fault (fault_signalled() tells).
  template <class T>
  [[nodiscard, gnu::always_inline]] T read_or_signal(u8 segment, u32 offset, AccessKind kind = AccessKind::Data);
  template <class T>
  [[gnu::noinline]] T read_or_signal_checked(u8 segment, u32 offset, AccessKind kind);
  template <class T>
  [[gnu::noinline]] bool try_read_checked(u8 segment, u32 offset, T& value, AccessKind kind);
  template <class T>
  [[gnu::noinline]] bool try_write_checked(u8 segment, u32 offset, T value, AccessKind kind);
  // The host address of an access of `size` bytes at `segment`:`offset` when it needs
  // no check beyond these and no fault is possible: a usable segment whose type allows
  // the access (required in every mode here, a superset of the protected-mode rule),
  // the offset range inside the valid one, no data breakpoint armed and no alignment
  // check possible (CR0.AM alone, as Linux sets it, does not count: EFLAGS.AC at CPL 3
  // is needed too), and the Mmu's direct_pointer. Counts the access as read()/write()
  // would; null otherwise.
  template <AccessIntent kIntent>
  [[gnu::always_inline]] u8* direct_data(u8 segment, u32 offset, unsigned size, AccessKind kind);
  // Observes every data access through `segment` (ES..GS) with `observer` (null: none).
  // While one is set, accesses through that register take the checked path; the others
  // and the run without an observer are unchanged.
  void observe_segment(u8 segment, SegmentAccessObserver* observer) {
    segment_observer_ = observer;
    observed_segment_ = observer ? segment : kNoObservedSegment;
    update_access_checks();
  }
  // The length in bytes of the executing instruction (for an observer: EIP has moved past it).
  u8 executing_length() const { return static_cast<u8>(state.eip - instruction_eip_); }
  // Checks a write without performing it (for instructions that must fault before
  // any state changes, such as PUSHA and far CALL).
  void check_write(u8 segment, u32 offset, unsigned size);
  // A locked read-modify-write through a segment (LOCK prefix, XCHG with memory).
  template <class T, class Modify>
  T locked_rmw(u8 segment, u32 offset, AccessKind kind, Modify modify);

  // ---- stack (push, pop and peek_stack defined in cpu/memory_access.h) ----
  // The stack pointer register as the stack's address size sees it.
  u32 stack_pointer() const { return stack32() ? state.gpr[ESP] : state.gpr[ESP] & 0xFFFF; }
  // ESP after adding `delta` bytes, keeping the upper half for a 16-bit stack.
  u32 stack_pointer_plus(u32 delta) const {
    const u32 esp = state.gpr[ESP];
    return stack32() ? esp + delta : (esp & 0xFFFF0000u) | ((esp + delta) & 0xFFFF);
  }
  template <class T>
  void push(T value);
  template <class T>
  T pop();
  // Reads T at `depth` bytes above the stack pointer without popping.
  template <class T>
  T peek_stack(u32 depth);

  // ---- effective addresses and operands ----
  u32 effective_address(const Instruction& insn) const {
    u32 ea = insn.displacement;
    if (insn.base != kNoRegister) ea += state.gpr[insn.base];
    if (insn.index != kNoRegister) ea += state.gpr[insn.index] << insn.scale;
    return insn.address_size_32 ? ea : ea & 0xFFFF;
  }

  // ---- segment loads (every path that writes a descriptor cache goes here) ----
  SegmentationContext segmentation_context(SegmentLoadCause cause = SegmentLoadCause::Instruction) {
    SegmentationContext context{mmu_, counters_, clock_, state.gdtr, state.ldtr, state.cpl, profile_.accessed_bit_always_written,
            state.segments.data()};
    context.cause = cause;
    return context;
  }
  // MOV/POP/LxS to a data or stack segment register in the current mode.
  void load_segment(u8 segment, u16 selector);
  // Far JMP/CALL target or IRET/RET return CS: real and V86 mode load base = selector*16.
  void load_code_segment_real(u16 selector);

  // ---- control registers ----
  void write_cr0(u32 value);
  void write_cr3(u32 value);
  void write_cr4(u32 value);
  void sync_paging();
  // Emits a ControlRegister trace event while tracing: `which` is 0-4 for CRn, 8 GDTR
  // (base), 9 IDTR (base), 10 LDTR and 11 TR (selectors).
  void trace_control(u8 which, u32 old_value, u32 new_value) {
    emit(tracer(), events::ControlRegister{.which = which, .old_value = old_value, .new_value = new_value});
  }

  // ---- events ----
  // Delivers an exception, interrupt or INT n through the IVT (real mode) or IDT.
  // `return_eip` is the EIP pushed (the faulting instruction for faults, the next
  // one for traps and INT n).
  void deliver(u8 vector, std::optional<u32> error_code, EventSource source, u32 return_eip);
  // Delivers a fault raised by the current instruction, escalating to #DF and
  // shutdown by the SDM's class table.
  void deliver_fault(const Fault& fault);
  // Raises `fault` from an executor's own check without C++ unwinding: the executor
  // returns at once after the call, and the instruction cycle then restores the instruction-start
  // state and delivers the fault exactly as it does a thrown Fault (same state, counters
  // and trace). For the faults trap-and-emulate guests take on every iteration (#GP from
  // IN/OUT, CLI/STI, HLT and privileged instructions at CPL > 0, and the #GP, #SS and
  // #PF of executors' data accesses through try_read/try_write and the operand helpers):
  // a throw costs about 20,000 host instructions (docs/performance.md). Faults of
  // descriptor loads, far transfers, task switches and deliveries are thrown.
  void signal_fault(const Fault& fault) {
    signalled_fault_ = fault;
    attention_.raise(Attention::kFaultSignalled);
  }
  // Whether signal_fault was called in the current instruction (for executors whose
  // helpers return no status, such as a repeated string instruction's batch).
  bool fault_signalled() const { return signalled_fault_.has_value(); }
  // Ends a linked run after the current instruction (docs/performance.md): for state
  // the linked run does not test after every instruction, which the slow step then
  // looks at (HLT and the x87 wait for FERR#, armed code breakpoints, a signalled
  // fault, a data breakpoint hit, a replayed instruction's start).
  void request_slow_step() { attention_.raise(Attention::kSlowStep); }
  // HLT and the x87 wait for FERR#: the CPU stops executing until an interrupt it
  // can take or an NMI (the run loops look at `halted` after the step).
  void halt() {
    state.halted = true;
    request_slow_step();
  }
  // The instruction after this one cannot be interrupted (STI, SDM "STI"), and after a
  // load of SS (`mov_ss`: MOV SS, POP SS, SDM "MOV") takes no debug trap either. The
  // linked run clears no shadow, so this asks for the slow step, which starts the next
  // instruction by clearing it.
  void start_interrupt_shadow(bool mov_ss) {
    state.interrupt_shadow = true;
    if (mov_ss) state.mov_ss_shadow = true;
    attention_.raise(Attention::kInterruptShadow);
  }

  // The EIP of the instruction being executed and its length.
  u32 instruction_eip() const { return instruction_eip_; }
  // A repeated string instruction ends its step with iterations left (`unfinished`:
  // EIP points back at it) or done. Unfinished, the event taken before it resumes
  // pushes RF = 1 (SDM Vol. 3, "Debug Exceptions": RF in the EFLAGS image of an
  // interrupt or trap taken between iterations of a repeated string instruction).
  void end_string_step(bool unfinished) {
    if (unfinished) state.eip = instruction_eip_;
    push_rf_ = unfinished;
  }

  // The NMI pin: the NMI is taken at the next instruction boundary outside an
  // interrupt shadow, and further NMIs are blocked until an IRET (SDM "Nonmaskable
  // Interrupt (NMI)"). Wakes a halted CPU.
  void raise_nmi();

  // The faults of the last exception delivery, first to last (at most 8): after a
  // shutdown, the chain that ended in the triple fault.
  struct FaultRecord {
    u8 vector = 0;
    std::optional<u32> error_code;
    std::string_view cause;
  };
  std::span<const FaultRecord> fault_chain() const { return {fault_chain_.data(), fault_chain_size_}; }

  // ---- tasks (cpu/task_switch.cpp) ----
  // Why a task switch happens; the numbers are the TaskSwitch trace event's `detail`.
  enum class TaskSwitchReason : u8 { Jmp = 0, Call = 1, Iret = 2, Interrupt = 3 };
  // Switches to the task whose TSS descriptor (already checked for type, busy state
  // and presence by the caller) is `tss`: saves the current task at `return_eip`,
  // handles Busy bits (locked, AccessKind::TssBusyBit), NT and the back link, loads TR,
  // CR3 (with paging), LDTR, EFLAGS, EIP, the registers and the segments, with #TS,
  // #NP and #SS raised in the new task's context after the commit point
  // (SDM "Task Switching", Table 7-1).
  void switch_task(Selector selector, const DescriptorSlot& tss, TaskSwitchReason reason, u32 return_eip);
  // #GP(0) in the new task when its EIP is outside its CS limit.
  void check_task_entry_eip();
  // SS:ESP for ring `new_cpl` from the TSS, checked (#TS, #SS with the selector), with
  // room for `frame_items` words (16-bit) or dwords below ESP; sets CPL (SDM "Stack
  // Switching").
  void switch_to_inner_stack(SegmentationContext& context, u8 new_cpl, bool frame32, unsigned frame_items);

  // ---- debug registers and alignment checks (cpu/debug_registers.cpp) ----
  // MOV to DRn after the general-detect check: fixed bits applied, breakpoints re-armed.
  void write_debug_register(unsigned n, u32 value);
  // #DB fault with DR6.BD when DR7.GD is set (SDM "Debug Control Register (DR7)").
  void check_debug_register_access();
  // Re-evaluates whether data accesses need the #AC and data-breakpoint checks (after
  // CR0.AM or DR7 change).
  void update_access_checks();

  // ---- for runners (cpu/instruction_cycle.h, cpu/linked_runner.h) ----
  // The attention word: every reason to leave the linked run (mmu/attention.h).
  Attention& attention() { return attention_; }
  const Attention& attention() const { return attention_; }
  FetchUnit& fetch_unit() { return fetch_; }
  // The code footprint's observer (Counters::code_lines_*, the code range; cpu/code_lines.h).
  CodeFootprint& code_footprint() { return footprint_; }
  // Counters::replayed_instructions' observer (cpu/replay_watch.h).
  ReplayWatch& replay_watch() { return replay_; }
  // The profile's L1 caches (trace/cache_model.h).
  CacheObserver& caches() { return caches_; }
  StepMonitor* step_monitor() const { return monitor_; }
  InterruptController* interrupt_controller() const { return pic_; }
  // The cycle limit of set_cycle_limit in 1/256 cycles (ModeledClock::subcycles).
  u64 subcycle_limit() const { return subcycle_limit_; }
  // Adds `n` to steps().
  void count_steps(u64 n) { steps_ += n; }
  // The instruction at CS:EIP starts (instruction_eip()).
  void begin_instruction() { instruction_eip_ = state.eip; }
  // Before each instruction: tells the replay watch of the starts that can change it
  // (at the faulting CPL, and at its CS:EIP when the handler ran at that CPL too); a
  // replay's start asks for the slow step, whose retirement counts it.
  void watch_replay_start() {
    if (!replay_.pending()) [[likely]] return;
    const SegmentRegister& cs = state.segments[CS];
    const u32 linear = cs.cache.base + state.eip;
    if (!replay_.may_act_at(state.cpl, linear)) return;
    // The linked run retires a replay's start in its attention branch (LinkedRunner::run_linked).
    if (replay_.instruction_starts(state.cpl, cs.selector, linear)) request_slow_step();
  }
  // Instruction::cost of a decoded instruction under the installed cost model, in 1/256 cycles.
  u32 instruction_cost(const Instruction& insn) const;
  // An instruction that may load CS or change CPL ran (Attention::kCodeSegmentLoaded):
  // the fetch context a linked run assumes may be gone.
  void note_code_segment_load() { attention_.raise(Attention::kCodeSegmentLoaded); }
  // Something only the slow step handles before the next instruction: the attention
  // word (interrupt check, trap, NMI, stop request, monitor), an armed code
  // breakpoint, TF or RF, HLT or shutdown (the linked run checks it after each instruction).
  bool needs_slow_step() const {
    return attention_.any() | code_breakpoints_ | state.halted | state.shutdown | (state.eflags & (flag::RF | flag::TF));
  }
  // Between instructions (between_instructions.cpp): debug traps, NMI, INTR. True
  // when an event was delivered (it takes the place of an instruction).
  bool service_events();
  // Whether an execute breakpoint is enabled in DR7, and its check at CS:EIP (#DB
  // fault on a hit; SDM "Instruction-Breakpoint Exception Condition").
  bool code_breakpoints_armed() const { return code_breakpoints_ != 0; }
  void check_code_breakpoint();
  // Whether a data breakpoint was hit by the current instruction, and the #DB traps of
  // a retired instruction (single step, data breakpoints) noted for the next boundary.
  bool data_breakpoint_hit() const { return instruction_debug_hits_ != 0; }
  void note_debug_traps(bool single_step);
  // The fault signal_fault raised in the current instruction (fault_signalled() must
  // be true), cleared.
  Fault take_signalled_fault() {
    const Fault fault = *signalled_fault_;
    signalled_fault_.reset();
    return fault;
  }
  // The instruction-start state after a fault of the current instruction: EIP and
  // ESP (`start_esp`) restored, unless a task switch committed (the fault is then the
  // new task's); its data breakpoint hits dropped (a faulting instruction reports none).
  void restore_instruction_start(u32 start_esp) {
    instruction_debug_hits_ = 0;
    if (task_switch_committed_) {
      task_switch_committed_ = false;
    } else {
      state.eip = instruction_eip_;
      state.gpr[ESP] = start_esp;
    }
  }

 private:
  static constexpr u32 kDr6Bs = 1u << 14, kDr6Bt = 1u << 15;
  static constexpr std::string_view kInstructionBreakpointCause = "instruction breakpoint";
  // Delivers an event, escalating faults during its delivery to #DF and shutdown.
  void deliver_event(u8 vector, std::optional<u32> error_code, EventSource source);
  void deliver_through_task_gate(const Descriptor& gate, std::optional<u32> error_code, u32 return_eip);
  void record_fault(u8 vector, std::optional<u32> error_code, std::string_view cause);
  void shutdown();
  void check_access(u32 linear, unsigned size, bool is_write);
  StopReason run_instructions(u64 max_instructions);  // run() without settling the statistics
  // signal_fault for a failed try_read/try_write; returns false (the access's result).
  [[gnu::cold]] bool signal_access_fault(const Fault& fault);
  // A SegmentLoad event for a real-mode or virtual-8086 load (no descriptor).
  void trace_descriptorless_load(u8 segment) {
    const SegmentRegister& reg = state.segments[segment];
    emit(tracer(), events::SegmentLoad{.reg = segment, .selector = reg.selector, .base = reg.cache.base,
                                       .limit = reg.cache.limit, .no_descriptor = true});
  }
  bool try_deliver_interrupt();
  void deliver_real_mode(u8 vector, u32 return_eip);
  void deliver_protected_mode(u8 vector, std::optional<u32> error_code, EventSource source, u32 return_eip);

  Mmu& mmu_;
  PortBus& ports_;
  Counters& counters_;
  ModeledClock clock_;
  const CpuProfile& profile_;
  InterruptController* pic_ = nullptr;
  ApicBaseRegister* apic_base_ = nullptr;
  StepMonitor* monitor_ = nullptr;
  X87ErrorPins x87_error_pins_;
  Attention attention_;  // every reason to leave the linked run (mmu/attention.h)
  u64 subcycle_limit_ = ~u64{0};
  u64 steps_ = 0;
  u32 instruction_eip_ = 0;
  std::string_view delivery_cause_;   // the failed check of the fault being delivered (for traces)
  std::vector<u32> row_costs_;        // cost of each InstructionTable row, in 1/256 cycles
  std::vector<bool> row_uncosted_;    // rows whose mnemonic the cost model has no cost for
  CostWindowRecorder cost_windows_;  // enable_cost_windows
  void close_cost_window();
  // The profile's L1 caches (trace/cache_model.h), observing fetches here and data
  // accesses at the bus, which keeps its address while the model is on (the Cpu
  // is neither copied nor moved: the address stays valid until ~Cpu detaches it).
  CacheObserver caches_{counters_, clock_};
  FetchUnit fetch_;  // fetch and the decode cache (cpu/fetch_unit.h)
  bool decode_cache_on_ = true;  // set_decode_cache
  // The code footprint's observer (Counters::code_lines_*, the code range), with its
  // side table beside the decode cache's slots (cpu/code_lines.h).
  CodeFootprint footprint_{counters_, clock_, DecodeCache::kEntries};
  std::optional<Fault> signalled_fault_;  // raised by signal_fault, delivered by the instruction cycle
  std::unique_ptr<LinkedRunner> runner_;  // the accelerator (cpu/linked_runner.h): its links, fetch contexts, code page
  u32 pending_debug_ = 0;             // DR6 bits of #DB traps waiting for the next instruction boundary
  u32 instruction_debug_hits_ = 0;    // data breakpoints hit by the current instruction (B0-B3)
  u8 code_breakpoints_ = 0;           // enabled execute breakpoints, bit n = DRn
  u8 data_breakpoints_ = 0;           // enabled data (write, read/write) breakpoints
  bool access_checks_ = false;        // data accesses need check_access (#AC, data breakpoints, an observer)
  static constexpr u8 kNoObservedSegment = 0xFF;
  u8 observed_segment_ = kNoObservedSegment;    // observe_segment
  SegmentAccessObserver* segment_observer_ = nullptr;
  void observe(u8 segment, u32 offset, unsigned size, bool write) const {
    if (segment == observed_segment_) segment_observer_->segment_access(*this, offset, size, write);
  }
  bool task_switch_committed_ = false;  // a fault now belongs to the new task: keep its state
  // The next event delivered pushes RF = 1: a fault, or an event between iterations of a
  // repeated string instruction (end_string_step); cleared by a delivery.
  bool push_rf_ = false;
  std::array<FaultRecord, 8> fault_chain_{};
  // Counters::replayed_instructions' observer (cpu/replay_watch.h), dormant unless attached.
  ReplayWatch replay_;
  u8 fault_chain_size_ = 0;
};

// Reads operand `n` of `insn` (register, memory, immediate; Ib sign-extends to T) into
// `value`. These three return false when a memory operand faulted (the fault is
// signalled, cpu/operands.h): the executor returns at once.
// kResolved: see cpu/operands.h (dispatch_resolved).
template <class T, bool kResolved = false>
[[nodiscard]] bool read_operand(Cpu& cpu, const Instruction& insn, unsigned n, T& value);
// Writes operand `n` (register or memory).
template <class T, bool kResolved = false>
[[nodiscard]] bool write_operand(Cpu& cpu, const Instruction& insn, unsigned n, T value);
// Read-modify-write of operand `n` with `modify(old) -> new`; a memory operand with
// the LOCK prefix is one locked bus operation (AccessKind::LockPrefix).
template <class T, bool kResolved = false, class Modify>
[[nodiscard]] bool modify_operand(Cpu& cpu, const Instruction& insn, unsigned n, Modify modify);

}  // namespace x86lab

#include "cpu/memory_access.h"
#include "cpu/operands.h"
