// The physical address space of a PC: RAM, ROM regions, memory-mapped devices and
// open bus, with the A20 gate. Every access carries an AccessKind; locked
// read-modify-writes have their own primitive (Intel SDM Vol. 3, "Locked Atomic
// Operations"). Addresses are 32-bit physical; sizes are in bytes.
#pragma once
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mmu/bus_device.h"
#include "trace/access_kind.h"
#include "trace/counters.h"
#include "trace/modeled_clock.h"
#include "trace/types.h"

namespace x86lab {

class Tlb;

// Told when a physical page that held fetched instructions is written (by the CPU,
// a device or the debugger), so that instructions decoded from it can be dropped
// (Intel SDM Vol. 3, "Self-Modifying Code": the check is by physical address).
class CodeWriteListener {
 public:
  virtual ~CodeWriteListener() = default;
  // `page` is the physical page number (address >> 12). Called once per page until
  // code is fetched from it again.
  virtual void code_page_written(u32 page) = 0;
};

// What drives the A20 gate. On PIIX-class chipsets the gate is open when either
// the keyboard controller's A20 output or port 92h bit 1 is set (the chipset ORs
// them: "ALT_A20_GATE ... ORed with the A20GATE input").
enum class A20Source : u8 { KeyboardController = 0, Port92 = 1 };

class PhysicalBus {
 public:
  static constexpr u32 kPageBytes = 4096;
  static constexpr u32 kPageCount = 1u << 20;  // 4 GiB of 4 KiB pages

  // RAM of `ram_bytes` (a multiple of 4 KiB, at most 3.5 GiB) starting at physical 0.
  // Counters are incremented per access kind, open-bus access and locked access.
  PhysicalBus(u32 ram_bytes, Counters& counters);

  u32 ram_bytes() const { return ram_bytes_; }
  // The RAM itself, for harnesses that reset a machine between runs (tests/fuzz):
  // writes through it bypass counters, A20 and the self-modifying-code check.
  std::span<u8> ram() { return {ram_.get(), ram_bytes_}; }
  Counters& counters() { return counters_; }
  // The modeled clock the bus charges its locked cycles to (trace/modeled_clock.h):
  // the attached CPU's (Cpu owns it), or one of the bus's own while none is attached.
  ModeledClock& clock() { return *clock_; }
  // Attaches `clock` (a CPU's), or with null the bus's own again.
  void attach_clock(ModeledClock* clock) { clock_ = clock ? clock : &own_clock_; }

  // Maps a read-only copy of `image` (size a multiple of 4 KiB) at `base`.
  // Later mappings of the same pages replace earlier ones.
  void map_rom(u32 base, std::span<const u8> image);
  // Maps `size` bytes (a multiple of 4 KiB) at `base` to `device`, replacing RAM there.
  void map_mmio(u32 base, u32 size, BusDevice* device);

  // A20 gate: when closed, physical address bit 20 reads as 0 (1 MiB wraparound).
  // Each source drives its own input; the gate is open when any input is set. At
  // power-on the keyboard controller's output is set (its port pins reset high).
  void set_a20(A20Source source, bool enabled) {
    const u8 bit = static_cast<u8>(1u << static_cast<unsigned>(source));
    set_a20_inputs(static_cast<u8>(enabled ? (a20_inputs_ | bit) : (a20_inputs_ & ~bit)));
  }
  // Sets every input at once (loaders and tests forcing the gate).
  void set_a20(bool enabled) { set_a20_inputs(enabled ? 0x3 : 0); }
  bool a20() const { return a20_mask_ == 0xFFFFFFFFu; }

  template <class T>
  T read(u32 address, AccessKind kind) {
    counters_.count_access(kind);
    address &= a20_mask_;
    const u32 in_page = address & (kPageBytes - 1);
    if (const u8* page = read_pages_[address >> 12]; page && in_page <= kPageBytes - sizeof(T)) {
      T value;
      std::memcpy(&value, page + in_page, sizeof(T));
      return value;
    }
    return static_cast<T>(read_slow(address, sizeof(T)));
  }

  // Instruction bytes: a read that also marks the page as holding code, so that a
  // later write into it reaches the CodeWriteListener.
  template <class T>
  T fetch(u32 address) {
    const u32 page = (address & a20_mask_) >> 12;
    if (!(page_flags_[page] & kCodePage)) mark_code_page(page);
    return read<T>(address, AccessKind::CodeFetch);
  }

  // Writes to RAM pages that hold no fetched code go straight to host memory; all
  // others (code pages, ROM, MMIO, open bus) take the slow path.
  template <class T>
  void write(u32 address, T value, AccessKind kind) {
    counters_.count_access(kind);
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
    clock_->add_cost(clock_->costs.locked_access);  // the cost model's price of a locked cycle
    const T old = read<T>(address, kind);
    write<T>(address, static_cast<T>(modify(old)), kind);
    return old;
  }

  // Side-effect-free access for debuggers and loaders: no counters, no device
  // side effects (MMIO reads return 0xFF), ROM bytes can be poked. A poke into a
  // page holding code reaches the CodeWriteListener like any other write.
  u8 peek(u32 address) const;
  void poke(u32 address, u8 value);
  // Copies `bytes` to physical memory at `address` with poke semantics.
  void load(u32 address, std::span<const u8> bytes);

