// Instruction fetch and the decode cache of one CPU (Intel SDM Vol. 2, "Instruction
// Format"; Vol. 3, "Self-Modifying Code"; docs/performance.md): the instruction at
// CS:EIP, decoded byte by byte through the code segment's limit and paging, or found
// in the decode cache by physical address. Each CPU owns one (Cpu::fetch_unit), so
// each has its own decode state; the instruction cycle (cpu/instruction_cycle.h) and
// the accelerator (cpu/linked_runner.h) fetch through it. It raises the fetch's
// faults (#GP for the CS limit, #PF) and holds no architectural state: clearing it
// only makes the next fetches decode again.
#pragma once
#include "cpu/decode_cache.h"
#include "cpu/instruction.h"
#include "segmentation/descriptor.h"

namespace x86lab {

class Cpu;

class FetchUnit {
 public:
  // Registers the decode cache with `bus` for writes into code; `counters` receives
  // its per-entry statistics (DecodeCache::settle).
  FetchUnit(PhysicalBus& bus, Counters& counters) : decode_cache_(bus, counters) {}
  FetchUnit(const FetchUnit&) = delete;
  FetchUnit& operator=(const FetchUnit&) = delete;

  // Decodes the instruction at CS:EIP of `cpu` byte by byte into `insn` (each byte
  // through the CS limit check, paging with execute intent and the bus's code fetch,
  // which marks the byte as code), filling `bytes` (15) when it is not null; sets the
  // instruction's cost, executor and resolved operands. Raises #GP(0) ("code segment
  // limit") and #PF as the fetch of the failing byte would.
  void decode_at(Cpu& cpu, u32 eip, Instruction& insn, u8* bytes);
  // The reference fetch (docs/performance.md): the decoded instruction at CS:EIP from
  // the decode cache, decoding and caching it on a miss; null when it must be decoded
  // byte by byte (decode_at: the first byte outside the limit, the instruction past
  // it or wrapping, or not cacheable). It has the same effects as decode_at: the
  // first byte's limit check and translation come first (a #GP or #PF there is the
  // one decode_at would raise); a hit counts its bytes as code fetches at its
  // retirement or fault; a repeated translation by decode_at hits the TLB the first
  // one filled and is counted in the TLB model once per page, as before.
  const Instruction* cached_instruction(Cpu& cpu, u32 eip);
  // The decode cache's look-up for the instruction at CS offset `offset` (EIP `eip`)
  // once its first byte passed the limit check of `cs` (CS's descriptor cache) and
  // was translated to `physical` (A20 applied): a hit needs every byte inside the
  // limit (and, for a 16-bit segment, no wrap at FFFFh); a miss decodes and caches.
  // Null: decode_at must decode it byte by byte.
  [[gnu::always_inline]] const Instruction* look_up(Cpu& cpu, const DescriptorCache& cs, u32 eip, u32 offset,
                                                    u32 physical);

  // The executing instruction comes from `entry` (its retirement is counted there).
  const Instruction& use_entry(DecodeCache::Entry& entry) {
    current_entry_ = &entry;
    return entry.insn;
  }
  // The executing instruction's entry, or null: set when the fetch completes, and
  // cleared (forget_entry) by every fetch step that can fault before that (the
  // translation, decode_at, the code breakpoint check), so a fault finds here only an
  // instruction that was fetched from the entry (InstructionCycle::abort).
  DecodeCache::Entry* current_entry() const { return current_entry_; }
  void forget_entry() { current_entry_ = nullptr; }
  // The instruction being decoded outside the cache (decode_at's usual target).
  Instruction& scratch() { return scratch_; }
  // The physical address (A20 applied) of the first byte decode_at fetched.
  u32 decoded_physical() const { return decoded_physical_; }

  DecodeCache& decode_cache() { return decode_cache_; }
  const DecodeCache& decode_cache() const { return decode_cache_; }

 private:
  // The miss path of look_up (out of line, so that the hit path stays short).
  [[gnu::noinline]] const Instruction* decode_and_cache(Cpu& cpu, u32 eip, u32 offset, u32 physical);

  DecodeCache decode_cache_;  // decoded instructions by physical address (cpu/decode_cache.h)
  Instruction scratch_;
  u32 decoded_physical_ = 0;
  DecodeCache::Entry* current_entry_ = nullptr;
};

[[gnu::always_inline]] inline const Instruction* FetchUnit::look_up(Cpu& cpu, const DescriptorCache& cs, u32 eip,
                                                                  u32 offset, u32 physical) {
  if (DecodeCache::Entry* entry = decode_cache_.find_entry(physical, cs.db)) [[likely]] {
    const u32 last = offset + entry->insn.length - 1;
    if (last < offset || last > cs.valid_max || (!cs.db && last > 0xFFFF)) [[unlikely]] return nullptr;
    decode_cache_.list(*entry);
    return &use_entry(*entry);
  }
  return decode_and_cache(cpu, eip, offset, physical);
}

}  // namespace x86lab
