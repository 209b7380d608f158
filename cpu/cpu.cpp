// Reset, the run loop and instruction fetch (Intel SDM Vol. 3, "Processor State After
// Reset"; Vol. 2, "Instruction Format"). Fault delivery is in cpu/delivery.cpp.
#include "cpu/cpu.h"

#include <algorithm>

#include "cpu/decoder.h"
#include "cpu/instruction_table.h"
#include "segmentation/system_segments.h"
#include "trace/tracer.h"

namespace x86lab {

Cpu::Cpu(Mmu& mmu, PortBus& ports, Counters& counters, const CpuProfile& profile)
    : mmu_(mmu), ports_(ports), counters_(counters), profile_(profile), decode_cache_(mmu.bus(), counters) {
  mmu_.set_tlb_geometry(profile.tlb);
  // A changed translation ends a linked run after its instruction (run_linked).
  mmu_.watch_translation_changes(attention_);
  decode_cache_.watch_retirements(attention_);
  reset();
}

Cpu::~Cpu() { mmu_.unwatch_translation_changes(attention_); }

void Cpu::reset() {
  state = CpuState{};
  state.eflags = 2;
  state.eip = 0xFFF0;
  state.gpr[EDX] = profile_.signature;
  for (auto& segment : state.segments) reset_segment(segment, 0, 0, 3);
  reset_segment(state.segments[CS], 0xF000, 0xFFFF0000u, 0xB);  // execute/read code, accessed
  state.gdtr = {0, 0xFFFF};
  state.idtr = {0, 0x03FF};
  reset_segment(state.ldtr, 0, 0, 2, true);  // LDT
  reset_segment(state.tr, 0, 0, 11, true);   // busy 32-bit TSS
  attention_.clear(~u32{0});
  if (monitor_) attention_.raise(Attention::kMonitor);
  pending_debug_ = instruction_debug_hits_ = 0;
  task_switch_committed_ = push_rf_ = false;
  fault_chain_size_ = 0;
  replay_ = {};
  write_debug_register(6, 0);
  write_debug_register(7, 0);
  sync_paging();
}

void Cpu::write_eflags(u32 value, u32 writable) {
  // Bit 1 always reads as 1 and is not among the writable bits (kImplemented), so it is set after masking.
  state.eflags = (((state.eflags & ~writable) | (value & writable)) & flag::kImplemented) | flag::Reserved1;
  if (state.eflags & flag::TF) attention_.raise(Attention::kTrap);
  attention_.raise(Attention::kCheckInterrupt);
}

void Cpu::sync_paging() {
  PagingControl control;
  control.pg = (state.cr0 & cr0::PG) && (state.cr0 & cr0::PE);
  control.wp = state.cr0 & cr0::WP;
  control.pse = state.cr4 & cr4::PSE;
  control.pge = state.cr4 & cr4::PGE;
  control.cr3 = state.cr3;
  mmu_.set_control(control);
}

void Cpu::write_cr0(u32 value) {
  // #GP(0): PG without PE, or NW without CD (SDM "MOV - Move to/from Control Registers").
  if ((value & cr0::PG) && !(value & cr0::PE)) throw gp(0, "CR0.PG without CR0.PE");
  if ((value & cr0::NW) && !(value & cr0::CD)) throw gp(0, "CR0.NW without CR0.CD");
  trace_control(0, state.cr0, value | cr0::ET);
  state.cr0 = value | cr0::ET;  // ET is hard-wired to 1 on P6
  sync_paging();
  update_access_checks();
}

void Cpu::write_cr3(u32 value) {
  trace_control(3, state.cr3, value);
  // Bits 2-0 and 11-5 are reserved and stay clear; PWT and PCD are kept.
  const bool reload = (value & 0xFFFFF018u) == state.cr3;
  state.cr3 = value & 0xFFFFF018u;
  sync_paging();
  if (reload) mmu_.flush_non_global();  // a new value flushed in sync_paging already
}

void Cpu::write_cr4(u32 value) {
  constexpr u32 kSupported = cr4::TSD | cr4::DE | cr4::PSE | cr4::PGE | cr4::PCE;
  if (value & ~kSupported) throw gp(0, "reserved CR4 bit");
  trace_control(4, state.cr4, value);
  state.cr4 = value;
  sync_paging();
}

void Cpu::load_segment(u8 segment, u16 selector) {
  ++counters_.segment_loads[segment];
  SegmentRegister& reg = state.segments[segment];
  if (!protected_mode()) {
    if (virtual_8086()) load_virtual_8086_segment(reg, selector, false);
    else load_real_mode_segment(reg, selector);
    if (tracer()) [[unlikely]] trace_descriptorless_load(segment);
    return;
  }
  SegmentationContext context = segmentation_context();
  if (segment == SS) load_stack_segment(context, reg, selector);
  else load_data_segment(context, reg, selector);
}

void Cpu::load_code_segment_real(u16 selector) {
  ++counters_.segment_loads[CS];
  if (virtual_8086()) load_virtual_8086_segment(state.segments[CS], selector, true);
  else load_real_mode_segment(state.segments[CS], selector);
  if (tracer()) [[unlikely]] trace_descriptorless_load(CS);
}

void Cpu::trace_descriptorless_load(u8 segment) {
  const SegmentRegister& reg = state.segments[segment];
  Event event;
  event.kind = EventKind::SegmentLoad;
  event.detail = segment;
  event.a = reg.selector;
  event.b = reg.cache.base;
  event.c = reg.cache.limit;
  event.flags = kEventNoDescriptor;
  tracer()->emit(event);
}

void Cpu::emit_control(u8 which, u32 old_value, u32 new_value) {
  Event event;
  event.kind = EventKind::ControlRegister;
  event.detail = which;
  event.c = old_value;
  event.value = new_value;
  tracer()->emit(event);
}

void Cpu::set_cost_model(const CostModel& model) {
  const auto& rows = InstructionTable::get().rows();
  row_costs_.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) row_costs_[i] = model.instruction_cost(std::string(rows[i]->mnemonic));
  counters_.costs = {model.memory_operand, model.segment_load, model.locked_access, model.far_transfer,
                     model.exception_delivery, model.interrupt_delivery, model.iret, model.task_switch,
                     model.page_walk, model.new_code_line, model.string_iteration};
  decode_cache_.clear();  // cached instructions carry the old costs
}

