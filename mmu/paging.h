// Linear-to-physical translation: 2-level paging with 4 KiB and 4 MiB (PSE) pages,
// global pages, U/S and R/W checks with CR0.WP, Accessed/Dirty bits set by locked
// read-modify-writes, and #PF with the SDM's error code (Intel SDM Vol. 3, "Paging").
// With CR0.PG clear, linear addresses are physical.
#pragma once
#include "mmu/physical_bus.h"
#include "trace/fault.h"

namespace x86lab {

enum class AccessIntent : u8 { Read, Write, Execute };

// The paging-related bits of CR0, CR3 and CR4, copied here by the CPU on every write.
struct PagingControl {
  bool pg = false;   // CR0.PG
  bool wp = false;   // CR0.WP
  bool pse = false;  // CR4.PSE
  bool pge = false;  // CR4.PGE
  u32 cr3 = 0;
};

class Mmu {
 public:
  explicit Mmu(PhysicalBus& bus) : bus_(bus) {}

  PhysicalBus& bus() { return bus_; }
  const PagingControl& control() const { return control_; }
  void set_control(const PagingControl& control) { control_ = control; }

  // Translates one linear byte address for an access by `user` code (CPL 3).
  // Raises #PF (error code P, W/R, U/S bits) and sets A (and D on writes) bits.
  u32 translate(u32 linear, AccessIntent intent, bool user) {
    if (!control_.pg) return linear;
    return walk(linear, intent, user);
  }

  // Reads or writes T at a linear address. An access that crosses a 4 KiB page
  // boundary translates both pages before touching memory.
  template <class T>
  T read(u32 linear, AccessKind kind, bool user, AccessIntent intent = AccessIntent::Read) {
    if (!crosses_page(linear, sizeof(T))) return bus_.read<T>(translate(linear, intent, user), kind);
    const u32 first = translate(linear, intent, user);
    const u32 second = translate((linear | 0xFFF) + 1, intent, user);
    u32 value = 0;
    for (unsigned i = 0; i < sizeof(T); ++i) {
      const u32 byte_linear = linear + i;
      const u32 physical = ((byte_linear & ~0xFFFu) == (linear & ~0xFFFu)) ? first + i : second + (byte_linear & 0xFFF);
      value |= u32{bus_.read<u8>(physical, kind)} << (8 * i);
    }
    return static_cast<T>(value);
  }

  template <class T>
  void write(u32 linear, T value, AccessKind kind, bool user) {
    if (!crosses_page(linear, sizeof(T))) return bus_.write<T>(translate(linear, AccessIntent::Write, user), value, kind);
    const u32 first = translate(linear, AccessIntent::Write, user);
    const u32 second = translate((linear | 0xFFF) + 1, AccessIntent::Write, user);
    for (unsigned i = 0; i < sizeof(T); ++i) {
      const u32 byte_linear = linear + i;
      const u32 physical = ((byte_linear & ~0xFFFu) == (linear & ~0xFFFu)) ? first + i : second + (byte_linear & 0xFFF);
      bus_.write<u8>(physical, static_cast<u8>(u64{value} >> (8 * i)), kind);
    }
  }

  // A locked read-modify-write at a linear address (see PhysicalBus::locked_rmw).
  // A locked access that crosses a page is split (a split lock on hardware).
  template <class T, class Modify>
  T locked_rmw(u32 linear, AccessKind kind, bool user, Modify modify) {
    if (!crosses_page(linear, sizeof(T)))
      return bus_.locked_rmw<T>(translate(linear, AccessIntent::Write, user), kind, modify);
    const T old = read<T>(linear, kind, user, AccessIntent::Write);
    write<T>(linear, static_cast<T>(modify(old)), kind, user);
    return old;
  }

 private:
  static bool crosses_page(u32 linear, unsigned size) { return (linear & 0xFFF) + size > 0x1000; }
  u32 walk(u32 linear, AccessIntent intent, bool user);

  PhysicalBus& bus_;
  PagingControl control_;
};

}  // namespace x86lab
