// The set of 32-byte linear code lines fetched so far, for Counters::code_lines_32 and
// code_lines_64 (the code footprint). One bit per 32-byte line of the 4 GiB linear
// space (16 MiB of address space, allocated zeroed by the C library's calloc, so the
// host commits only the parts that cover fetched code: 4 KiB of bitmap per MiB of
// linear code). A 64-byte line is new exactly when neither of its 32-byte halves was
// seen, so one bitmap answers both counts.
#pragma once
#include <cstdlib>
#include <memory>
#include <new>

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

}  // namespace x86lab