u32 Cpu::instruction_cost(const Instruction& insn) const {
  const u32 row = row_costs_.empty() ? kSubcyclesPerCycle : row_costs_[insn.row];
  return row + (insn.is_memory() ? counters_.costs.memory_operand : 0);
}

// Counts the 32- and 64-byte code lines an instruction's bytes occupy (by linear
// address) the first time each is fetched (retire_code_bytes in cpu.h skips the
// instructions whose lines are known to be in the set already; a line already in the
// set counts nothing).
void Cpu::insert_code_lines(u32 linear, unsigned length) {
  const u32 first = linear >> 5, last = (linear + length - 1) >> 5;
  for (u32 line = first; line <= last; ++line) {
    const unsigned fresh = code_lines_.insert(line);
    if (fresh) {
      ++counters_.code_lines_32;
      counters_.add_cost(counters_.costs.new_code_line);
    }
    if (fresh == 2) ++counters_.code_lines_64;
  }
}

// The executor of an instruction after which a linked run must end (run_linked): the
// form's own, then a request for the slow step. It is the executor of an instruction
// that may load CS (kLoadsCs), since the fetch context the run assumes may be gone;
// and of a cached instruction linked when it faulted (abort_instruction) before it
// ever retired at its linear address, until that first retirement, which then goes
// through retire() and counts its code lines (a linked run does not).
void Cpu::execute_ending_run(Cpu& cpu, const Instruction& insn) {
  insn.form_executor()(cpu, insn);
  cpu.attention_.raise(Attention::kCodeSegmentLoaded);
}

// The executor decode_at gives `insn`.
Executor Cpu::own_executor(const Instruction& insn) {
  return insn.form->attributes & kLoadsCs ? &execute_ending_run : insn.form_executor();
}

void Cpu::decode_at(u32 eip, Instruction& insn, u8* bytes) {
  current_entry_ = nullptr;  // the fetch may fault
  code_page_.serial = 0;  // the byte fetches may move the TLB model's code page
  const SegmentRegister& cs = state.segments[CS];
  decode([&](unsigned i) -> u8 {
    const u32 offset = cs.cache.db ? eip + i : (eip + i) & 0xFFFF;
    if (offset < cs.cache.valid_min || offset > cs.cache.valid_max) throw gp(0, "code segment limit");
    const u8 byte = mmu_.fetch(cs.cache.base + offset, user());
    if (bytes) bytes[i] = byte;
    return byte;
  }, cs.cache.db, insn);
  insn.cost = instruction_cost(insn);
  insn.execute = own_executor(insn);
  insn.operands_resolved = true;
  for (unsigned n = 0; n < insn.register_operand.size(); ++n) {
    insn.register_operand[n] = operand_detail::register_operand(insn, n);
    if (insn.register_operand[n] == kNoRegister || insn.register_operand[n] == kModrmMemoryOperand)
      insn.operands_resolved = false;
    if (insn.register_operand[n] == kImmediateOperand) insn.immediate_operand = operand_detail::immediate_value(insn, n);
  }
}

