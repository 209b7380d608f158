// The CPU core: run loop with one attention word, instruction fetch, memory and stack
// access through the descriptor caches and the MMU, and fault delivery (DESIGN.md
// sections 2-4). Executors (cpu/exec_*.cpp) use the helpers here and never catch
// faults: a Fault thrown anywhere in an instruction restores the instruction-start
// EIP and ESP and is delivered by the run loop.
#pragma once
#include "cpu/cpu_profile.h"
#include "cpu/cpu_state.h"
#include "cpu/flags.h"
#include "cpu/instruction.h"
#include "mmu/paging.h"
#include "mmu/port_bus.h"
#include "segmentation/segment_loading.h"

namespace x86lab {

// The CPU's INTR line: the platform's interrupt controller (8259A pair) implements it.
class InterruptController {
 public:
  virtual ~InterruptController() = default;
  virtual bool interrupt_pending() const = 0;
  // The INTA cycle: returns the vector and updates the controller's state.
  virtual u8 acknowledge() = 0;
};

// Why run() returned.
enum class StopReason : u8 { InstructionLimit, Halted, Shutdown, StopRequested };

// What kind of event is delivered through the IDT/IVT, which decides the error code's
// EXT bit, the gate DPL check and which EIP is pushed.
enum class EventSource : u8 { Exception, SoftwareInterrupt, External, Nmi };

class Cpu {
 public:
  Cpu(Mmu& mmu, PortBus& ports, Counters& counters, const CpuProfile& profile);

  CpuState state;

  // Reset state (Intel SDM Vol. 3, "Processor State After Reset"): CS F000h with base
  // FFFF0000h, EIP FFF0h, EDX = the profile's signature, CR0 = 60000010h.
  void reset();

  // Executes up to `max_instructions` instructions (delivering interrupts between
  // them) or until the CPU halts, shuts down or stop() is called.
  StopReason run(u64 max_instructions);
  // Executes one instruction, or delivers one pending interrupt, or does nothing when halted.
  void step();
  void stop() { attention_ |= kStopRequested; }
  void set_interrupt_controller(InterruptController* pic) { pic_ = pic; }
  // Re-evaluates whether an interrupt could be pending (devices call it when an IRQ line changes).
  void notify_interrupt() { attention_ |= kCheckInterrupt; }

  const CpuProfile& profile() const { return profile_; }
  Counters& counters() { return counters_; }
  Mmu& mmu() { return mmu_; }
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
  // The condition of Jcc/SETcc/CMOVcc by its 4-bit code (SDM "Condition Codes").
  bool condition(unsigned code) const;

  // ---- memory through a segment ----
  // Offsets are already reduced to the address size. Raise #GP(0)/#SS(0) from the
  // descriptor cache checks and #PF from paging.
  template <class T>
  T read(u8 segment, u32 offset, AccessKind kind = AccessKind::Data) {
    const u32 linear = checked_linear(state.segments[segment], offset, sizeof(T), false,
                                      segment == SS, protected_mode());
    return mmu_.read<T>(linear, kind, user());
  }
  template <class T>
  void write(u8 segment, u32 offset, T value, AccessKind kind = AccessKind::Data) {
    const u32 linear = checked_linear(state.segments[segment], offset, sizeof(T), true,
                                      segment == SS, protected_mode());
    mmu_.write<T>(linear, value, kind, user());
  }
  // Checks a write without performing it (for instructions that must fault before
  // any state changes, such as PUSHA and far CALL).
  void check_write(u8 segment, u32 offset, unsigned size) {
    const u32 linear = checked_linear(state.segments[segment], offset, size, true, segment == SS, protected_mode());
    mmu_.translate(linear, AccessIntent::Write, user());
    if ((linear & 0xFFF) + size > 0x1000) mmu_.translate((linear | 0xFFF) + 1, AccessIntent::Write, user());
  }
  // A locked read-modify-write through a segment (LOCK prefix, XCHG with memory).
  template <class T, class Modify>
  T locked_rmw(u8 segment, u32 offset, AccessKind kind, Modify modify) {
    const u32 linear = checked_linear(state.segments[segment], offset, sizeof(T), true,
                                      segment == SS, protected_mode());
    return mmu_.locked_rmw<T>(linear, kind, user(), modify);
  }

