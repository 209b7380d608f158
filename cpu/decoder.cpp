// Decoding from a byte buffer, for tools and tests.
#include "cpu/decoder.h"

namespace x86lab {
namespace {
struct OutOfBytes {};
}  // namespace

bool decode_bytes(const u8* bytes, unsigned size, bool default32, Instruction& out) {
  try {
    decode([&](unsigned i) -> u8 {
      if (i >= size) throw OutOfBytes{};
      return bytes[i];
    }, default32, out);
    return true;
  } catch (const OutOfBytes&) {
    return false;
  }
}

}  // namespace x86lab