// The fast fetch (docs/performance.md). It has the same effects as decode_at: the
// first byte's limit check and translation come first (a #GP or #PF there is the one
// decode_at would raise); a hit then needs every byte inside the limit (and, for a
// 16-bit segment, no wrap at FFFFh) and counts the bytes as code fetches. Any other
// case returns null and decode_at repeats the fetch byte by byte: the repeated
// translation hits the TLB the first one filled and is counted in the TLB model once
// per page, as before.
//
// The code page: while the fetch context (TLB epoch, CS, CPL; below) is the one of the
// last translation here and the offset lies in the same linear page, the TLB still
// holds that translation and the TLB model would skip the fetch (same page as its
// last code page), so the translation is reused.
//
// Successor links: an entry remembers the entry that ran after it (for the EIP it ran
// at). While the fetch context (TLB, CS, CPL) stays the same and no entry has been
// replaced or retired (DecodeCache::link_key()), a full look-up for that EIP would
// find the same entry with the same checks passing, so the link is taken instead.
[[gnu::always_inline]] inline const Instruction* Cpu::cached_instruction(u32 eip, Instruction& scratch) {
  const SegmentRegister& cs = state.segments[CS];
  const bool db = cs.cache.db;
  if (!in_fetch_context(fetch_context_.context)) [[unlikely]] {
    const FetchContext context = current_fetch_context();
    fetch_context_ = {context, context_serial(context)};
  }
  const u32 offset = db ? eip : eip & 0xFFFF;
  const bool same_page = code_page_.serial == fetch_context_.serial && offset - code_page_.offset_base < 0x1000;
  if (previous_entry_) [[likely]] {
    if (DecodeCache::Entry* next = decode_cache_.linked(*previous_entry_, eip, decode_cache_.link_key(fetch_context_.serial))) [[likely]] {
      // Another code page: translated as the full path does, which tells the TLB model
      // (it counts instruction fetches once per change of page). A TLB hit: no
      // translation has changed since the link was made (same fetch context).
      if (!same_page) [[unlikely]] translate_code_page(offset);
      link_from_ = nullptr;  // linked already
      return &use_entry(*next);
    }
  }
  link_from_ = previous_entry_;  // the link follows at the retirement
  if (offset < cs.cache.valid_min || offset > cs.cache.valid_max) [[unlikely]] return nullptr;
  u32 physical = same_page ? code_page_.frame | (offset - code_page_.offset_base) : translate_code_page(offset);
  physical &= mmu_.bus().a20_mask();
  if (DecodeCache::Entry* entry = decode_cache_.find_entry(physical, db)) [[likely]] {
    const u32 last = offset + entry->insn.length - 1;
    if (last < offset || last > cs.cache.valid_max || (!db && last > 0xFFFF)) [[unlikely]] return nullptr;
    decode_cache_.list(*entry);
    fetch_link_key_ = decode_cache_.link_key(fetch_context_.serial);
    return &use_entry(*entry);
  }
  return decode_and_cache(eip, offset, physical, scratch);
}

// Translates the code page holding CS offset `offset` for execution (#PF as the fetch
// would raise it) and makes it the current code page; returns the physical address.
// A fill during the translation may change the epoch: then the context numbered before
// it is gone, and so is this translation's validity.
u32 Cpu::translate_code_page(u32 offset) {
  current_entry_ = nullptr;  // the translation may fault
  const u32 base = state.segments[CS].cache.base;
  const u32 linear = base + offset;
  const u32 physical = mmu_.translate(linear, AccessIntent::Execute, user());
  code_page_ = {(linear & ~0xFFFu) - base, physical & ~0xFFFu, fetch_context_.serial};
  return physical;
}

