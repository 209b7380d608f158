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
#include "trace/cache_model.h"
#include "trace/counters.h"
#include "trace/modeled_clock.h"
#include "trace/types.h"

namespace x86lab {

class StateArchive;

class Tlb;

// Told when bytes that were fetched as instructions are written (by the CPU, a device,
// a loader or the debugger), so that instructions decoded from them can be dropped
// (Intel SDM Vol. 3, "Self-Modifying Code" and "Cross-Modifying Code": the check is by
// physical address, so a write through any linear alias counts).
class CodeWriteListener {
 public:
  virtual ~CodeWriteListener() = default;
  // A write reached fetched instruction bytes in physical page `page` (address >> 12):
  // bit n of `blocks` stands for the code block at page offset n * kCodeBlockBytes
  // whose fetched bytes were written. Every instruction with a byte in those blocks may
  // have changed. Reported once per block until code is fetched from it again.
  virtual void code_blocks_written(u32 page, u64 blocks) = 0;
};
// The grain at which writes retire decoded instructions: a write that touches no
// fetched instruction byte retires nothing; one that does retires the blocks it
// touched (4 KiB pages hold 64 of them, one bit each in a u64).
inline constexpr u32 kCodeBlockBytes = 64;

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
  // The L1 cache model that observes data accesses (trace/cache_model.h): the
  // attached CPU's while its cache model is on (Cpu::set_cache_model, which also turns
  // off the Mmu's direct paths, so every data access comes here), else null: then
  // read() and write() do nothing for it but test the pointer.
  CacheObserver* caches() const { return caches_; }
  void attach_caches(CacheObserver* caches) { caches_ = caches; }
  // Tells the cache model of a data access of `size` bytes at physical `address` (A20
  // applied) of `kind`: any kind but instruction bytes, to RAM or ROM (MMIO and open
  // bus are not cached).
  void observe_data(u32 address, unsigned size, AccessKind kind) {
    if constexpr (kStatistics)
      if (caches_) [[unlikely]]
        if (kind != AccessKind::CodeFetch && read_pages_[address >> 12]) caches_->data(address, size);
  }

  // Maps a read-only copy of `image` (size a multiple of 4 KiB) at `base`.
  // Later mappings of the same pages replace earlier ones.
  void map_rom(u32 base, std::span<const u8> image);
  // Maps `size` bytes (a multiple of 4 KiB) at `base` to `device`, replacing RAM there.
  void map_mmio(u32 base, u32 size, BusDevice* device);
  // Removes every region mapped to `device`: its pages become again what lies beneath
  // (RAM below ram_bytes(), else the newest ROM there, else open bus), and every host
  // pointer the TLBs hold is revoked (a relocated local APIC page, IA32_APIC_BASE).
  void unmap_mmio(BusDevice* device);

  // Shadow RAM (a chipset's programmable attribute map, i440FX PMC data sheet "PAM0-PAM6"):
  // routes the reads and the writes of the pages from `base` for `size` bytes
  // (multiples of 4 KiB) separately, each either to RAM or to what lies beneath it
  // (an MMIO region mapped there, else the newest ROM mapped there, else open bus:
  // reads FFh, writes dropped). Pages beyond RAM always go beneath. A page whose
  // routing changes retires its fetched code (what reads see may have changed) and
  // every host pointer the TLBs hold is revoked. Pages never routed keep the map's
  // plain rule (a ROM or MMIO mapping replaces RAM).
  void route_shadow(u32 base, u32 size, bool reads_to_ram, bool writes_to_ram);
  // Whether page `page`'s reads / writes go to RAM (for tests and the debugger).
  bool reads_ram(u32 page) const { return page_flags_[page & (kPageCount - 1)] & (kRamPage | kRamReadOnly); }
  bool writes_ram(u32 page) const { return page_flags_[page & (kPageCount - 1)] & (kRamPage | kRamWriteOnly); }

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
  // The A20 gate's inputs, bit n = A20Source n enabled (a machine snapshot).
  u8 a20_inputs() const { return a20_inputs_; }

  template <class T>
  T read(u32 address, AccessKind kind) {
    counters_.count_access(kind);
    address &= a20_mask_;
    observe_data(address, sizeof(T), kind);
    const u32 in_page = address & (kPageBytes - 1);
    if (const u8* page = read_pages_[address >> 12]; page && in_page <= kPageBytes - sizeof(T)) {
      T value;
      std::memcpy(&value, page + in_page, sizeof(T));
      return value;
    }
    return static_cast<T>(read_slow(address, sizeof(T)));
  }

  // Instruction bytes: a read that also marks the bytes as fetched code (and their
  // page as a code page), so that a later write into them reaches the
  // CodeWriteListeners.
  template <class T>
  T fetch(u32 address) {
    for (u32 i = 0; i < sizeof(T); ++i) {
      const u32 byte = (address + i) & a20_mask_;
      if (!is_code_byte(byte)) mark_code_byte(byte);
    }
    return read<T>(address, AccessKind::CodeFetch);
  }

  // Writes to RAM pages that hold no fetched code go straight to host memory; all
  // others (code pages, ROM, MMIO, open bus) take the slow path, where a write into a
  // code page retires decoded instructions only if it touches fetched bytes.
  template <class T>
  void write(u32 address, T value, AccessKind kind) {
    counters_.count_access(kind);
    address &= a20_mask_;
    observe_data(address, sizeof(T), kind);
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
    clock_->charge(CostPart::LockedAccess);  // the cost model's price of a locked cycle
    const T old = read<T>(address, kind);
    write<T>(address, static_cast<T>(modify(old)), kind);
    return old;
  }

