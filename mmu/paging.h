// Linear-to-physical translation: 2-level paging with 4 KiB and 4 MiB (PSE) pages,
// global pages, U/S and R/W checks with CR0.WP, Accessed/Dirty bits set by locked
// read-modify-writes, #PF with the SDM's error code, and a TLB (Intel SDM Vol. 3,
// "Paging": "32-Bit Paging", "Accessed and Dirty Flags", "Page-Fault Exceptions",
// "Caching Translation Information"). With CR0.PG clear, linear addresses are physical.
#pragma once
#include <optional>

#include "mmu/physical_bus.h"
#include "mmu/tlb.h"
#include "mmu/tlb_model.h"
#include "trace/fault.h"
#include "trace/tracer.h"

namespace x86lab {

enum class AccessIntent : u8 { Read, Write, Execute };

// The paging-related bits of CR0, CR3 and CR4, copied here by the CPU on every write.
struct PagingControl {
  bool pg = false;   // CR0.PG (with CR0.PE)
  bool wp = false;   // CR0.WP
  bool pse = false;  // CR4.PSE
  bool pge = false;  // CR4.PGE
  u32 cr3 = 0;
};

class Mmu {
 public:
  explicit Mmu(PhysicalBus& bus, const TlbGeometry& geometry = kP6TlbGeometry)
      : bus_(bus), counters_(bus.counters()), model_(geometry, counters_, tracer_) {
    bus_.attach_tlb(&tlb_);
  }
  ~Mmu() { bus_.detach_tlb(&tlb_); }
  Mmu(const Mmu&) = delete;
  Mmu& operator=(const Mmu&) = delete;

  PhysicalBus& bus() { return bus_; }
  // The attached tracer, or null: memory, page-walk and TLB-miss events (and, through
  // Cpu::tracer, the CPU's) are produced only while one is set (Cpu::set_tracer).
  Tracer* tracer() const { return tracer_; }
  void set_tracer(Tracer* tracer) {
    tracer_ = tracer;
    update_direct();
  }
  // Whether the direct paths (direct_pointer, and read()/write() on a TLB hit) may
  // bypass the bus: not while the L1 cache model observes every data access at the bus
  // (Cpu::set_cache_model, PhysicalBus::attach_caches). On by default.
  void set_direct_access(bool allowed) {
    direct_allowed_ = allowed;
    update_direct();
  }
  const PagingControl& control() const { return control_; }
  // Takes new paging bits. As on the P6 family, a change of CR0.PG, CR4.PSE or
  // CR4.PGE flushes the whole TLB, global entries included; a new CR3 flushes the
  // non-global entries (as MOV CR3 and a task switch do).
  void set_control(const PagingControl& control);
  // The statistics model's TLB sizes (the CPU profile's); resets the model.
  void set_tlb_geometry(const TlbGeometry& geometry) {
    model_ = TlbModel(geometry, counters_, tracer_);
    model_marks_.clear_all();
    tlb_.note_change();
  }

  // Saves, checks or loads the TLB and its statistics model (a snapshot; the paging
  // bits come from the CPU's registers, Cpu::transfer_state). The model's marks are
  // rebuilt as accesses find the model's pages again.
  void transfer_state(StateArchive& archive) {
    tlb_.transfer_state(archive);
    model_.transfer_state(archive);
    if (archive.loading()) model_marks_.clear_all();
  }

  // ---- TLB invalidation (SDM "Invalidation of TLBs and Paging-Structure Caches") ----
  void invalidate_page(u32 linear);  // INVLPG
  void flush_non_global();           // MOV CR3, even with an unchanged value
  void flush_all();