u32 Cpu::context_serial(const FetchContext& context) {
  for (const NumberedContext& recent : recent_contexts_)
    if (recent.serial && recent.context == context) return recent.serial;
  if (next_context_serial_ == 0) [[unlikely]] {  // numbers wrapped: forget every link and start again
    decode_cache_.unlink_all();
    recent_contexts_ = {};
    next_context_serial_ = 2;
  }
  NumberedContext& slot = recent_contexts_[next_recent_context_];
  next_recent_context_ = static_cast<u8>((next_recent_context_ + 1) % recent_contexts_.size());
  slot = {context, next_context_serial_++};
  return slot.serial;
}

// The decode cache's miss path (out of line, so the hit path stays short).
const Instruction* Cpu::decode_and_cache(u32 eip, u32 offset, u32 physical, Instruction& scratch) {
  const bool db = state.segments[CS].cache.db;
  decode_at(eip, scratch, nullptr);
  // Cached only when the bytes were contiguous: no wrap of the offset or linear address.
  const u32 last = offset + scratch.length - 1;
  if (last >= offset && (db || last <= 0xFFFF) && decode_cache_.cacheable(physical, scratch.length)) {
    current_entry_ = decode_cache_.insert(physical, db, scratch);
    fetch_link_key_ = decode_cache_.link_key(fetch_context_.serial);  // (insert() changed it)
    // Its retirement or fault counts the bytes as fetched, and the bus has counted
    // this fetch already.
    if constexpr (kStatistics)
      counters_.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)] -= scratch.length;
  }
  return &scratch;
}

// Counts a retired instruction (execute_one, run_linked's attention branch): the
// instruction and its cost, a replayed start, the statistics (in its decode-cache
// entry when it came from one); links it as the successor of the one before when its
// fetch was a full look-up (link_from_; for EIP instruction_eip_, with the link key
// of the fetch), and makes it the predecessor
// whose successor link the next fetch tries. `entry` is current_entry_ and `linear`
// the instruction's linear address (CS base + instruction_eip_).
//
// Links are made here, at retirement, not at the fetch: a link leads only to an
// instruction that retired in the link's fetch context, so at the same linear
// address, and its code lines are in the set already (retire_code_bytes). That is why
// the linked run need not look at them. Instructions in the code range (counted at
// every retirement) get no link.
// `kMayBeReplay` false: the caller knows the instruction is no replay candidate.
template <bool kMayBeReplay>
[[gnu::always_inline]] inline void Cpu::retire(const Instruction& insn, DecodeCache::Entry* entry, u32 linear) {
  if (link_from_ && entry) [[unlikely]]
    link_fetched(*entry, linear);
  // Its lines are counted below: after the retirement a link made at a fault waited
  // for, it may run linked.
  if (kStatistics && entry && entry->unretired && entry->retires_unretired_at(linear)) [[unlikely]]
    entry->insn.execute = own_executor(entry->insn);
  previous_entry_ = entry;
  count_retirement<kMayBeReplay, false>(insn, entry, linear);
}

// The link to `entry`, the instruction fetched by a full look-up after link_from_,
// at linear address `linear`, made at its retirement or fault with the link key of
// its fetch: unless that key is no longer the current one (the instruction wrote into
// a code page; so a stamp that wrapped never revives it), or the instruction is in
// the code range. True when it was made.
bool Cpu::link_fetched(DecodeCache::Entry& entry, u32 linear) {
  if (fetch_link_key_ != decode_cache_.link_key(fetch_context_.serial)) return false;
  if (kStatistics && counters_.in_code_range(linear)) return false;
  decode_cache_.link(*link_from_, instruction_eip_, &entry, fetch_link_key_);
  return true;
}

// retire() without the link and the predecessor (run_linked keeps it itself).
// kViaLink: the instruction came through a link, so its code lines are counted (see
// retire()); `linear` is then unused.
template <bool kMayBeReplay, bool kViaLink>
[[gnu::always_inline]] inline void Cpu::count_retirement(const Instruction& insn, DecodeCache::Entry* entry, u32 linear) {
  ++counters_.instructions;
  if (kMayBeReplay && replay_.candidate) [[unlikely]] {
    replay_.candidate = false;
    ++counters_.replayed_instructions;
  }
  counters_.add_cost(insn.cost);
  if constexpr (kStatistics) {
    if (entry) [[likely]] {
      ++entry->executions;
      if (!kViaLink) retire_code_bytes(entry->lines_linear, linear, insn.length);
    } else {
      retire_uncached(insn, linear);
    }
  }
}

