// A 128-bit unsigned integer for exact significand products, quotients and sums.
#pragma once

namespace x86lab::x87 {
__extension__ typedef unsigned __int128 u128;
}  // namespace x86lab::x87
