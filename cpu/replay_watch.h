// The replay watch: an observer of fault deliveries and instruction starts that counts
// Counters::replayed_instructions, the instructions a fault handler made execute a
// second time (returning to the faulting CS:EIP, as a #PF handler that maps the page
// does). The CPU owns one, dormant until attached (Cpu::watch_replays: the scenario
// runner, which compares the count, and `x86lab run`, whose counters --stats and
// snapshots report); detached, a delivered fault never arms it and nothing looks at it.
//
// The first instruction that starts at the faulting CPL after a handler that ran at
// another CPL decides: the same CS selector and linear EIP is a replay (counted when it
// retires), anything else means the handler moved on. A handler at the faulting CPL
// cannot be told from the interrupted code, so then only a start at the same CS:EIP
// ends the watch.
#pragma once
#include "trace/state_archive.h"
#include "trace/types.h"

namespace x86lab {

class ReplayWatch {
 public:
  // Counts from now on (a reset keeps it attached).
  void attach() { attached_ = true; }
  bool attached() const { return attached_; }

  // A fault raised at CPL `cpl` by the instruction at `cs`:`linear_eip` is delivered.
  void fault_delivered(u8 cpl, u16 cs, u32 linear_eip) {
    if (attached_) watch_ = {true, false, cpl, 0, cs, linear_eip};
  }
  // Its handler's first instruction runs at `cpl` (after the delivery).
  void handler_entered(u8 cpl) {
    if (attached_) watch_.handler_cpl = cpl;
  }

  // A delivered fault has not been resolved: instruction starts matter.
  bool pending() const { return watch_.pending; }
  u8 faulting_cpl() const { return watch_.cpl; }
  // Before an instruction at CPL `cpl`, CS `cs`, linear EIP `linear_eip` (while
  // pending()). True when it is a replay's start: its retirement counts (take_replay).
  bool instruction_starts(u8 cpl, u16 cs, u32 linear_eip) {
    if (cpl != watch_.cpl) return false;
    const bool same = cs == watch_.cs && linear_eip == watch_.linear_eip;
    if (!same && watch_.handler_cpl == watch_.cpl) return false;
    watch_.pending = false;
    watch_.candidate = same;
    return same;
  }
  // Whether an instruction start at `cpl` and `linear_eip` can change anything
  // (instruction_starts does nothing otherwise): the cheap test before it.
  bool may_act_at(u8 cpl, u32 linear_eip) const {
    return watch_.pending && cpl == watch_.cpl &&
           (watch_.handler_cpl != watch_.cpl || linear_eip == watch_.linear_eip);
  }
  // The one CS offset at which an instruction start can act while CS (base `cs_base`)
  // and the CPL stay the same and nothing else changes the watch (the accelerator's
  // linked run at the faulting CPL): after a handler at the faulting CPL, the faulting
  // instruction's; after one at another CPL, `first_eip`, the first instruction's.
  u32 only_eip(u32 cs_base, u32 first_eip) const {
    return watch_.handler_cpl == watch_.cpl ? watch_.linear_eip - cs_base : first_eip;
  }
  // At a retirement: true (once) when the retiring instruction was a replay's start.
  bool take_replay() {
    if (!watch_.candidate) [[likely]] return false;
    watch_.candidate = false;
    return true;
  }
  bool candidate() const { return watch_.candidate; }

  // Between runs the watch is CPU state of a snapshot (the fields in this order; a
  // detached watch saves its idle values).
  void transfer_state(StateArchive& a) {
    a.field(watch_.pending, "replay watch");
    a.field(watch_.candidate, "replay watch");
    a.field(watch_.cpl, "replay watch CPL", 3);
    a.field(watch_.handler_cpl, "replay watch CPL", 3);
    a.field(watch_.cs, "replay watch CS");
    a.field(watch_.linear_eip, "replay watch EIP");
  }
  // Forgets a fault being watched (reset).
  void clear() { watch_ = {}; }

 private:
  struct Watch {
    bool pending = false;    // a fault was delivered; its instruction has not restarted yet
    bool candidate = false;  // the current instruction starts where that fault was raised
    u8 cpl = 0, handler_cpl = 0;
    u16 cs = 0;
    u32 linear_eip = 0;
  } watch_;
  bool attached_ = false;
};

}  // namespace x86lab