[[gnu::always_inline]] inline void Cpu::execute_one() {
  instruction_eip_ = state.eip;
  watch_replay_start();
  const u32 start_esp = state.gpr[ESP];
  Tracer* tracer = this->tracer();
  std::array<u32, 10> before;  // EAX..EDI, EIP, EFLAGS for register-write events (while tracing)
  u16 selector = 0;            // CS at the start (while tracing)
  if (tracer) [[unlikely]] {
    const SegmentRegister& cs = state.segments[CS];
    selector = cs.selector;
    tracer->begin_instruction(counters_.instructions, counters_.cycles(), cs.selector, state.eip, state.cpl);
    std::copy(state.gpr.begin(), state.gpr.end(), before.begin());
    before[8] = state.eip;
    before[9] = state.eflags;
  }
  std::array<u8, kMaxInstructionBytes> bytes;  // filled while tracing
  try {
    // Instruction breakpoints are checked first unless RF suppresses them; RF is then
    // cleared (SDM "Debug Exceptions": "cleared at the start of the instruction after
    // the check for code breakpoint").
    if (code_breakpoints_ && !(state.eflags & flag::RF)) [[unlikely]] check_code_breakpoint();
    bool single_step = false;
    if (state.eflags & (flag::RF | flag::TF)) [[unlikely]] {
      state.eflags &= ~flag::RF;
      single_step = state.eflags & flag::TF;
    }
    const u32 eip = state.eip;
    // While tracing, every instruction is decoded from its bytes (the trace shows them).
    const Instruction* decoded = tracer ? nullptr : cached_instruction(eip, scratch_);
    if (!decoded) [[unlikely]] {
      decode_at(eip, scratch_, bytes.data());
      decoded = &scratch_;
    }
    const Instruction& insn = *decoded;
    // The instruction's linear address, from CS's base at its fetch (a far transfer
    // changes the base).
    const u32 linear = state.segments[CS].cache.base + eip;
    state.eip = eip + insn.length;
    if (!state.segments[CS].cache.db) state.eip &= 0xFFFF;
    insn.execute(*this, insn);
    // A fault raised by signal_fault is delivered as a caught one (deliver_fault
    // handles faults of the delivery itself, so nothing is thrown from it).
    if (deliver_signalled_fault(start_esp)) [[unlikely]] return;
    if (single_step || instruction_debug_hits_) [[unlikely]] note_debug_traps(single_step);
    retire(insn, current_entry_, linear);
    if (tracer) [[unlikely]] trace_retired(insn, selector, linear, bytes, before);
  } catch (const Fault& fault) {
    abort_instruction(fault, start_esp);
  }
}

void Cpu::retire_uncached(const Instruction& insn, u32 linear) {
  ++counters_.opcodes[insn.opcode_index];
  counters_.code_bytes += insn.length;
  u32 mark = DecodeCache::kNoLines;
  retire_code_bytes(mark, linear, insn.length);
}

void Cpu::abort_instruction(const Fault& fault, u32 start_esp) {
  if (current_entry_) {
    // An instruction from the decode cache was fetched: its bytes count as fetched
    // (the bus counted those of one decoded from memory).
    if constexpr (kStatistics)
      counters_.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)] += current_entry_->insn.length;
    // A fetch by a full look-up links the instruction though it did not retire (one
    // that faults every time, as a trapped IN does, then still runs linked). Its code
    // lines are counted at its first retirement (execute_ending_run), and none in the
    // code range, which counts each retirement.
    if (link_from_) [[unlikely]] {
      DecodeCache::Entry& entry = *current_entry_;
      const u32 linear = fetch_context_.context.base + instruction_eip_;
      if (link_fetched(entry, linear) && kStatistics && entry.lines_linear != linear) {
        entry.wait_for_retirement_at(linear);
        entry.insn.execute = &execute_ending_run;
      }
    }
  }
  current_entry_ = previous_entry_ = link_from_ = nullptr;
  if (fault.vector == static_cast<u8>(Vector::UD) && fault.cause == "undefined opcode") ++counters_.undefined_opcodes;
  instruction_debug_hits_ = 0;  // an instruction that faults reports no data breakpoint
  if (task_switch_committed_) {
    task_switch_committed_ = false;  // the fault is the new task's: its CS:EIP and ESP stay
  } else {
    state.eip = instruction_eip_;
    state.gpr[ESP] = start_esp;
  }
  counters_.add_cost(kSubcyclesPerCycle);
  deliver_fault(fault);
}