  // Translates one linear byte address for an access by `user` code (CPL 3).
  // Raises #PF (error code P, W/R, U/S) and sets Accessed (and Dirty on writes).
  // A TLB hit needs the rights the access needs, and for a write a cached Dirty
  // flag; anything else walks the tables again.
  u32 translate(u32 linear, AccessIntent intent, bool user) {
    if (!control_.pg) return linear;
    if (TlbEntry* entry = tlb_hit(linear, intent, user)) {
      note_model(*entry, linear, intent);
      return entry->frame | (linear & 0xFFF);
    }
    return translate_miss_or_throw(linear, intent, user);
  }
  // translate() without the throw: false when the access faults, with the #PF in fault().
  [[nodiscard]] bool try_translate(u32 linear, AccessIntent intent, bool user, u32& physical) {
    if (!control_.pg) {
      physical = linear;
      return true;
    }
    if (TlbEntry* entry = tlb_hit(linear, intent, user)) {
      note_model(*entry, linear, intent);
      physical = entry->frame | (linear & 0xFFF);
      return true;
    }
    return translate_miss(linear, intent, user, physical);
  }
  // The #PF of the last try_translate, try_read or try_write that returned false.
  const Fault& fault() const { return fault_; }
  // Changes whenever a translation translate() returns may change or the statistics
  // model's state for it may (TLB fill, invalidation, flush, new paging bits, A20 and
  // memory-map changes): a caller that keeps a translation (the CPU's current code
  // page) may reuse it, with the same rights and `user`, while this stays the same.
  u32 translation_epoch() const { return tlb_.changes(); }
  // Every later change of translation_epoch() raises Attention::kTranslationChanged
  // in `attention` (Tlb::watch_changes).
  void watch_translation_changes(Attention& attention) { tlb_.watch_changes(attention); }
  void unwatch_translation_changes(const Attention& attention) { tlb_.unwatch_changes(attention); }

  // The host address for an access of `size` bytes at `linear` that needs nothing but
  // the copy: inside one page, no tracer, and with paging on a TLB hit with the rights
  // `kIntent` (Read or Write) needs and a host pointer for it, on a page the TLB
  // statistics model holds (TlbModelMarks::kResident: a hit, without a call); with
  // paging off a page the bus reads or writes directly (RAM, and ROM for reads; not a
  // code page for writes). Counts that hit and the access of `kind` as read()/write()
  // would; null, with nothing counted, in any other case.
  template <AccessIntent kIntent>
  [[gnu::always_inline]] u8* direct_pointer(u32 linear, unsigned size, bool user, AccessKind kind) {
    if (crosses_page(linear, size) || no_direct_pointer_) return nullptr;
    if (!control_.pg) {
      u8* const page = kIntent == AccessIntent::Write ? bus_.host_write_page(linear)
                                                      : const_cast<u8*>(bus_.host_read_page(linear));
      if (!page) return nullptr;
      counters_.count_access(kind);
      return page + (linear & 0xFFF);
    }
    TlbEntry& entry = tlb_.slot(linear);
    const u8 need = kIntent == AccessIntent::Write ? write_rights_[user] : (user ? tlb_right::User : 0);
    u8* const host = kIntent == AccessIntent::Write ? entry.host_write : const_cast<u8*>(entry.host_read);
    if (!tlb_.holds(entry, linear) || (entry.rights & need) != need || !host) return nullptr;
    if constexpr (kStatistics) {
      TlbModelMarks::Mark& mark = model_marks_.slot(linear);
      if (!(mark.bits & TlbModelMarks::kResident)) [[unlikely]] return nullptr;
      note_resident_hit(mark, linear);
    }
    counters_.count_access(kind);
    return host + (linear & 0xFFF);
  }

