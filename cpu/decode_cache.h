// Decoded instructions cached by physical address (docs/performance.md). An entry is
// the Instruction decode() produced from the bytes at a physical address for one code
// segment size (CS.D); it stays valid until something writes into fetched
// instruction bytes of its 64-byte physical code block (kCodeBlockBytes), or of the
// next block when the instruction reaches into it. Writes reach the cache through
// PhysicalBus's code marks: a write into bytes fetched as instructions (by the CPU
// through any linear alias, a device, a loader or a debugger poke) calls
// code_blocks_written, which retires every entry of those blocks at once by bumping
// their generations (Intel SDM Vol. 3, "Self-Modifying Code" and "Cross-Modifying
// Code": detection is by physical address). A write beside code (data in the page of
// its code, even in the same block) retires nothing.
//
// Only instructions wholly inside one RAM or ROM page are cached (not MMIO, not
// page-crossing ones); the caller translates the linear address first, so a changed
// mapping (MOV CR3, INVLPG, new page tables) simply finds the other physical page.
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "cpu/instruction.h"
#include "mmu/attention.h"
#include "mmu/physical_bus.h"
#include "trace/counters.h"

namespace x86lab {

class DecodeCache final : public CodeWriteListener {
 public:
  // Registers with `bus` for writes into code; unregisters on destruction. `counters`
  // receives the per-entry statistics (settle()).
  DecodeCache(PhysicalBus& bus, Counters& counters);
  ~DecodeCache() override;
  DecodeCache(const DecodeCache&) = delete;
  DecodeCache& operator=(const DecodeCache&) = delete;

  struct Entry {
    u32 physical = 0xFFFFFFFFu;  // never a valid instruction start with default32 unset below
    u32 generation = 0xFFFFFFFFu;
    bool default32 = false;
    bool listed = false;  // on the list settle() goes through
    // Retirements of this instruction not yet added to Counters (per-opcode counts,
    // code bytes, code-fetch bytes; settle()).
    u32 executions = 0;
    Instruction insn;
  };
  // The entry's slot number (0 .. kEntries - 1), for side tables kept beside the cache
  // (an insert() reuses the slot of the entry it replaces; cpu/code_lines.h, the
  // runner's successor links).
  u32 slot(const Entry& e) const { return static_cast<u32>(&e - entries_.get()); }
  Entry& entry_at(u32 slot) { return entries_[slot]; }

  // A table of links kept beside the slots by its owner (LinkedRunner's successor
  // links), whose validity the link keys decide (link_key()): told when a slot gets a
  // new entry (insert()) and when every link must go (the link stamp wrapped, so that
  // an old key could match again). It must outlive its attachment.
  class LinkTable {
   public:
    virtual void slot_filled(u32 slot) = 0;
    virtual void drop_all_links() = 0;

   protected:
    ~LinkTable() = default;
  };
  // Attaches `table` (null: none).
  void attach_link_table(LinkTable* table) { link_table_ = table; }

  // The entry of the instruction decoded at `physical` (A20 already applied) for
  // CS.D = `default32`, or null.
  Entry* find_entry(u32 physical, bool default32) {
    Entry& e = entries_[index(physical)];
    if (e.physical != physical || e.default32 != default32 || e.generation != generations_[block_slot(physical)])
      return nullptr;
    return &e;
  }
  const Instruction* find(u32 physical, bool default32) {
    const Entry* e = find_entry(physical, default32);
    return e ? &e->insn : nullptr;
  }
  // Caches `insn` (length 1-15) decoded at `physical`. The caller checks cacheable().
  Entry* insert(u32 physical, bool default32, const Instruction& insn) {
    next_link_stamp();  // a link may point at the entry this replaces
    Entry& e = entries_[index(physical)];
    fold(e);
    list(e);
    e.physical = physical;
    e.default32 = default32;
    e.generation = generations_[block_slot(physical)];
    // Reaching into the next block: a write there must retire this block too.
    if ((physical % kCodeBlockBytes) + insn.length > kCodeBlockBytes) set_reached_into(block_slot(physical) + 1);
    e.insn = insn;
    if (link_table_) link_table_->slot_filled(slot(e));
    return &e;
  }
  // True when an instruction of `length` bytes at `physical` may be cached: inside one
  // page, and that page is RAM or ROM (host memory the bus's code-page marks watch).
  bool cacheable(u32 physical, unsigned length) const {
    return (physical & 0xFFF) + length <= 0x1000 && bus_.has_host_page(physical >> 12);
  }
  // Retires every entry decoded from the code blocks `blocks` of physical page `page`
  // (CodeWriteListener), and those of the block before each that reach into it.
  void code_blocks_written(u32 page, u64 blocks) override;
  // Retires every entry.
  void clear() {
    for (u32 slot = 0; slot < kGenerationSlots; ++slot) ++generations_[slot];
    next_link_stamp();
    watch_->raise(Attention::kCodePageWritten);
  }
  // Has every later retirement of entries (code_blocks_written, clear) raise
  // Attention::kCodePageWritten in `attention`: the CPU's, so that its linked run,
  // which uses one link_key() throughout, ends after an instruction that wrote into a
  // code page. `attention` must outlive the cache.
  void watch_retirements(Attention& attention) { watch_ = &attention; }

