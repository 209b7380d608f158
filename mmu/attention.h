// The CPU's attention word: every reason to leave its fast loop (the linked run) and
// look at something between instructions, as named bits (docs/performance.md). The
// CPU owns one; the TLB and the decode cache are handed it to raise their own bit
// (a changed translation, a written code page), devices raise the interrupt check
// through the CPU, and a signal handler the signal stop. The fast loop tests all of
// them with one compare (any()); the slow step clears what it has handled.
//
// It lives in mmu/ because the TLB, the lowest layer that raises a bit, needs it.
#pragma once
#include <atomic>
#include <cstring>

#include "trace/types.h"

namespace x86lab {

class Attention {
 public:
  // Bits of the word. Those of the first group are taken by the slow step in order
  // (between_instructions.cpp); the second group only asks for the slow step, which
  // tests everything itself and clears them (kSlowStepRequests).
  enum Bit : u32 {
    kStopRequested = 1u << 0,   // Cpu::stop(): run() returns before the next step
    kCheckInterrupt = 1u << 1,  // INTR may be pending (the PIC's output or IF changed)
    kTrap = 1u << 2,            // EFLAGS.TF may have been set
    kDebugTrap = 1u << 3,       // a #DB trap waits for the next instruction boundary
    kNmi = 1u << 4,             // the NMI pin was raised
    kMonitor = 1u << 5,         // a step monitor (debugger) looks at every step
    // Requests for the slow step:
    kSlowStep = 1u << 6,             // HLT, the x87 wait, breakpoints armed or hit
    kTranslationChanged = 1u << 7,   // the TLB's translation epoch changed (Tlb::note_change)
    kCodePageWritten = 1u << 8,      // decoded instructions were retired (DecodeCache)
    kCodeSegmentLoaded = 1u << 9,    // an instruction that may load CS or change CPL ran
    kInterruptShadow = 1u << 10,     // STI, MOV SS, POP SS started an interrupt shadow
    kFaultSignalled = 1u << 11,      // Cpu::signal_fault: a fault waits for delivery
    kReplayStart = 1u << 12,         // a fault's instruction restarts (the replay count)
  };
  static constexpr u32 kSlowStepRequests = kSlowStep | kTranslationChanged | kCodePageWritten |
                                           kCodeSegmentLoaded | kInterruptShadow | kFaultSignalled | kReplayStart;

  void raise(u32 bits) { parts_[0] |= bits; }
  void clear(u32 bits) { parts_[0] &= ~bits; }
  bool has(u32 bits) const { return (parts_[0] & bits) != 0; }
  // The word's bits (the signal stop is apart: signalled()).
  u32 bits() const { return parts_[0]; }
  // Whether any bit is set, the signal stop included: one 64-bit compare.
  bool any() const {
    u64 both;
    std::memcpy(&both, parts_, sizeof both);
    return both != 0;
  }

  // The signal stop: async-signal-safe (one relaxed atomic store into a word nothing
  // else writes while the CPU runs, so no read-modify-write of the main word can lose
  // it). It stays set until clear_signal().
  void raise_from_signal() { std::atomic_ref<u32>(parts_[1]).store(1, std::memory_order_relaxed); }
  bool signalled() const {
    return std::atomic_ref<u32>(const_cast<u32&>(parts_[1])).load(std::memory_order_relaxed) != 0;
  }
  void clear_signal() { std::atomic_ref<u32>(parts_[1]).store(0, std::memory_order_relaxed); }

 private:
  // [0]: the bits above, written by the CPU, the TLB and the decode cache; [1]: the
  // signal stop, written only by raise_from_signal and clear_signal.
  alignas(8) u32 parts_[2] = {0, 0};
};

}  // namespace x86lab
