// The data accesses of the Cpu (declared in cpu/cpu.h, "memory through a segment" and
// "stack"): reads and writes through a segment's descriptor cache and the MMU, their
// inline direct path, the checked paths that raise or signal #GP(0), #SS(0), #PF and
// #AC, locked read-modify-writes, and push/pop. Included at the end of cpu/cpu.h; do
// not include it directly.
#pragma once
#include <cstring>
#include "cpu/cpu.h"

namespace x86lab {

// ---- read and write: faults thrown ----

template <class T>
[[gnu::always_inline]] inline T Cpu::read(u8 segment, u32 offset, AccessKind kind) {
  if (const u8* host = direct_data<AccessIntent::Read>(segment, offset, sizeof(T), kind)) [[likely]] {
    T value;
    std::memcpy(&value, host, sizeof(T));
    return value;
  }
  return read_checked<T>(segment, offset, kind);
}

template <class T>
[[gnu::always_inline]] inline void Cpu::write(u8 segment, u32 offset, T value, AccessKind kind) {
  if (u8* host = direct_data<AccessIntent::Write>(segment, offset, sizeof(T), kind)) [[likely]] {
    std::memcpy(host, &value, sizeof(T));
    return;
  }
  write_checked<T>(segment, offset, value, kind);
}

template <class T>
[[gnu::noinline]] T Cpu::read_checked(u8 segment, u32 offset, AccessKind kind) {
  const u32 linear = checked_linear(state.segments[segment], offset, sizeof(T), false,
                                    segment == SS, protected_mode());
  if (access_checks_) [[unlikely]] {
    check_access(linear, sizeof(T), false);
    const T value = mmu_.read<T>(linear, kind, user());
    observe(segment, offset, sizeof(T), false);
    return value;
  }
  return mmu_.read<T>(linear, kind, user());
}

template <class T>
[[gnu::noinline]] void Cpu::write_checked(u8 segment, u32 offset, T value, AccessKind kind) {
  const u32 linear = checked_linear(state.segments[segment], offset, sizeof(T), true,
                                    segment == SS, protected_mode());
  if (access_checks_) [[unlikely]] check_access(linear, sizeof(T), true);
  mmu_.write<T>(linear, value, kind, user());
  if (access_checks_) [[unlikely]] observe(segment, offset, sizeof(T), true);
}

// ---- try_read and try_write: faults signalled (signal_fault), not thrown ----

template <class T>
[[gnu::always_inline]] inline bool Cpu::try_read(u8 segment, u32 offset, T& value, AccessKind kind) {
  if (const u8* host = direct_data<AccessIntent::Read>(segment, offset, sizeof(T), kind)) [[likely]] {
    std::memcpy(&value, host, sizeof(T));
    return true;
  }
  return try_read_checked<T>(segment, offset, value, kind);
}

template <class T>
[[gnu::always_inline]] inline bool Cpu::try_write(u8 segment, u32 offset, T value, AccessKind kind) {
  if (u8* host = direct_data<AccessIntent::Write>(segment, offset, sizeof(T), kind)) [[likely]] {
    std::memcpy(host, &value, sizeof(T));
    return true;
  }
  return try_write_checked<T>(segment, offset, value, kind);
}

template <class T>
[[gnu::always_inline]] inline T Cpu::read_or_signal(u8 segment, u32 offset, AccessKind kind) {
  if (const u8* host = direct_data<AccessIntent::Read>(segment, offset, sizeof(T), kind)) [[likely]] {
    T value;
    std::memcpy(&value, host, sizeof(T));
    return value;
  }
  return read_or_signal_checked<T>(segment, offset, kind);
}

template <class T>
[[gnu::noinline]] T Cpu::read_or_signal_checked(u8 segment, u32 offset, AccessKind kind) {
  T value{};
  (void)try_read_checked<T>(segment, offset, value, kind);
  return value;
}

template <class T>
[[gnu::noinline]] bool Cpu::try_read_checked(u8 segment, u32 offset, T& value, AccessKind kind) {
  const SegmentRegister& reg = state.segments[segment];
  if (auto fault = segment_access_fault(reg, offset, sizeof(T), false, segment == SS, protected_mode())) [[unlikely]]
    return signal_access_fault(*fault);
  const u32 linear = reg.cache.base + offset;
  if (access_checks_) [[unlikely]] check_access(linear, sizeof(T), false);
  if (!mmu_.try_read<T>(linear, kind, user(), value)) return signal_access_fault(mmu_.fault());
  if (access_checks_) [[unlikely]] observe(segment, offset, sizeof(T), false);
  return true;
}

template <class T>
[[gnu::noinline]] bool Cpu::try_write_checked(u8 segment, u32 offset, T value, AccessKind kind) {
  const SegmentRegister& reg = state.segments[segment];
  if (auto fault = segment_access_fault(reg, offset, sizeof(T), true, segment == SS, protected_mode())) [[unlikely]]
    return signal_access_fault(*fault);
  const u32 linear = reg.cache.base + offset;
  if (access_checks_) [[unlikely]] check_access(linear, sizeof(T), true);
  if (!mmu_.try_write<T>(linear, value, kind, user())) return signal_access_fault(mmu_.fault());
  if (access_checks_) [[unlikely]] observe(segment, offset, sizeof(T), true);
  return true;
}

// ---- the direct path, write checks, locked accesses ----

template <AccessIntent kIntent>
[[gnu::always_inline]] inline u8* Cpu::direct_data(u8 segment, u32 offset, unsigned size, AccessKind kind) {
  const DescriptorCache& cache = state.segments[segment].cache;
  const bool allowed = cache.usable && (kIntent == AccessIntent::Write ? cache.writable() : cache.readable());
  if (!allowed || !cache.contains(offset, size)) return nullptr;
  if (access_checks_) [[unlikely]]
    if (data_breakpoints_ || ((state.eflags & flag::AC) && state.cpl == 3) || segment == observed_segment_) return nullptr;
  return mmu_.direct_pointer<kIntent>(cache.base + offset, size, user(), kind);
}

inline void Cpu::check_write(u8 segment, u32 offset, unsigned size) {
  const u32 linear = checked_linear(state.segments[segment], offset, size, true, segment == SS, protected_mode());
  mmu_.translate(linear, AccessIntent::Write, user());
  if ((linear & 0xFFF) + size > 0x1000) mmu_.translate((linear | 0xFFF) + 1, AccessIntent::Write, user());
}

template <class T, class Modify>
inline T Cpu::locked_rmw(u8 segment, u32 offset, AccessKind kind, Modify modify) {
  const u32 linear = checked_linear(state.segments[segment], offset, sizeof(T), true,
                                    segment == SS, protected_mode());
  if (access_checks_) [[unlikely]] {
    check_access(linear, sizeof(T), true);
    const T old = mmu_.locked_rmw<T>(linear, kind, user(), modify);
    observe(segment, offset, sizeof(T), true);
    return old;
  }
  return mmu_.locked_rmw<T>(linear, kind, user(), modify);
}

[[gnu::cold]] inline bool Cpu::signal_access_fault(const Fault& fault) {
  signal_fault(fault);
  return false;
}

// ---- stack ----

template <class T>
inline void Cpu::push(T value) {
  const u32 new_esp = stack_pointer_plus(static_cast<u32>(-static_cast<i32>(sizeof(T))));
  write<T>(SS, stack32() ? new_esp : new_esp & 0xFFFF, value, AccessKind::Stack);
  state.gpr[ESP] = new_esp;
}

template <class T>
inline T Cpu::pop() {
  const T value = read<T>(SS, stack_pointer(), AccessKind::Stack);
  state.gpr[ESP] = stack_pointer_plus(sizeof(T));
  return value;
}

template <class T>
inline T Cpu::peek_stack(u32 depth) {
  const u32 offset = stack32() ? state.gpr[ESP] + depth : (state.gpr[ESP] + depth) & 0xFFFF;
  return read<T>(SS, offset, AccessKind::Stack);
}

}  // namespace x86lab
