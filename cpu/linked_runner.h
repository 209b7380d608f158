// The accelerator of Cpu::run (docs/performance.md, "The linked run"): one unit that
// owns everything the speed work adds to the reference interpreter (Cpu::step):
// successor links between decode-cache entries, the numbered fetch contexts they are
// valid in, the reuse of the current code page's translation, and the loop that runs
// instructions through links alone. Cpu::run hands it a slice when nothing observes
// every instruction (no tracer, no step monitor); it must leave the state and the
// counters of the same number of Cpu::step calls (tests/cpu/linked_run_test.cpp is
// that contract). It raises nothing and keeps no machine state: forgetting all of it
// (a new runner) only makes the next instructions take full look-ups.
#pragma once
#include <array>

#include "cpu/decode_cache.h"
#include "trace/types.h"

namespace x86lab {

class Cpu;
enum class StopReason : u8;

class LinkedRunner {
 public:
  // Up to `max_steps` steps of `cpu` (instructions and deliveries), as Cpu::run's
  // slice: its slow step (Cpu::execute_step with this runner as the fetch policy) and,
  // between slow steps, the linked run. Returns why it stopped.
  static StopReason run(Cpu& cpu, u64 max_steps);

  // ---- the slow step's fetch policy (Cpu::execute_one) ----
  // The decoded instruction at CS:EIP: through the predecessor's successor link when
  // one is valid, else by a full look-up (Cpu::look_up) that reuses the code page's
  // translation; null when it must be decoded byte by byte (Cpu::decode_at).
  const Instruction* fetch(Cpu& cpu, u32 eip, Instruction& scratch);
  // The fetched instruction retired at linear address `linear` (`entry`: its
  // decode-cache entry, or null): makes the link from its predecessor when its fetch
  // was a full look-up, and makes it the predecessor.
  void retired(Cpu& cpu, DecodeCache::Entry* entry, u32 linear);
  // The fetched instruction (or its fetch) faulted: a full look-up still links it
  // (one that faults every time, as a trapped IN does, then runs linked too).
  void faulted(Cpu& cpu);

 private:
  // What the successor links assume: the TLB's state and CS's descriptor cache and
  // CPL as they were when the links were made. Each context gets a number of its own
  // (`serial`, never reused); the few last seen keep theirs, so links made in them (a
  // ring-3 loop and its ring-0 fault handler) stay usable across the switches between them.
  struct FetchContext {
    u32 epoch = 0;  // Mmu::translation_epoch()
    u32 base = 0, valid_min = 0, valid_max = 0;
    u8 cpl = 0;
    bool db = false;
    bool operator==(const FetchContext&) const = default;
  };
  struct NumberedContext {
    FetchContext context;
    u32 serial = 0;
  };
  static FetchContext current_fetch_context(const Cpu& cpu);
  // The number of `context`, giving it a new one when it is none of the recent ones.
  [[gnu::noinline]] u32 context_serial(Cpu& cpu, const FetchContext& context);
  // Translates the code page holding CS offset `offset` for execution (#PF as the
  // fetch would raise it) and makes it the current code page; returns the physical address.
  u32 translate_code_page(Cpu& cpu, u32 offset);
  bool link_fetched(Cpu& cpu, DecodeCache::Entry& entry, u32 linear);
  // True when the linked run may start after a slow step: nothing needs the slow
  // step's per-instruction checks (Cpu::needs_slow_step), no tracer, the last
  // instruction came from the decode cache, a 32-bit code segment.
  bool ready(const Cpu& cpu) const;
  // Runs instructions through successor links while nothing needs the slow step;
  // returns how many steps it did, at most `max_steps`.
  static u64 run_linked(Cpu& cpu, u64 max_steps);
  template <bool kWatchReplay, bool kL1i>
  [[gnu::noinline]] static u64 run_linked_loop(Cpu& cpu, u64 max_steps);

  NumberedContext fetch_context_{{}, 1};              // the current context
  std::array<NumberedContext, 4> recent_contexts_{};  // serial 0: empty
  u32 next_context_serial_ = 2;
  u8 next_recent_context_ = 0;
  DecodeCache::Entry* previous_entry_ = nullptr;  // the last retired instruction's entry, or null
  u64 fetch_link_key_ = 0;  // the decode cache's link key when the executing instruction was fetched
  // The entry to link the executing instruction from at its retirement (its fetch was
  // a full look-up after it), or null (linked already, or no predecessor).
  DecodeCache::Entry* link_from_ = nullptr;
  // The translation of the page the last instruction came from, valid in the fetch
  // context it was made in: the page holds the CS offsets offset_base .. offset_base
  // + FFFh (modulo 2^32). While the context is the same and the offset lies in the
  // page, the TLB still holds it and the TLB model would skip the fetch (same page as
  // its last code page), so the translation is reused. Dropped whenever the byte
  // fetches of Cpu::decode_at may have moved the model's code page.
  struct CodePage {
    u32 offset_base = 0;
    u32 frame = 0;
    u32 serial = 0;  // FetchContext number when translated; 0: none
  } code_page_;
  u32 start_esp_ = 0;  // ESP at the start of the linked run's current instruction
};

}  // namespace x86lab
