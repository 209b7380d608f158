// EFLAGS bits (Intel SDM Vol. 1, "EFLAGS Register").
#pragma once
#include "trace/types.h"

namespace x86lab::flag {
inline constexpr u32 CF = 1u << 0;
inline constexpr u32 Reserved1 = 1u << 1;  // always reads as 1
inline constexpr u32 PF = 1u << 2;
inline constexpr u32 AF = 1u << 4;
inline constexpr u32 ZF = 1u << 6;
inline constexpr u32 SF = 1u << 7;
inline constexpr u32 TF = 1u << 8;
inline constexpr u32 IF = 1u << 9;
inline constexpr u32 DF = 1u << 10;
inline constexpr u32 OF = 1u << 11;
inline constexpr u32 IOPL = 3u << 12;
inline constexpr u32 NT = 1u << 14;
inline constexpr u32 RF = 1u << 16;
inline constexpr u32 VM = 1u << 17;
inline constexpr u32 AC = 1u << 18;
inline constexpr u32 VIF = 1u << 19;
inline constexpr u32 VIP = 1u << 20;
inline constexpr u32 ID = 1u << 21;

inline constexpr u32 kStatus = CF | PF | AF | ZF | SF | OF;          // the six arithmetic flags
inline constexpr u32 kStatusNoCarry = PF | AF | ZF | SF | OF;        // INC/DEC leave CF alone
inline constexpr u32 kLogic = kStatus;                               // AND/OR/XOR/TEST write all six
// Bits software can ever set on a P6 (ID, VIP, VIF, AC, VM, RF, NT, IOPL, OF..CF).
inline constexpr u32 kImplemented = 0x003F7FD5u;
}  // namespace x86lab::flag