  // ---- host pointers for TLBs (Mmu's direct RAM and ROM accesses) ----
  // Where the frame holding physical `address` (A20 applied) is in host memory for
  // plain reads (RAM, ROM) and for plain writes (RAM that holds no fetched code), or
  // null where accesses must come through read()/write() (MMIO, open bus, ROM writes,
  // code pages). An access through a pointer must be counted with Counters::count_access,
  // as read() and write() count theirs.
  const u8* host_read_page(u32 address) const { return read_pages_[(address & a20_mask_) >> 12]; }
  u8* host_write_page(u32 address) const { return write_pages_[(address & a20_mask_) >> 12]; }
  // The TLBs holding such pointers: the bus revokes a write pointer when its page
  // becomes a code page, and every pointer when the memory map or the A20 gate changes.
  void attach_tlb(Tlb* tlb) { tlbs_.push_back(tlb); }
  void detach_tlb(Tlb* tlb) { std::erase(tlbs_, tlb); }

  // ---- self-modifying code ----
  void set_code_write_listener(CodeWriteListener* listener) { code_listener_ = listener; }
  // Further listeners (decode caches, one per CPU), told after the one set above.
  void add_code_write_listener(CodeWriteListener* listener) { extra_listeners_.push_back(listener); }
  void remove_code_write_listener(CodeWriteListener* listener) { std::erase(extra_listeners_, listener); }
  // The A20 gate as an address mask (bit 20 clear while the gate is closed).
  u32 a20_mask() const { return a20_mask_; }
  // True when physical page `page` is RAM or ROM that reads go to directly (not MMIO
  // or open bus): instruction bytes there change only through writes the code-page
  // marks see.
  bool has_host_page(u32 page) const { return read_pages_[page & (kPageCount - 1)] != nullptr; }
  // True while instructions fetched from physical page `page` (address >> 12) may
  // be cached: from the first fetch until the next write into the page.
  bool is_code_page(u32 page) const { return page_flags_[page & (kPageCount - 1)] & kCodePage; }
  // Incremented on every write into a code page; a decode cache may compare it
  // instead of registering a listener.
  u64 code_write_generation() const { return code_write_generation_; }

 private:
  struct MmioRegion {
    u32 base, size;
    BusDevice* device;
  };
  struct RomRegion {
    u32 base;
    std::unique_ptr<u8[]> bytes;
    u32 size;
  };
  // page_flags_ bits.
  static constexpr u8 kRamPage = 1 << 0;   // backed by writable RAM (not replaced by ROM or MMIO)
  static constexpr u8 kCodePage = 1 << 1;  // instructions were fetched from it since its last write

  void set_a20_inputs(u8 inputs) {
    const u32 mask = inputs ? 0xFFFFFFFFu : ~(1u << 20);
    a20_inputs_ = inputs;
    if (mask != a20_mask_) revoke_host_pages(nullptr);
    a20_mask_ = mask;
  }
  void revoke_host_pages(const u8* host_page);
  u64 read_slow(u32 address, unsigned size);
  void write_slow(u32 address, unsigned size, u64 value);
  u8 read_byte(u32 address);
  void write_byte(u32 address, u8 value);
  const MmioRegion* find_mmio(u32 address) const;
  u8* rom_byte(u32 address) const;
  u8* ram_page(u32 page) { return ram_.get() + std::size_t{page} * kPageBytes; }
  void mark_code_page(u32 page);
  // A write is about to change RAM page `page`: if it holds code, tell the listener
  // and give the page its fast write path back. (Writes to ROM change nothing.)
  void note_write(u32 page) {
    if ((page_flags_[page] & (kCodePage | kRamPage)) == (kCodePage | kRamPage)) code_page_written(page);
  }
  void code_page_written(u32 page);

  Counters& counters_;
  ModeledClock own_clock_;
  ModeledClock* clock_ = &own_clock_;
  u32 a20_mask_ = 0xFFFFFFFFu;
  u8 a20_inputs_ = 1u << static_cast<unsigned>(A20Source::KeyboardController);
  // Zeroed by calloc, which takes large blocks straight from the kernel: pages the
  // guest never touches take no host memory (--memory 3584 for a small ROM).
  struct FreeRam {
    void operator()(u8* ram) const { std::free(ram); }
  };
  std::unique_ptr<u8[], FreeRam> ram_;
  u32 ram_bytes_ = 0;
  std::vector<RomRegion> roms_;
  std::vector<MmioRegion> mmio_;
  std::vector<u8*> read_pages_;   // host pointer per page for plain RAM/ROM reads, or null
  std::vector<u8*> write_pages_;  // host pointer per page for plain RAM writes (not code pages), or null
  std::vector<u8> page_flags_;    // kRamPage | kCodePage per page
  std::vector<Tlb*> tlbs_;  // TLBs holding host pointers (attach_tlb)
  CodeWriteListener* code_listener_ = nullptr;
  std::vector<CodeWriteListener*> extra_listeners_;
  u64 code_write_generation_ = 0;
};

}  // namespace x86lab