// The Instruction event of a retired instruction fetched at `selector`:EIP (CS at its
// start; a far transfer changes it), linear address `linear`.
void Cpu::trace_retired(const Instruction& insn, u16 selector, u32 linear,
                        const std::array<u8, kMaxInstructionBytes>& bytes, const std::array<u32, 10>& before) {
  Tracer& tracer = *this->tracer();
  Event event;
  event.kind = EventKind::Instruction;
  event.a = selector;
  event.b = instruction_eip_;
  event.c = linear;
  event.size = insn.length;
  event.detail = state.cpl;
  std::copy(bytes.begin(), bytes.begin() + insn.length, event.bytes.begin());
  event.text = insn.form->mnemonic;
  tracer.emit(event);
  if (!tracer.wants(EventKind::RegisterWrite)) return;
  std::array<u32, 10> after{};
  std::copy(state.gpr.begin(), state.gpr.end(), after.begin());
  after[8] = state.eip;
  after[9] = state.eflags;
  for (u8 r = 0; r < 10; ++r) {
    if (r == 8 || before[r] == after[r]) continue;  // EIP changes every instruction: not an event
    Event write;
    write.kind = EventKind::RegisterWrite;
    write.detail = r;
    write.c = before[r];
    write.value = after[r];
    tracer.emit(write);
  }
}

bool Cpu::try_deliver_interrupt() {
  if (!pic_ || !(state.eflags & flag::IF) || !pic_->interrupt_pending()) return false;
  const bool was_halted = state.halted;
  state.halted = false;
  const u8 vector = pic_->acknowledge();
  if (was_halted && tracer()) {
    Event wake;
    wake.kind = EventKind::Wake;
    wake.detail = vector;
    tracer()->emit(wake);
  }
  ++counters_.locked_by_kind[static_cast<std::size_t>(AccessKind::InterruptAcknowledge)];
  fault_chain_size_ = 0;
  deliver_event(vector, std::nullopt, EventSource::External);
  return true;
}

[[gnu::always_inline]] inline void Cpu::execute_step() {
  if (state.shutdown) return;
  // Debug traps of the previous instruction, NMI and INTR (between_instructions.cpp);
  // a delivered event takes the place of an instruction.
  if (attention_.any() && service_events()) return;
  if (state.halted) return;
  state.interrupt_shadow = false;
  state.mov_ss_shadow = false;
  execute_one();
}

void Cpu::step() {
  attention_.raise(Attention::kCheckInterrupt);  // as at the start of run(): the state may have been edited
  execute_step();
  decode_cache_.settle();
}

StopReason Cpu::run(u64 max_instructions) {
  // Counters are exact between runs. At most 2^30 steps between two settles keep a
  // decode-cache entry's u32 count of retirements from wrapping.
  constexpr u64 kSettleSteps = u64{1} << 30;
  for (;;) {
    const u64 chunk = std::min(max_instructions, kSettleSteps);
    const StopReason reason = run_instructions(chunk);
    decode_cache_.settle();
    max_instructions -= chunk;
    if (reason != StopReason::InstructionLimit || max_instructions == 0) return reason;
  }
}

// The linked run (docs/performance.md): what execute_step does for an instruction
// reached through a successor link on the current code page, with the checks that
// cannot change between such instructions made once before the run. It stops before
// any instruction the slow step would treat differently: a cycle limit reached, no
// valid link; and after any instruction that leaves something for the slow step,
// faults included. That is one test of attention_: an interrupt check, a trap, a stop
// request, a changed translation (the Mmu's watch), and request_slow_step(): an
// instruction that may load CS (execute_ending_run; so the fetch context, CS and CPL
// stay those of the run), HLT, a code breakpoint armed, a signalled fault, a data
// breakpoint hit, a replay candidate's start (the only retirement that counts a
// replay), MOV SS, POP SS and STI (their interrupt shadow); write_eflags and the task
// switch, the only writers of TF and RF here, ask for the interrupt check. The caller
// checks run_linked_ready() first. Returns the steps done (at most `max_steps`).
u64 Cpu::run_linked(u64 max_steps) {
  // The fetch context and its number are read from fetch_context_ as they were when
  // the run started: only the slow step's cached_instruction changes them.
  // The instruction the slow step just ran may have changed the context (IRET, MOV CR3).
  if (code_page_.serial != fetch_context_.serial || !in_fetch_context(fetch_context_.context)) return 0;
  // A fault's replay is watched only at the faulting CPL, and the CPL is the run's.
  if (replay_.pending && state.cpl == replay_.cpl) [[unlikely]] return run_linked_loop<true>(max_steps);
  return run_linked_loop<false>(max_steps);
}

