// Events taken between instructions, in the SDM's priority order (Intel SDM Vol. 3,
// "Priority Among Concurrent Exceptions and Interrupts"): traps of the previous
// instruction (#DB for single-step, data breakpoints and the TSS T bit), then NMI,
// then maskable interrupts; with the interrupt shadow after MOV SS, POP SS and STI
// ("Masking Exceptions and Interrupts When Switching Stacks", "STI").
#include "cpu/cpu.h"

namespace x86lab {

void Cpu::raise_nmi() {
  state.nmi_pending = true;
  attention_.raise(Attention::kNmi);
}

bool Cpu::service_events() {
  attention_.clear(Attention::kTrap | Attention::kSlowStepRequests);  // TF is sampled at the start of each instruction (cpu.cpp)
  // Debug traps wait out a MOV SS/POP SS shadow: they are reported after the next
  // instruction together with its own (SDM "MOV": "...suppresses or inhibits some
  // debug exceptions ... on the following instruction boundary").
  if (attention_.has(Attention::kDebugTrap) && !state.mov_ss_shadow) {
    attention_.clear(Attention::kDebugTrap);
    if (pending_debug_) {
      state.dr[6] |= pending_debug_;
      pending_debug_ = 0;
      fault_chain_size_ = 0;
      delivery_cause_ = "debug trap";
      deliver_event(static_cast<u8>(Vector::DB), std::nullopt, EventSource::Exception);
      return true;
    }
  }
  // NMI: blocked in both kinds of shadow and, after one is delivered, until the next IRET.
  if (attention_.has(Attention::kNmi) && !state.interrupt_shadow && !state.nmi_blocked) {
    attention_.clear(Attention::kNmi);
    state.nmi_pending = false;
    state.nmi_blocked = true;
    fault_chain_size_ = 0;
    deliver_event(static_cast<u8>(Vector::NMI), std::nullopt, EventSource::Nmi);
    return true;
  }
  // INTR: looked at only while kCheckInterrupt is set, which the PIC sets when its
  // output changes and the CPU sets when IF may have become 1 (write_eflags, STI, a
  // task switch, the start of run()). It stays set through an interrupt shadow and
  // after a delivery (another request may be waiting).
  if (attention_.has(Attention::kCheckInterrupt) && !state.interrupt_shadow) {
    attention_.clear(Attention::kCheckInterrupt);
    if (try_deliver_interrupt()) {
      attention_.raise(Attention::kCheckInterrupt);
      return true;
    }
  }
  return false;
}

}  // namespace x86lab
