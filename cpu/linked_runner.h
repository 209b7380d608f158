// The accelerator of Cpu::run (docs/performance.md, "The linked run"): one unit that
// owns everything the speed work adds to the reference interpreter (Cpu::step):
// successor links between decode-cache entries, the numbered fetch contexts they are
// valid in, the reuse of the current code page's translation, and the loop that runs
// instructions through links alone. Cpu::run hands it a slice when nothing observes
// every instruction (no tracer, no step monitor); it must leave the state and the
// counters of the same number of Cpu::step calls (tests/cpu/linked_run_test.cpp and
// tests/platform/accelerator_contract_test.cpp are that contract). It reaches the CPU
// through its public interface and the instruction cycle's entry points
// (cpu/instruction_cycle.h), and its links live in a side table of its own beside the
// decode cache's slots. It raises nothing and keeps no machine state: forgetting all
// of it (a new runner) only makes the next instructions take full look-ups.
#pragma once
#include <array>
#include <memory>

#include "cpu/decode_cache.h"
#include "trace/types.h"

namespace x86lab {

class Cpu;
enum class StopReason : u8;

class LinkedRunner final : public DecodeCache::LinkTable {
 public:
  // A runner for the CPU whose decode cache is `cache`: its link table is attached
  // there until the runner is destroyed.
  explicit LinkedRunner(DecodeCache& cache);
  ~LinkedRunner();
  LinkedRunner(const LinkedRunner&) = delete;
  LinkedRunner& operator=(const LinkedRunner&) = delete;

  // Up to `max_steps` steps of `cpu` (instructions and deliveries), as Cpu::run's
  // slice: its slow step (InstructionCycle::execute_step with this runner as the
  // fetch policy) and, between slow steps, the linked run. Returns why it stopped.
  StopReason run(Cpu& cpu, u64 max_steps);

  // ---- the slow step's fetch policy (InstructionCycle::execute_one) ----
  // The decoded instruction at CS:EIP: through the predecessor's successor link when
  // one is valid, else by a full look-up (FetchUnit::look_up) that reuses the code
  // page's translation; null when it must be decoded byte by byte (FetchUnit::decode_at).
  const Instruction* fetch(Cpu& cpu, u32 eip);
  // The fetched instruction retired at linear address `linear` (`entry`: its
  // decode-cache entry, or null): makes the link from its predecessor when its fetch
  // was a full look-up, and makes it the predecessor.
  void retired(Cpu& cpu, DecodeCache::Entry* entry, u32 linear);
  // The fetched instruction (or its fetch) faulted: a full look-up still links it
  // (one that faults every time, as a trapped IN does, then runs linked too).
  void faulted(Cpu& cpu);

 private:
  // ---- the successor links (DecodeCache::LinkTable) ----
  // A slot's row: the instructions that ran after its entry the last two times they
  // differed (a conditional branch's fall-through and target), each the row of the
  // entry decoded for EIP `eip`, valid while the cache's link_key() for the CPU's
  // fetch context is still `key` (link[0] is the more recent); and the slot's entry
  // (fixed: entries do not move). A row is one 64-byte line.
  struct Links;
  struct Link {
    u32 eip = 0;
    u64 key = 0;  // 0: never valid (a key's link stamp part is never 0)
    Links* next = nullptr;
    bool valid(u32 for_eip, u64 now) const { return eip == for_eip && key == now; }
  };
  struct alignas(64) Links {
    std::array<Link, 2> link{};
    DecodeCache::Entry* entry = nullptr;
  };
  // The row of the entry in `entry`'s slot.
  Links& links_of(const DecodeCache::Entry& entry) { return links_[cache_.slot(entry)]; }
  // The same, without the slot's division when `entry` came through a link (fetched_row_).
  Links& row_of_fetched(const DecodeCache::Entry& entry) {
    return fetched_row_ && fetched_row_->entry == &entry ? *fetched_row_ : links_of(entry);
  }
  void slot_filled(u32 slot) override { links_[slot].link = {}; }
  void drop_all_links() override;
  // Records that `next` (found by a full look-up for `next_eip`) ran after the entry
  // whose row is `from`, under link key `key`. A valid link to another EIP moves to
  // the second place.
  void link(Links& from, u32 next_eip, DecodeCache::Entry& next, u64 key) {
    Link& first = from.link[0];
    if (first.eip != next_eip && first.valid(first.eip, key)) from.link[1] = first;
    first = {next_eip, key, &links_of(next)};
  }
  // The link from the row `from` for EIP `eip` under link key `key`, or null.
  static const Link* linked(const Links& from, u32 eip, u64 key) {
    if (from.link[0].valid(eip, key)) [[likely]] return &from.link[0];
    if (from.link[1].valid(eip, key)) return &from.link[1];
    return nullptr;
  }

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
  [[gnu::noinline]] u32 context_serial(const FetchContext& context);
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
  u64 run_linked(Cpu& cpu, u64 max_steps);
  template <bool kWatchReplay, bool kL1i>
  [[gnu::noinline]] u64 run_linked_loop(Cpu& cpu, u64 max_steps);

  DecodeCache& cache_;
  std::unique_ptr<Links[]> links_;  // by decode-cache slot (DecodeCache::kEntries)

  NumberedContext fetch_context_{{}, 1};              // the current context
  std::array<NumberedContext, 4> recent_contexts_{};  // serial 0: empty
  u32 next_context_serial_ = 2;
  u8 next_recent_context_ = 0;
  Links* previous_ = nullptr;  // the last retired instruction's row of links, or null
  u64 fetch_link_key_ = 0;  // the decode cache's link key when the executing instruction was fetched
  // The row to link the executing instruction from at its retirement (its fetch was
  // a full look-up after it), or null (linked already, or no predecessor).
  Links* link_from_ = nullptr;
  Links* fetched_row_ = nullptr;  // the row of the executing instruction when a link led to it, or null
  // The translation of the page the last instruction came from, valid in the fetch
  // context it was made in: the page holds the CS offsets offset_base .. offset_base
  // + FFFh (modulo 2^32). While the context is the same and the offset lies in the
  // page, the TLB still holds it and the TLB model would skip the fetch (same page as
  // its last code page), so the translation is reused. Dropped whenever the byte
  // fetches of FetchUnit::decode_at may have moved the model's code page.
  struct CodePage {
    u32 offset_base = 0;
    u32 frame = 0;
    u32 serial = 0;  // FetchContext number when translated; 0: none
  } code_page_;
  u32 start_esp_ = 0;  // ESP at the start of the linked run's current instruction
};

}  // namespace x86lab