  // ---- statistics of cached instructions ----
  // The CPU counts a retirement of a cached instruction in its entry (executions)
  // instead of in three counters; settle() adds them up. Every entry that can run
  // without a full look-up (a link's target) is on the list: a full look-up lists
  // the entry it finds (list()), insert() lists the new one, and settle() makes every
  // link stale, so the next run starts from full look-ups again.
  void list(Entry& e) {
    if constexpr (!kStatistics) return;
    if (e.listed) [[likely]] return;
    e.listed = true;
    listed_.push_back(&e);
  }
  // Adds the listed entries' retirements to Counters::opcodes, code_bytes and
  // accesses_by_kind[CodeFetch] (each retirement fetched the instruction's bytes) and
  // empties the list. The CPU calls it whenever it returns from run() or step(), so
  // Counters are exact whenever nobody is executing.
  void settle();
  // Calls f(instruction, retirements) for each listed entry's retirements not yet
  // added to the counters (what settle() would add), without settling.
  template <class F>
  void for_each_pending(F&& f) const {
    for (const Entry* e : listed_)
      if (e->executions) f(e->insn, e->executions);
  }

  // ---- successor links ----
  // The key of links made now in fetch context `context`, the CPU's number for that
  // context (CS, CPL, the TLB's state; the CPU never gives two contexts the same
  // number). A link stays valid while the key stays the same: its link stamp part
  // changes when an entry is replaced or retired, so that a link always names the
  // entry a full look-up would find in the context it was made in.
  u64 link_key(u32 context) const { return (u64{link_stamp_} << 32) | context; }
  // Makes every link stale.
  void unlink_all() { next_link_stamp(); }

  static constexpr u32 kEntries = 1u << 15;          // direct-mapped; 88 bytes each, ~2.8 MiB
  // Code blocks share a generation slot by block number mod 512Ki (32 MiB apart), which
  // only retires more than needed.
  static constexpr u32 kGenerationSlots = 1u << 19;

 private:
  static u32 index(u32 physical) { return (physical ^ (physical >> 15)) & (kEntries - 1); }
  // Makes every link stale. When the stamp wraps, old stamps could match again, so
  // every link is dropped first.
  void next_link_stamp() {
    if (++link_stamp_ != 0) [[likely]] return;
    if (link_table_) link_table_->drop_all_links();
    link_stamp_ = 1;
  }
  static u32 block_slot(u32 physical) { return (physical / kCodeBlockBytes) & (kGenerationSlots - 1); }
  // Whether an entry of the block before slot `slot` may reach into slot `slot`'s block
  // (set at insert(), cleared when that block is retired; page-crossing instructions
  // are not cached, so a page's first block has none).
  void set_reached_into(u32 slot) {
    slot &= kGenerationSlots - 1;
    reached_into_[slot / 64] |= u64{1} << (slot % 64);
  }
  bool take_reached_into(u32 slot) {
    u64& word = reached_into_[slot / 64];
    const u64 bit = u64{1} << (slot % 64);
    if (!(word & bit)) return false;
    word &= ~bit;
    return true;
  }

  // Adds `e`'s retirements to the counters (settle(), and before insert() reuses it).
  void fold(Entry& e) {
    if (!e.executions) return;
    const u64 n = e.executions, bytes = n * e.insn.length;
    counters_.opcodes[e.insn.opcode_index] += n;
    counters_.instructions_by_row[e.insn.row] += n;
    if (e.insn.is_memory()) counters_.memory_operand_instructions += n;
    counters_.code_bytes += bytes;
    counters_.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)] += bytes;
    e.executions = 0;
  }

  PhysicalBus& bus_;
  Counters& counters_;
  std::vector<Entry*> listed_;  // entries with listed set
  std::unique_ptr<Entry[]> entries_;
  std::unique_ptr<u32[]> generations_;   // by block_slot()
  std::unique_ptr<u64[]> reached_into_;  // a bit per generation slot (set_reached_into)
  u32 link_stamp_ = 1;  // links start out stale (next_stamp 0)
  Attention unwatched_;
  Attention* watch_ = &unwatched_;  // watch_retirements()
  LinkTable* link_table_ = nullptr;  // attach_link_table()
};

}  // namespace x86lab