  // Reads or writes T at a linear address. An access that crosses a 4 KiB page
  // boundary translates both pages before touching memory. With paging on, a TLB hit
  // on RAM (or ROM, for reads) goes straight to host memory: the same translation,
  // counters and trace events as through the bus, without the bus's page lookup.
  template <class T>
  T read(u32 linear, AccessKind kind, bool user, AccessIntent intent = AccessIntent::Read) {
    T value;
    if (!try_read<T>(linear, kind, user, value, intent)) [[unlikely]] throw_fault();
    return value;
  }
  // read() without the throw: false when the access faults (nothing read), with the
  // #PF in fault().
  template <class T>
  [[nodiscard]] bool try_read(u32 linear, AccessKind kind, bool user, T& value, AccessIntent intent = AccessIntent::Read) {
    if (TlbEntry* entry = direct_hit(linear, sizeof(T), intent, user); entry && entry->host_read) [[likely]] {
      note_model(*entry, linear, intent);
      counters_.count_access(kind);
      std::memcpy(&value, entry->host_read + (linear & 0xFFF), sizeof(T));
      emit(tracer_, [&] {
        return access_event(linear, entry->frame | (linear & 0xFFF), sizeof(T), kind, false, false, value, 0);
      });
      return true;
    }
    return read_through_bus<T>(linear, kind, user, intent, value);
  }
  // try_read() without a direct hit: through the bus (out of line, so the direct path
  // stays short where it is inlined).
  template <class T>
  [[gnu::noinline]] bool read_through_bus(u32 linear, AccessKind kind, bool user, AccessIntent intent, T& value) {
    if (!crosses_page(linear, sizeof(T))) {
      u32 physical;
      if (!try_translate(linear, intent, user, physical)) return false;
      value = bus_.read<T>(physical, kind);
      emit(tracer_, [&] { return access_event(linear, physical, sizeof(T), kind, false, false, value, 0); });
      return true;
    }
    u32 first, second;
    if (!try_translate(linear, intent, user, first) || !try_translate((linear | 0xFFF) + 1, intent, user, second))
      return false;
    u64 bytes = 0;
    for (unsigned i = 0; i < sizeof(T); ++i)
      bytes |= u64{bus_.read<u8>(split_address(linear, i, first, second), kind)} << (8 * i);
    emit(tracer_, [&] { return access_event(linear, first, sizeof(T), kind, false, false, bytes, 0); });
    value = static_cast<T>(bytes);
    return true;
  }

  template <class T>
  void write(u32 linear, T value, AccessKind kind, bool user) {
    if (!try_write<T>(linear, value, kind, user)) [[unlikely]] throw_fault();
  }
  // write() without the throw: false when the access faults (nothing written, either
  // page of a split access), with the #PF in fault().
  template <class T>
  [[nodiscard]] bool try_write(u32 linear, T value, AccessKind kind, bool user) {
    if (TlbEntry* entry = direct_hit(linear, sizeof(T), AccessIntent::Write, user); entry && entry->host_write)
        [[likely]] {
      note_model(*entry, linear, AccessIntent::Write);
      counters_.count_access(kind);
      std::memcpy(entry->host_write + (linear & 0xFFF), &value, sizeof(T));
      emit(tracer_, [&] {
        return access_event(linear, entry->frame | (linear & 0xFFF), sizeof(T), kind, true, false, value, 0);
      });
      return true;
    }
    return write_through_bus<T>(linear, value, kind, user);
  }
  // try_write() without a direct hit: through the bus (out of line, like read_through_bus).
  template <class T>
  [[gnu::noinline]] bool write_through_bus(u32 linear, T value, AccessKind kind, bool user) {
    if (!crosses_page(linear, sizeof(T))) {
      u32 physical;
      if (!try_translate(linear, AccessIntent::Write, user, physical)) return false;
      bus_.write<T>(physical, value, kind);
      // A write into a code page clears its mark: later writes may go direct again.
      if (control_.pg) refresh_host_write(linear, physical);
      emit(tracer_, [&] { return access_event(linear, physical, sizeof(T), kind, true, false, value, 0); });
      return true;
    }
    u32 first, second;
    if (!try_translate(linear, AccessIntent::Write, user, first) ||
        !try_translate((linear | 0xFFF) + 1, AccessIntent::Write, user, second))
      return false;
    for (unsigned i = 0; i < sizeof(T); ++i)
      bus_.write<u8>(split_address(linear, i, first, second), static_cast<u8>(u64{value} >> (8 * i)), kind);
    emit(tracer_, [&] { return access_event(linear, first, sizeof(T), kind, true, false, value, 0); });
    return true;
  }

