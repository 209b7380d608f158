// The set of 32-byte linear code lines fetched so far, for Counters::code_lines_32 and
// code_lines_64 (the code footprint). One bit per 32-byte line of the 4 GiB linear
// space (16 MiB of address space, allocated zeroed by the C library's calloc, so the
// host commits only the parts that cover fetched code: 4 KiB of bitmap per MiB of
// linear code). A 64-byte line is new exactly when neither of its 32-byte halves was
// seen, so one bitmap answers both counts.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

#include "trace/counters.h"
#include "trace/modeled_clock.h"
#include "trace/state_archive.h"
#include "trace/types.h"

namespace x86lab {

class CodeLineSet {
 public:
  CodeLineSet() : bits_(static_cast<u64*>(std::calloc(kWords, sizeof(u64)))) {
    if (!bits_) throw std::bad_alloc();
  }
  // Marks 32-byte line `line` (linear address >> 5). Returns 0 when it was seen
  // before, 1 when it is new but its 64-byte line was seen, 2 when both are new.
  unsigned insert(u32 line) {
    u64& word = bits_[line >> 6];
    const u64 bit = u64{1} << (line & 63), pair = u64{3} << (line & 62);
    if (word & bit) return 0;
    const unsigned result = (word & pair) ? 1 : 2;
    word |= bit;
    return result;
  }

  // Saves, checks or loads the set (a snapshot, trace/state_archive.h): the number of
  // non-zero 64-bit words, then each one's index (u32, ascending) and value (u64).
  void transfer_state(StateArchive& a) {
    u32 count = 0;
    if (a.saving())
      for (std::size_t i = 0; i < kWords; ++i) count += bits_[i] != 0;
    a.local(count, "code-line words", kWords);
    if (a.saving()) {
      for (u32 i = 0; i < kWords; ++i)
        if (bits_[i]) {
          a.field(i, "code-line word index");
          a.field(bits_[i], "code-line word");
        }
      return;
    }
    std::unique_ptr<u64[], Free> loaded;
    if (a.loading()) {
      loaded.reset(static_cast<u64*>(std::calloc(kWords, sizeof(u64))));
      if (!loaded) throw std::bad_alloc();
    }
    u32 previous = 0;
    for (u32 n = 0; n < count; ++n) {
      u32 index = 0;
      u64 word = 0;
      a.local(index, "code-line word index", kWords - 1);
      if (n && index <= previous) throw StateArchiveError("code-line word index: not ascending");
      previous = index;
      a.local(word, "code-line word");
      if (loaded) loaded[index] = word;
    }
    if (loaded) bits_ = std::move(loaded);
  }

 private:
  static constexpr std::size_t kWords = (std::size_t{1} << 27) / 64;
  struct Free {
    void operator()(u64* p) const { std::free(p); }
  };
  std::unique_ptr<u64[], Free> bits_;
};

// The code-footprint observer of the CPU (Counters::code_lines_32/64 and the code
// range's counts): it sees each retired instruction's linear address and length and
// keeps what it needs beside the decode cache, not in it: the line set above and, per
// decode-cache slot (DecodeCache::slot), the linear address at which that slot's
// instruction last retired outside the code range. A retirement at the same linear
// address adds nothing new (the set only grows, and the code range is fixed before the
// run), so it is skipped. Filled at decode: DecodeCache inserts reset the slot's mark
// (decoded()). The accelerator's successor links lead only to instructions whose lines
// are known at the link's address (known_at), so the linked run need not call it.
class CodeFootprint {
 public:
  static constexpr u32 kNone = 0xFFFFFFFFu;
  CodeFootprint(Counters& counters, ModeledClock& clock, std::size_t slots)
      : counters_(counters), clock_(clock), marks_(std::make_unique<u32[]>(slots)) {
    std::fill_n(marks_.get(), slots, kNone);
  }
  // Slot `slot` holds a newly decoded instruction: no retirement of it is known.
  void decoded(u32 slot) {
    if constexpr (kStatistics) marks_[slot] = kNone;
  }
  // True when the instruction in slot `slot` retired at `linear` outside the code
  // range before, so its lines are in the set.
  bool known_at(u32 slot, u32 linear) const { return marks_[slot] == linear; }
  // A retirement of the cached instruction in slot `slot`, `length` bytes at `linear`.
  void retired(u32 slot, u32 linear, unsigned length) { retired_at(marks_[slot], linear, length); }
  // A retirement of an instruction that is in no slot (decoded byte by byte).
  void retired_uncached(u32 linear, unsigned length) {
    u32 mark = kNone;
    retired_at(mark, linear, length);
  }
  // The line set's part of a snapshot (the marks are derived: a load empties the
  // decode cache, whose inserts reset them).
  void transfer_state(StateArchive& archive) { lines_.transfer_state(archive); }

 private:
  void retired_at(u32& mark, u32 linear, unsigned length) {
    if (mark == linear) [[likely]] return;
    if (counters_.in_code_range(linear)) [[unlikely]]
      counters_.count_code_range(linear, length);
    else
      mark = linear;
    insert_lines(linear, length);
  }
  // Counts the 32- and 64-byte lines the bytes occupy the first time each is fetched;
  // each new 32-byte line charges CostPart::NewCodeLine.
  void insert_lines(u32 linear, unsigned length) {
    const u32 first = linear >> 5, last = (linear + length - 1) >> 5;
    for (u32 line = first; line <= last; ++line) {
      const unsigned fresh = lines_.insert(line);
      if (fresh) {
        ++counters_.code_lines_32;
        clock_.charge(CostPart::NewCodeLine);
      }
      if (fresh == 2) ++counters_.code_lines_64;
    }
  }

  Counters& counters_;
  ModeledClock& clock_;
  CodeLineSet lines_;
  std::unique_ptr<u32[]> marks_;
};

}  // namespace x86lab
