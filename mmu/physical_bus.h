// The physical address space of a PC: RAM, ROM regions, memory-mapped devices and
// open bus, with the A20 gate. Every access carries an AccessKind; locked
// read-modify-writes have their own primitive (Intel SDM Vol. 3, "Locked Atomic
// Operations"). Addresses are 32-bit physical; sizes are in bytes.
#pragma once
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trace/access_kind.h"
#include "trace/counters.h"
#include "trace/types.h"

namespace x86lab {

// A device that answers physical memory accesses in a region (VGA, APIC, ...).
// `offset` is relative to the region base; `size` is 1, 2 or 4 bytes.
class MmioDevice {
 public:
  virtual ~MmioDevice() = default;
  virtual u32 mmio_read(u32 offset, unsigned size) = 0;
  virtual void mmio_write(u32 offset, unsigned size, u32 value) = 0;
};

class PhysicalBus {
 public:
  static constexpr u32 kPageBytes = 4096;
  static constexpr u32 kPageCount = 1u << 20;  // 4 GiB of 4 KiB pages

  // RAM of `ram_bytes` (a multiple of 4 KiB, at most 3.5 GiB) starting at physical 0.
  // Counters are incremented per access kind, open-bus access and locked access.
  PhysicalBus(u32 ram_bytes, Counters& counters);

  u32 ram_bytes() const { return static_cast<u32>(ram_.size()); }

  // Maps a read-only copy of `image` (size a multiple of 4 KiB) at `base`.
  // Later mappings of the same pages replace earlier ones.
  void map_rom(u32 base, std::span<const u8> image);
  // Maps `size` bytes (a multiple of 4 KiB) at `base` to `device`, replacing RAM there.
  void map_mmio(u32 base, u32 size, MmioDevice* device);

  // A20 gate: when false, physical address bit 20 reads as 0 (1 MiB wraparound).
  void set_a20(bool enabled) { a20_mask_ = enabled ? 0xFFFFFFFFu : ~(1u << 20); }
  bool a20() const { return a20_mask_ == 0xFFFFFFFFu; }

  template <class T>
  T read(u32 address, AccessKind kind) {
    count(kind);
    address &= a20_mask_;
    const u32 in_page = address & (kPageBytes - 1);
    if (const u8* page = read_pages_[address >> 12]; page && in_page <= kPageBytes - sizeof(T)) {
      T value;
      std::memcpy(&value, page + in_page, sizeof(T));
      return value;
    }
    return static_cast<T>(read_slow(address, sizeof(T)));
  }

  template <class T>
  void write(u32 address, T value, AccessKind kind) {
    count(kind);
    address &= a20_mask_;
    const u32 in_page = address & (kPageBytes - 1);
    if (u8* page = write_pages_[address >> 12]; page && in_page <= kPageBytes - sizeof(T)) {
      std::memcpy(page + in_page, &value, sizeof(T));
      return;
    }
    write_slow(address, sizeof(T), value);
  }

  // A locked read-modify-write: reads T at `address`, writes `modify(old)` and returns
  // the old value, as one bus-locked operation tagged with `kind` (counted in
  // Counters::locked_by_kind). The write happens even when the value is unchanged,
  // as on hardware.
  template <class T, class Modify>
  T locked_rmw(u32 address, AccessKind kind, Modify modify) {
    ++counters_.locked_by_kind[static_cast<std::size_t>(kind)];
    const T old = read<T>(address, kind);
    write<T>(address, static_cast<T>(modify(old)), kind);
    return old;
  }

  // Side-effect-free access for debuggers and loaders: no counters, no device
  // side effects (MMIO reads return 0xFF), ROM bytes can be poked.
  u8 peek(u32 address) const;
  void poke(u32 address, u8 value);
  // Copies `bytes` to physical memory at `address` with poke semantics.
  void load(u32 address, std::span<const u8> bytes);

 private:
  struct MmioRegion {
    u32 base, size;
    MmioDevice* device;
  };
  struct RomRegion {
    u32 base;
    std::unique_ptr<u8[]> bytes;
    u32 size;
  };

  void count(AccessKind kind) { ++counters_.accesses_by_kind[static_cast<std::size_t>(kind)]; }
  u32 read_slow(u32 address, unsigned size);
  void write_slow(u32 address, unsigned size, u32 value);
  u8 read_byte(u32 address);
  void write_byte(u32 address, u8 value);
  const MmioRegion* find_mmio(u32 address) const;
  u8* rom_byte(u32 address) const;

  Counters& counters_;
  u32 a20_mask_ = 0xFFFFFFFFu;
  std::vector<u8> ram_;
  std::vector<RomRegion> roms_;
  std::vector<MmioRegion> mmio_;
  std::vector<u8*> read_pages_;   // host pointer per page for plain RAM/ROM reads, or null
  std::vector<u8*> write_pages_;  // host pointer per page for plain RAM writes, or null
};

}  // namespace x86lab