  // An instruction byte: translated for execution and marking its physical page as
  // holding code (PhysicalBus::fetch).
  u8 fetch(u32 linear, bool user) { return bus_.fetch<u8>(translate(linear, AccessIntent::Execute, user)); }

  // A locked read-modify-write at a linear address (see PhysicalBus::locked_rmw).
  // A locked access that crosses a page is split (a split lock on hardware).
  template <class T, class Modify>
  T locked_rmw(u32 linear, AccessKind kind, bool user, Modify modify) {
    if (!crosses_page(linear, sizeof(T))) {
      const u32 physical = translate(linear, AccessIntent::Write, user);
      const T old = bus_.locked_rmw<T>(physical, kind, modify);
      emit(tracer_, [&] {
        return access_event(linear, physical, sizeof(T), kind, true, true, static_cast<T>(modify(old)), old);
      });
      return old;
    }
    ++counters_.locked_by_kind[static_cast<std::size_t>(kind)];
    bus_.clock().charge(CostPart::LockedAccess);
    const T old = read<T>(linear, kind, user, AccessIntent::Write);
    write<T>(linear, static_cast<T>(modify(old)), kind, user);
    return old;
  }

  // ---- debugger access: no Accessed/Dirty bits, no TLB fill, no counters ----
  // The physical address the CPU would use for `linear` now: the TLB's translation
  // when it holds one, else the page tables' (by peek). Empty when not present.
  std::optional<u32> debug_translate(u32 linear) const;
  std::optional<u8> peek_linear(u32 linear) const;
  bool poke_linear(u32 linear, u8 value);  // false when not mapped

 private:
  struct Translation {
    u32 frame;  // physical address of the 4 KiB frame
    u8 rights;  // tlb_right bits
  };