  // Side-effect-free access for debuggers and loaders: no counters, no device
  // side effects (MMIO reads return 0xFF unless the device has memory behind its
  // BusDevice::debug_read, video memory), ROM bytes can be poked. A poke into
  // fetched instruction bytes reaches the CodeWriteListeners like any other write.
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
  // True while physical page `page` (address >> 12) holds fetched instruction bytes
  // that no write has touched since (its writes then take the slow path): from the
  // first fetch until writes have reached every code block of it.
  bool is_code_page(u32 page) const { return page_flags_[page & (kPageCount - 1)] & kCodePage; }
  // True when the byte at physical `address` (A20 applied) was fetched as an
  // instruction byte and no write has reached its code block since.
  bool is_code_byte(u32 address) const {
    const u32 page = address >> 12, offset = address & (kPageBytes - 1);
    return (page_flags_[page] & kCodePage) &&
           (code_marks_[code_marks_of_[page]].bytes[offset / kCodeBlockBytes] >> (offset % kCodeBlockBytes) & 1);
  }
  // Incremented on every write that retires code blocks; a decode cache may compare it
  // instead of registering a listener.
  u64 code_write_generation() const { return code_write_generation_; }
  // Retires every fetched byte's code block as if it had been written: for harnesses
  // that change RAM behind the bus (ram(); tests/fuzz).
  void retire_all_code();
  // Moves which bytes hold fetched instructions into or out of a machine snapshot
  // (docs/snapshots.md): they decide which later writes count as
  // code-block-invalidations, so a continued run must have the saved ones. Loading
  // expects no marks (after retire_all_code) and revokes the code pages' host write
  // pointers, as a first fetch does.
  void transfer_code_marks(StateArchive& archive);

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
  static constexpr u8 kCodePage = 1 << 1;  // holds fetched instruction bytes (code_marks_of_ names them)
  // Shadow-routed pages (route_shadow) whose reads and writes go to different places:
  static constexpr u8 kRamReadOnly = 1 << 2;   // reads from RAM, writes beneath
  static constexpr u8 kRamWriteOnly = 1 << 3;  // writes to RAM, reads from beneath
  // route_shadow's per-page routing: kRouted | kRouteReads | kRouteWrites.
  static constexpr u8 kRouted = 1 << 0, kRouteReads = 1 << 1, kRouteWrites = 1 << 2;
  // The fetched instruction bytes of one code page: bit b of bytes[n] is the byte at
  // page offset n * kCodeBlockBytes + b, so bytes[n] is code block n.
  struct CodeMarks {
    u64 bytes[kPageBytes / kCodeBlockBytes] = {};
  };
  static_assert(kCodeBlockBytes == 64, "one u64 of marks per code block");

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
  // Sets page `page`'s host pointers and flags from the map: MMIO, else its shadow
  // routing (routes_), else RAM unless a ROM is mapped there. Retires its code first.
  // The caller revokes the TLBs' host pointers.
  void refresh_page(u32 page);
  u8* rom_byte(u32 address) const;
  u8* ram_page(u32 page) { return ram_.get() + std::size_t{page} * kPageBytes; }
  void mark_code_byte(u32 address);
  // The CodeMarks of `page`, made a code page first if it is not one.
  CodeMarks& code_marks_for(u32 page);
  // A write is about to change `size` bytes of RAM from `address` (inside one page):
  // if it touches fetched instruction bytes, their code blocks retire. (Writes to ROM
  // change nothing.)
  void note_write(u32 address, unsigned size) {
    if ((page_flags_[address >> 12] & (kCodePage | kRamPage)) == (kCodePage | kRamPage)) note_code_write(address, size);
  }
  void note_code_write(u32 address, unsigned size);
  // Retires code blocks `blocks` (bits as in CodeWriteListener) of code page `page`:
  // clears their marks, counts and reports them; a page left without marks gets its
  // fast write path back.
  void retire_code_blocks(u32 page, u64 blocks);
  // Retires every marked block of `page` (a remapped page).
  void retire_code_page(u32 page);

  Counters& counters_;
  ModeledClock own_clock_;
  ModeledClock* clock_ = &own_clock_;
  CacheObserver* caches_ = nullptr;
  u32 a20_mask_ = 0xFFFFFFFFu;
  u8 a20_inputs_ = 1u << static_cast<unsigned>(A20Source::KeyboardController);
  // Zeroed by calloc, which takes large blocks straight from the kernel: pages the
  // guest never touches take no host memory (--memory 3584 for a small ROM).
  struct FreeRam {
    void operator()(void* memory) const { std::free(memory); }
  };
  std::unique_ptr<u8[], FreeRam> ram_;
  u32 ram_bytes_ = 0;
  std::vector<RomRegion> roms_;
  std::vector<MmioRegion> mmio_;
  std::vector<u8*> read_pages_;   // host pointer per page for plain RAM/ROM reads, or null
  std::vector<u8*> write_pages_;  // host pointer per page for plain RAM writes (not code pages), or null
  std::vector<u8> page_flags_;    // kRamPage | kCodePage | kRamReadOnly | kRamWriteOnly per page
  std::vector<u8> routes_;        // per page: kRouted | kRouteReads | kRouteWrites (route_shadow), or 0
  // Per page, while it is a code page: its CodeMarks in code_marks_ (calloc'ed like
  // the RAM: untouched parts take no host memory). Released marks are reused.
  std::unique_ptr<u32[], FreeRam> code_marks_of_;
  std::vector<CodeMarks> code_marks_{1};  // [0]: no marks, for pages that are no code pages
  std::vector<u32> free_code_marks_;
  std::vector<Tlb*> tlbs_;  // TLBs holding host pointers (attach_tlb)
  CodeWriteListener* code_listener_ = nullptr;
  std::vector<CodeWriteListener*> extra_listeners_;
  u64 code_write_generation_ = 0;
};

}  // namespace x86lab
