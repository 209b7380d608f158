// The accelerator of Cpu::run (cpu/linked_runner.h, docs/performance.md "The linked
// run"): successor links, numbered fetch contexts, the code page's translation
// reused, and the loop through links.
#include "cpu/linked_runner.h"

#include "cpu/cpu.h"
#include "cpu/instruction_cycle.h"

namespace x86lab {

LinkedRunner::LinkedRunner(DecodeCache& cache)
    : cache_(cache), links_(std::make_unique<Links[]>(DecodeCache::kEntries)) {
  for (u32 slot = 0; slot < DecodeCache::kEntries; ++slot) links_[slot].entry = &cache_.entry_at(slot);
  cache_.attach_link_table(this);
}

LinkedRunner::~LinkedRunner() { cache_.attach_link_table(nullptr); }

void LinkedRunner::drop_all_links() {
  for (u32 slot = 0; slot < DecodeCache::kEntries; ++slot) links_[slot].link = {};
}

[[gnu::always_inline]] inline bool LinkedRunner::ready(const Cpu& cpu) const {
  return !cpu.needs_slow_step() && previous_ && !cpu.tracer() && fetch_context_.context.db;
}

[[gnu::always_inline]] inline LinkedRunner::FetchContext LinkedRunner::current_fetch_context(const Cpu& cpu) {
  const DescriptorCache& cs = cpu.state.segments[CS].cache;
  return {cpu.mmu().translation_epoch(), cs.base, cs.valid_min, cs.valid_max, cpu.state.cpl, cs.db};
}

// The slow step's fetch. Successor links: the row of an entry's slot remembers the
// entry that ran after it (for the EIP it ran at). While the fetch context (TLB, CS, CPL) stays the
// same and no entry has been replaced or retired (DecodeCache::link_key()), a full
// look-up for that EIP would find the same entry with the same checks passing, so the
// link is taken instead. Otherwise the full look-up of the reference fetch
// (FetchUnit::cached_instruction), with the code page's translation reused.
[[gnu::always_inline]] inline const Instruction* LinkedRunner::fetch(Cpu& cpu, u32 eip) {
  const DescriptorCache& cs = cpu.state.segments[CS].cache;
  const bool db = cs.db;
  if (!(fetch_context_.context == current_fetch_context(cpu))) [[unlikely]] {
    const FetchContext context = current_fetch_context(cpu);
    fetch_context_ = {context, context_serial(context)};
  }
  const u32 offset = db ? eip : eip & 0xFFFF;
  const bool same_page = code_page_.serial == fetch_context_.serial && offset - code_page_.offset_base < 0x1000;
  FetchUnit& unit = cpu.fetch_unit();
  if (previous_) [[likely]] {
    if (const Link* link = linked(*previous_, eip, cache_.link_key(fetch_context_.serial))) [[likely]] {
      // Another code page: translated as the full path does, which tells the TLB model
      // (it counts instruction fetches once per change of page). A TLB hit: no
      // translation has changed since the link was made (same fetch context).
      if (!same_page) [[unlikely]] translate_code_page(cpu, offset);
      link_from_ = nullptr;  // linked already
      fetched_row_ = link->next;
      return &unit.use_entry(*link->next->entry);
    }
  }
  link_from_ = previous_;  // the link follows at the retirement
  fetched_row_ = nullptr;
  if (offset < cs.valid_min || offset > cs.valid_max) [[unlikely]] {
    code_page_.serial = 0;  // decode_at follows: its byte fetches may move the TLB model's code page
    return nullptr;
  }
  u32 physical = same_page ? code_page_.frame | (offset - code_page_.offset_base) : translate_code_page(cpu, offset);
  physical &= cpu.mmu().bus().a20_mask();
  const Instruction* insn = unit.look_up(cpu, cs, eip, offset, physical);
  fetch_link_key_ = cache_.link_key(fetch_context_.serial);  // (an insert() changes it)
  if (!insn || insn == &unit.scratch()) code_page_.serial = 0;  // decode_at ran or follows (as above)
  return insn;
}

// A fill during the translation may change the epoch: then the context numbered before
// it is gone, and so is this translation's validity.
u32 LinkedRunner::translate_code_page(Cpu& cpu, u32 offset) {
  cpu.fetch_unit().forget_entry();  // the translation may fault
  const u32 base = cpu.state.segments[CS].cache.base;
  const u32 linear = base + offset;
  const u32 physical = cpu.mmu().translate(linear, AccessIntent::Execute, cpu.user());
  code_page_ = {(linear & ~0xFFFu) - base, physical & ~0xFFFu, fetch_context_.serial};
  return physical;
}

u32 LinkedRunner::context_serial(const FetchContext& context) {
  for (const NumberedContext& recent : recent_contexts_)
    if (recent.serial && recent.context == context) return recent.serial;
  if (next_context_serial_ == 0) [[unlikely]] {  // numbers wrapped: forget every link and start again
    cache_.unlink_all();
    recent_contexts_ = {};
    next_context_serial_ = 2;
  }
  NumberedContext& slot = recent_contexts_[next_recent_context_];
  next_recent_context_ = static_cast<u8>((next_recent_context_ + 1) % recent_contexts_.size());
  slot = {context, next_context_serial_++};
  return slot.serial;
}

// Links are made here, at retirement, not at the fetch: a link leads only to an
// instruction that retired in the link's fetch context, so at the same linear
// address, and its code lines are in the set already (CodeFootprint). That is why
// the linked run need not look at them. Instructions in the code range (counted at
// every retirement) get no link.
[[gnu::always_inline]] inline void LinkedRunner::retired(Cpu& cpu, DecodeCache::Entry* entry, u32 linear) {
  if (link_from_ && entry) [[unlikely]]
    link_fetched(cpu, *entry, linear);
  previous_ = entry ? &row_of_fetched(*entry) : nullptr;
}

// An instruction that faults is linked too (one that faults every time, as a trapped
// IN does, then runs linked), but only when it has retired at this linear address
// before (CodeFootprint::known_at), so that the invariant above holds: a link never
// leads to an instruction whose retirement would add code lines.
[[gnu::always_inline]] inline void LinkedRunner::faulted(Cpu& cpu) {
  DecodeCache::Entry* current = cpu.fetch_unit().current_entry();
  if (current && link_from_) [[unlikely]] {
    const u32 linear = fetch_context_.context.base + cpu.instruction_eip();
    if (!kStatistics || cpu.code_footprint().known_at(cache_.slot(*current), linear))
      link_fetched(cpu, *current, linear);
  }
  previous_ = link_from_ = nullptr;
  code_page_.serial = 0;  // the fault may have come from decode_at's byte fetches
}

StopReason LinkedRunner::run(Cpu& cpu, u64 max_steps) {
  StopReason reason;
  for (u64 i = 0; i < max_steps; ++i) {
    if (InstructionCycle::stop_before_step(cpu, reason)) [[unlikely]] return reason;
    InstructionCycle::execute_step(cpu, *this);  // the slow step: the reference's cycle with this fetch policy
    cpu.count_steps(1);
    if (ready(cpu)) i += run_linked(cpu, max_steps - i - 1);
    if (InstructionCycle::stop_after_step(cpu, reason)) [[unlikely]] return reason;
  }
  return StopReason::InstructionLimit;
}

// The link to `entry`, the instruction fetched by a full look-up after link_from_,
// at linear address `linear`, made at its retirement or fault with the link key of
// its fetch: unless that key is no longer the current one (the instruction wrote into
// a code page; so a stamp that wrapped never revives it), or the instruction is in
// the code range. True when it was made.
bool LinkedRunner::link_fetched(Cpu& cpu, DecodeCache::Entry& entry, u32 linear) {
  if (fetch_link_key_ != cache_.link_key(fetch_context_.serial)) return false;
  if (kStatistics && cpu.counters().in_code_range(linear)) return false;
  link(*link_from_, cpu.instruction_eip(), entry, fetch_link_key_);
  return true;
}

// The linked run: what the slow step does for an instruction reached through a
// successor link on the current code page, with the checks that cannot change between
// such instructions made once before the run. It stops before any instruction the
// slow step would treat differently: a cycle limit reached, no valid link; and after
// any instruction that leaves something for the slow step, faults included. That is
// one test of the attention word (mmu/attention.h): an interrupt check, a trap, a stop
// request, a changed translation, a written code page, an instruction that may load
// CS (kLoadsCs, FetchUnit's executor for it; so the fetch context, CS and CPL stay those of the
// run), an interrupt shadow, a signalled fault, a replay candidate's start (the only
// retirement that counts a replay), HLT, a code breakpoint armed or a data breakpoint
// hit, the signal stop; write_eflags and the task switch, the only writers of TF and
// RF here, ask for the interrupt check. Returns the steps done (at most `max_steps`).
u64 LinkedRunner::run_linked(Cpu& cpu, u64 max_steps) {
  // The fetch context and its number are read from fetch_context_ as they were when
  // the run started: only the slow step's fetch changes them.
  // The instruction the slow step just ran may have changed the context (IRET, MOV CR3).
  if (code_page_.serial != fetch_context_.serial || !(fetch_context_.context == current_fetch_context(cpu)))
    return 0;
  // A fault's replay is watched only at the faulting CPL, and the CPL is the run's.
  const ReplayWatch& replay = cpu.replay_watch();
  const bool watch = replay.pending() && cpu.state.cpl == replay.faulting_cpl();
  if (kStatistics && cpu.counters().cache_model) [[unlikely]]
    return watch ? run_linked_loop<true, true>(cpu, max_steps) : run_linked_loop<false, true>(cpu, max_steps);
  if (watch) [[unlikely]] return run_linked_loop<true, false>(cpu, max_steps);
  return run_linked_loop<false, false>(cpu, max_steps);
}

// run_linked's loop; kWatchReplay: look for the start of a fault's replay before each
// instruction (Cpu::watch_replay_start); kL1i: the cache model is on (Cpu::set_cache_model),
// and an instruction in another L1I line than the one before is its access. Few
// values stay in registers across the executor's call (the CPU, the runner, the link
// and the count): the others are loaded from members.
template <bool kWatchReplay, bool kL1i>
u64 LinkedRunner::run_linked_loop(Cpu& cpu, u64 max_steps) {
  link_from_ = nullptr;  // (its instructions come through links)
  // Constant in the run: a retirement of entries ends it (Attention::kCodePageWritten).
  const u64 link_key = cache_.link_key(fetch_context_.serial);
  // The only EIP the replay watch needs to see in this run (CS and the CPL stay the
  // same; a fault or a replay start ends the run).
  const u32 watch_eip = kWatchReplay ? cpu.replay_watch().only_eip(fetch_context_.context.base, cpu.state.eip) : 0;
  u64 remaining = max_steps;
  Links* previous = previous_;  // the last retired instruction's row
  FetchUnit& unit = cpu.fetch_unit();
  const Attention& attention = cpu.attention();
  // The CS offset of the L1I line the last instruction of this run started in (the
  // cache model's last fetch: an instruction starting there is filtered by
  // CacheObserver::fetch anyway), and the line size (4096 with no L1I). A line lies in
  // a page, so leaving it is also when the code page may change. None yet: the first
  // instruction takes the check.
  [[maybe_unused]] const u32 base = kL1i ? fetch_context_.context.base : 0;
  [[maybe_unused]] const u32 line_bytes = kL1i ? cpu.caches().fetch_run_bytes() : 0;
  [[maybe_unused]] u32 line_offset = cpu.state.eip + 0x80000000u;
  try {
    while (remaining) {
      if (cpu.clock().subcycles >= cpu.subcycle_limit()) [[unlikely]] break;
      const u32 eip = cpu.state.eip;
      const Link* const link = linked(*previous, eip, link_key);
      if (!link) [[unlikely]] break;
      Links* const next = link->next;
      cpu.begin_instruction();
      if constexpr (kWatchReplay)
        if (eip == watch_eip) [[unlikely]] cpu.watch_replay_start();
      start_esp_ = cpu.state.gpr[ESP];
      // Another L1I line: its access (InstructionCycle::fetch); another code page:
      // translated as the slow step's fetch does (a TLB hit).
      if constexpr (kL1i) {
        if (eip - line_offset >= line_bytes) [[unlikely]] {
          if (eip - code_page_.offset_base >= 0x1000) translate_code_page(cpu, eip);
          cpu.caches().fetch(next->entry->physical);
          line_offset = ((base + eip) & ~(line_bytes - 1)) - base;
        }
      } else if (eip - code_page_.offset_base >= 0x1000) [[unlikely]] {
        translate_code_page(cpu, eip);
      }
      const Instruction& insn = unit.use_entry(*next->entry);
      cpu.state.eip = eip + insn.length;  // a 32-bit code segment (the fetch context's D bit)
      insn.execute(cpu, insn);
      --remaining;
      if (attention.any()) [[unlikely]] {
        // retired() or faulted() sets previous_. The entry that ran is the fetch
        // unit's current one (a retirement of entries may have dropped the link).
        if (!InstructionCycle::deliver_signalled_fault(cpu, start_esp_, *this)) {
          if (cpu.data_breakpoint_hit()) cpu.note_debug_traps(false);
          const u32 linear = fetch_context_.context.base + cpu.instruction_eip();
          DecodeCache::Entry* const ran = unit.current_entry();
          fetched_row_ = next;
          retired(cpu, ran, linear);  // (link_from_ is null)
          InstructionCycle::retire<true, false>(cpu, ran->insn, ran, linear);
        }
        const u64 done = max_steps - remaining;
        cpu.count_steps(done);
        return done;
      }
      DecodeCache::Entry* const ran = next->entry;
      InstructionCycle::retire<false, true>(cpu, ran->insn, ran, 0);
      previous = next;
    }
    previous_ = previous;
  } catch (const Fault& fault) {
    const u64 done = max_steps - remaining + 1;
    cpu.count_steps(done);
    faulted(cpu);
    InstructionCycle::abort(cpu, fault, start_esp_);
    return done;
  }
  const u64 done = max_steps - remaining;
  cpu.count_steps(done);
  return done;
}

}  // namespace x86lab