  static bool crosses_page(u32 linear, unsigned size) { return (linear & 0xFFF) + size > 0x1000; }
  // The TLB entry translating `linear` when it has the rights `intent` needs, or null.
  TlbEntry* tlb_hit(u32 linear, AccessIntent intent, bool user) {
    TlbEntry& entry = tlb_.slot(linear);
    const u8 need = intent == AccessIntent::Write ? write_rights_[user] : (user ? tlb_right::User : 0);
    return tlb_.holds(entry, linear) && (entry.rights & need) == need ? &entry : nullptr;
  }
  void refresh_host_write(u32 linear, u32 physical) {
    TlbEntry& entry = tlb_.slot(linear);
    if (tlb_.holds(entry, linear)) entry.host_write = bus_.host_write_page(physical);
  }
  // tlb_hit for an access of `size` bytes inside one page with paging on, else null.
  TlbEntry* direct_hit(u32 linear, unsigned size, AccessIntent intent, bool user) {
    return direct_paging_ && !crosses_page(linear, size) ? tlb_hit(linear, intent, user) : nullptr;
  }
  static u32 split_address(u32 linear, unsigned i, u32 first, u32 second) {
    const u32 byte_linear = linear + i;
    return (byte_linear & ~0xFFFu) == (linear & ~0xFFFu) ? first + i : second + (byte_linear & 0xFFF);
  }
  // Tells the TLB statistics model about a translated access through `entry`. A data
  // access to a page marked TlbModelMarks::kMru is a hit the model would count without
  // changing anything (its set's most recently used way): one bit test instead of the
  // model's look-up, which note_data_model does for every other page.
  void note_model(TlbEntry& entry, u32 linear, AccessIntent intent) {
    if constexpr (!kStatistics) return;
    if (intent == AccessIntent::Execute)
      model_.access_code(linear, entry.rights);
    else if (TlbModelMarks::Mark& mark = model_marks_.slot(linear); mark.bits & TlbModelMarks::kResident) [[likely]]
      note_resident_hit(mark, linear);
    else
      note_data_model(entry, mark, linear);
  }
  // A data access to a page marked TlbModelMarks::kResident (`mark`): a hit in the
  // model. On the set's most recently used way (kMru) it changes nothing else;
  // on another way, that way becomes the most recently used one (TlbModel::touch_data)
  // and the marks follow, without a call.
  [[gnu::always_inline]] void note_resident_hit(TlbModelMarks::Mark& mark, u32 linear) {
    if (mark.bits & TlbModelMarks::kMru) [[likely]] {
      ++counters_.tlb_data_hits;
      return;
    }
    touch_model(mark, linear);
  }
  [[gnu::noinline]] void touch_model(TlbModelMarks::Mark& mark, u32 linear) {
    const u32 before = model_.touch_data(mark.way, linear >> 12);
    if (before != TlbModel::kNoPage) model_marks_.clear_mru(before);
    mark.bits |= TlbModelMarks::kMru;
  }
  // The model's look-up for a data access through `entry`, then its marks (`mark`, the
  // slot's): the page that stopped being its set's most recently used way loses kMru, a page the
  // model dropped loses both marks, and the accessed page gets both (with its way)
  // when it is a 4 KiB page the 4 KiB array now holds.
  void note_data_model(const TlbEntry& entry, TlbModelMarks::Mark& mark, u32 linear);  // paging.cpp
  // The walk after a TLB miss and the TLB fill: false when the walk faults (fault_).
  bool translate_miss(u32 linear, AccessIntent intent, bool user, u32& physical);
  // The page-table walk; none when it faults, with the #PF in fault_.
  std::optional<Translation> walk(u32 linear, AccessIntent intent, bool user);
  std::nullopt_t page_fault(u32 error_code, u32 linear, std::string_view cause) {
    fault_ = pf(error_code, linear, cause);
    return std::nullopt;
  }
  [[noreturn, gnu::noinline, gnu::cold]] void throw_fault() const;
  u32 translate_miss_or_throw(u32 linear, AccessIntent intent, bool user);
  // The MemoryAccess record of an access. For a locked read-modify-write (`write` and
  // `locked`), `value` is the new value and `old` the old one.
  static events::MemoryAccess access_event(u32 linear, u32 physical, unsigned size, AccessKind kind, bool write,
                                           bool locked, u64 value, u64 old) {
    return {.linear = linear, .physical = physical, .size = static_cast<u8>(size), .access = kind, .write = write,
            .locked = locked, .value = value, .old_value = static_cast<u32>(old)};
  }
  // The flags the direct paths test, from the tracer, CR0.PG and set_direct_access.
  void update_direct() {
    no_direct_pointer_ = tracer_ || !direct_allowed_;
    direct_paging_ = control_.pg && direct_allowed_;
  }

  PhysicalBus& bus_;
  Counters& counters_;
  Tracer* tracer_ = nullptr;  // (declared before model_, which keeps its address)
  PagingControl control_;
  Fault fault_{};  // the #PF of the last access that faulted (fault())
  bool direct_allowed_ = true;      // set_direct_access
  bool no_direct_pointer_ = false;  // direct_pointer returns null: a tracer, or not allowed
  bool direct_paging_ = false;      // read()/write() may go direct on a TLB hit: CR0.PG and allowed
  Tlb tlb_;
  TlbModel model_;
  TlbModelMarks model_marks_;  // the model's residence by TLB slot (direct_pointer, note_model)
  // The rights a write hit needs, by `user`: Dirty always (a clean entry re-walks to
  // set D), Writable for user writes and for supervisor writes under CR0.WP.
  u8 write_rights_[2] = {tlb_right::Dirty, tlb_right::Dirty | tlb_right::Writable | tlb_right::User};
};

}  // namespace x86lab