// run_linked's loop; kWatchReplay: look for the start of a fault's replay before each
// instruction (watch_replay_start). Few values stay in registers across the
// executor's call (the entry and the count): the others are loaded from members.
template <bool kWatchReplay>
u64 Cpu::run_linked_loop(u64 max_steps) {
  link_from_ = nullptr;  // (its instructions come through links)
  // Constant in the run: a retirement of entries ends it (DecodeCache::watch_retirements).
  const u64 link_key = decode_cache_.link_key(fetch_context_.serial);
  // The only EIP the replay watch needs to see in this run (CS and the CPL stay the
  // same; a fault or a replay start ends the run).
  const u32 watch_eip = kWatchReplay ? replay_watch_eip(state.eip) : 0;
  u64 remaining = max_steps;
  DecodeCache::Entry* previous = previous_entry_;  // the last retired instruction's entry
  try {
    while (remaining) {
      if (counters_.subcycles >= subcycle_limit_) [[unlikely]] break;
      const u32 eip = state.eip;
      DecodeCache::Entry* const next = DecodeCache::linked(*previous, eip, link_key);
      if (!next) [[unlikely]] break;
      instruction_eip_ = eip;
      if constexpr (kWatchReplay)
        if (eip == watch_eip) [[unlikely]] watch_replay_start();
      start_esp_ = state.gpr[ESP];
      // Another code page: translated as cached_instruction does (a TLB hit).
      if (eip - code_page_.offset_base >= 0x1000) [[unlikely]] translate_code_page(eip);
      const Instruction& insn = use_entry(*next);
      state.eip = eip + insn.length;  // a 32-bit code segment (the fetch context's D bit)
      insn.execute(*this, insn);
      --remaining;
      if (attention_.any()) [[unlikely]] {
        // retire() or abort_instruction() sets previous_entry_.
        if (!deliver_signalled_fault(start_esp_)) {
          if (instruction_debug_hits_) note_debug_traps(false);
          retire(next->insn, next, fetch_context_.context.base + eip);  // (link_from_ is null)
        }
        const u64 done = max_steps - remaining;
        steps_ += done;
        return done;
      }
      count_retirement<false, true>(next->insn, next, 0);
      previous = next;
    }
    previous_entry_ = previous;
  } catch (const Fault& fault) {
    const u64 done = max_steps - remaining + 1;
    steps_ += done;
    abort_instruction(fault, start_esp_);
    return done;
  }
  const u64 done = max_steps - remaining;
  steps_ += done;
  return done;
}

StopReason Cpu::run_instructions(u64 max_instructions) {
  // The state may have been changed from outside (a debugger setting IF, a loader):
  // look at INTR once; from here on the PIC and IF changes ask for the check.
  attention_.raise(Attention::kCheckInterrupt);
  for (u64 i = 0; i < max_instructions; ++i) {
    if (attention_.has(Attention::kStopRequested | Attention::kMonitor)) [[unlikely]] {
      if (attention_.has(Attention::kMonitor)) monitor_->before_step();
      if (attention_.has(Attention::kStopRequested)) {
        attention_.clear(Attention::kStopRequested);
        return StopReason::StopRequested;
      }
    }
    // A signal stop ends the run as a reached cycle limit does (stop_from_signal).
    if (counters_.subcycles >= subcycle_limit_ || attention_.signalled()) return StopReason::CycleLimit;
    execute_step();
    ++steps_;
    if (run_linked_ready()) i += run_linked(max_instructions - i - 1);
    if (!(state.shutdown | state.halted)) [[likely]] continue;
    if (state.shutdown) return StopReason::Shutdown;
    if (state.halted) {
      // A halted CPU wakes only through an interrupt it can take or an NMI.
      if ((!pic_ || !(state.eflags & flag::IF) || !pic_->interrupt_pending()) && !state.nmi_pending)
        return StopReason::Halted;
    }
  }
  return StopReason::InstructionLimit;
}

}  // namespace x86lab