  // ---- stack ----
  // The stack pointer register as the stack's address size sees it.
  u32 stack_pointer() const { return stack32() ? state.gpr[ESP] : state.gpr[ESP] & 0xFFFF; }
  // ESP after adding `delta` bytes, keeping the upper half for a 16-bit stack.
  u32 stack_pointer_plus(u32 delta) const {
    const u32 esp = state.gpr[ESP];
    return stack32() ? esp + delta : (esp & 0xFFFF0000u) | ((esp + delta) & 0xFFFF);
  }
  template <class T>
  void push(T value) {
    const u32 new_esp = stack_pointer_plus(static_cast<u32>(-static_cast<i32>(sizeof(T))));
    write<T>(SS, stack32() ? new_esp : new_esp & 0xFFFF, value, AccessKind::Stack);
    state.gpr[ESP] = new_esp;
  }
  template <class T>
  T pop() {
    const T value = read<T>(SS, stack_pointer(), AccessKind::Stack);
    state.gpr[ESP] = stack_pointer_plus(sizeof(T));
    return value;
  }
  // Reads T at `depth` bytes above the stack pointer without popping.
  template <class T>
  T peek_stack(u32 depth) {
    const u32 offset = stack32() ? state.gpr[ESP] + depth : (state.gpr[ESP] + depth) & 0xFFFF;
    return read<T>(SS, offset, AccessKind::Stack);
  }

  // ---- effective addresses and operands ----
  u32 effective_address(const Instruction& insn) const {
    u32 ea = insn.displacement;
    if (insn.base != kNoRegister) ea += state.gpr[insn.base];
    if (insn.index != kNoRegister) ea += state.gpr[insn.index] << insn.scale;
    return insn.address_size_32 ? ea : ea & 0xFFFF;
  }

  // ---- segment loads (every path that writes a descriptor cache goes here) ----
  SegmentationContext segmentation_context() {
    return {mmu_, counters_, state.gdtr, state.ldtr, state.cpl, profile_.accessed_bit_always_written};
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

  // ---- events ----
  // Delivers an exception, interrupt or INT n through the IVT (real mode) or IDT.
  // `return_eip` is the EIP pushed (the faulting instruction for faults, the next
  // one for traps and INT n).
  void deliver(u8 vector, std::optional<u32> error_code, EventSource source, u32 return_eip);
  // Delivers a fault raised by the current instruction, escalating to #DF and
  // shutdown by the SDM's class table.
  void deliver_fault(const Fault& fault);

  // The EIP of the instruction being executed and its length.
  u32 instruction_eip() const { return instruction_eip_; }

 private:
  enum : u32 { kStopRequested = 1u << 0, kCheckInterrupt = 1u << 1, kTrap = 1u << 2 };
  void execute_one();
  bool try_deliver_interrupt();
  void deliver_real_mode(u8 vector, u32 return_eip);
  void deliver_protected_mode(u8 vector, std::optional<u32> error_code, EventSource source, u32 return_eip);

  Mmu& mmu_;
  PortBus& ports_;
  Counters& counters_;
  const CpuProfile& profile_;
  InterruptController* pic_ = nullptr;
  u32 attention_ = 0;
  u32 instruction_eip_ = 0;
  int delivery_depth_ = 0;            // >0 while delivering an exception (for #DF)
  u8 delivering_vector_ = 0;
};

// Reads operand `n` of `insn` (register, memory, immediate; Ib sign-extends to T).
template <class T>
T read_operand(Cpu& cpu, const Instruction& insn, unsigned n);
// Writes operand `n` (register or memory).
template <class T>
void write_operand(Cpu& cpu, const Instruction& insn, unsigned n, T value);
// Read-modify-write of operand `n` with `modify(old) -> new`; a memory operand with
// the LOCK prefix is one locked bus operation (AccessKind::LockPrefix).
template <class T, class Modify>
void modify_operand(Cpu& cpu, const Instruction& insn, unsigned n, Modify modify);

}  // namespace x86lab

#include "cpu/operands.h"
