// Exceptions as typed values (Intel SDM Vol. 3, "Interrupt and Exception Handling").
// A Fault is raised where it is detected, thrown, or for the faults an executor's own
// first check finds, handed to Cpu::signal_fault (no unwinding; docs/performance.md);
// either way the CPU run loop restores the instruction-start state and delivers it.
// Executors never catch it.
#pragma once
#include <optional>
#include <string_view>

#include "trace/types.h"

namespace x86lab {

enum class Vector : u8 {
  DE = 0,   // divide error
  DB = 1,   // debug
  NMI = 2,
  BP = 3,   // INT3
  OF = 4,   // INTO
  BR = 5,   // BOUND range exceeded
  UD = 6,   // invalid opcode
  NM = 7,   // device not available
  DF = 8,   // double fault
  TS = 10,  // invalid TSS
  NP = 11,  // segment not present
  SS = 12,  // stack-segment fault
  GP = 13,  // general protection
  PF = 14,  // page fault
  MF = 16,  // x87 floating-point error
  AC = 17,  // alignment check
};

// The SDM's classes for deciding between a second fault and #DF ("Interrupt 8 -
// Double Fault Exception": benign, contributory, page fault).
enum class FaultClass : u8 { Benign, Contributory, PageFault };

constexpr FaultClass class_of(u8 vector) {
  switch (vector) {
    case 0: case 10: case 11: case 12: case 13: return FaultClass::Contributory;
    case 14: return FaultClass::PageFault;
    default: return FaultClass::Benign;
  }
}

struct Fault {
  u8 vector;
  std::optional<u32> error_code;  // pushed for #DF #TS #NP #SS #GP #PF #AC
  std::string_view cause;         // the check that failed, for traces ("limit", "null SS", ...)
  u32 linear_address = 0;         // #PF only: the address CR2 receives
};

// Builders, so raise sites read like the SDM: throw gp(0, "limit").
inline Fault gp(u32 error_code, std::string_view cause) { return {13, error_code, cause}; }
inline Fault ss(u32 error_code, std::string_view cause) { return {12, error_code, cause}; }
inline Fault np(u32 error_code, std::string_view cause) { return {11, error_code, cause}; }
inline Fault ts(u32 error_code, std::string_view cause) { return {10, error_code, cause}; }
inline Fault ud(std::string_view cause) { return {6, std::nullopt, cause}; }
inline Fault de(std::string_view cause) { return {0, std::nullopt, cause}; }
inline Fault pf(u32 error_code, u32 linear, std::string_view cause) { return {14, error_code, cause, linear}; }

}  // namespace x86lab
