// Selectors, segment descriptors and the hidden descriptor cache behind each segment
// register (Intel SDM Vol. 3, "Segment Selectors", "Segment Descriptors",
// "Segment Registers"). Descriptors are parsed once into named fields here; the
// bit layout is drawn beside the parser in descriptor.cpp.
#pragma once
#include "trace/types.h"

namespace x86lab {

// A 16-bit selector:  15         3  2  1 0
//                    |   index    |TI| RPL |
struct Selector {
  u16 value = 0;
  constexpr u16 index() const { return value >> 3; }
  constexpr bool ti() const { return (value & 4) != 0; }  // 1 = LDT, 0 = GDT
  constexpr u8 rpl() const { return value & 3; }
  constexpr bool null() const { return (value & 0xFFFC) == 0; }
  // The selector as it appears in an error code: index, TI, with the RPL bits cleared.
  constexpr u32 error_code() const { return value & 0xFFFCu; }
};

// System-descriptor and gate types (S = 0), SDM "System Descriptor Types".
enum class SystemType : u8 {
  Tss16Available = 1, Ldt = 2, Tss16Busy = 3, CallGate16 = 4, TaskGate = 5, InterruptGate16 = 6, TrapGate16 = 7,
  Tss32Available = 9, Tss32Busy = 11, CallGate32 = 12, InterruptGate32 = 14, TrapGate32 = 15,
};

// The fields of an 8-byte segment or system descriptor.
struct Descriptor {
  u32 base = 0;
  u32 limit_raw = 0;  // the 20-bit limit field as stored
  u8 type = 0;        // 4-bit type field (bit 0 = Accessed for code/data)
  bool s = false;     // 1 = code or data, 0 = system
  u8 dpl = 0;
  bool present = false;
  bool avl = false;
  bool db = false;    // D/B: default operand size / stack size / expand-down upper bound
  bool g = false;     // granularity: limit in 4 KiB units

  static Descriptor parse(u64 raw);
  u64 encode() const;

  // The byte-granular limit: (limit_raw << 12) | 0xFFF when G = 1.
  u32 limit() const { return g ? (limit_raw << 12) | 0xFFF : limit_raw; }
  bool is_code() const { return s && (type & 8); }
  bool is_data() const { return s && !(type & 8); }
  bool conforming() const { return is_code() && (type & 4); }
  bool readable() const { return is_data() || (type & 2); }    // code: R bit; data always readable
  bool writable() const { return is_data() && (type & 2); }
  bool expand_down() const { return is_data() && (type & 4); }
  bool accessed() const { return s && (type & 1); }
  // Gate fields (call, interrupt, trap and task gates).
  u16 gate_selector() const { return static_cast<u16>(raw_ >> 16); }  // low dword bits 31:16
  u32 gate_offset() const;
  u8 gate_parameter_count() const { return static_cast<u8>(raw_high_ & 0x1F); }
  u64 raw() const { return raw_; }

 private:
  u64 raw_ = 0;
  u32 raw_high_ = 0;
};

// The hidden part of a segment register, written only by the segment-load code
// (segment_loading.cpp) and read by every memory access. Limits are scaled once at
// load into the range of valid offsets [valid_min, valid_max].
struct DescriptorCache {
  u32 base = 0;
  u32 limit = 0xFFFF;      // byte-granular limit as loaded
  u32 valid_min = 0;       // lowest offset an access may touch
  u32 valid_max = 0xFFFF;  // highest offset an access may touch
  u8 type = 3;             // 4-bit type (read/write data, accessed after reset)
  bool s = true;
  u8 dpl = 0;
  bool present = true;
  bool db = false;
  bool g = false;
  bool avl = false;
  bool usable = true;      // false after loading a null selector into DS/ES/FS/GS (protected mode)

  bool is_code() const { return s && (type & 8); }
  bool readable() const { return !s || !(type & 8) || (type & 2); }
  bool writable() const { return s && !(type & 8) && (type & 2); }
  bool expand_down() const { return s && (type & 0xC) == 4; }

  // Fills every field from a descriptor and recomputes the valid offset range.
  void load(const Descriptor& descriptor);
  // Sets base = selector * 16 as in real mode; limit and attributes are kept
  // (QUIRK: this is what makes "unreal mode" work on P6).
  void load_real_mode(u16 selector) { base = u32{selector} << 4; }
  // Virtual-8086 mode: base = selector * 16, limit 0xFFFF, DPL 3 read/write data.
  void load_virtual_8086(u16 selector);
  // Real-mode-style cache with an explicit base and 64 KiB limit (reset, SIPI, loaders).
  void set_real_mode(u32 new_base);
  // Recomputes valid_min/valid_max from limit, type and D/B.
  void compute_valid_range();
  // Whether `size` bytes (1 or more) at `offset` lie inside the valid offset range.
  bool contains(u32 offset, unsigned size) const {
    return offset >= valid_min && offset <= valid_max && size - 1 <= valid_max - offset;
  }
  // The descriptor these fields would encode (for display and tests).
  Descriptor to_descriptor() const;
};

enum SegmentIndex : u8 { ES = 0, CS = 1, SS = 2, DS = 3, FS = 4, GS = 5 };
inline constexpr const char* kSegmentNames[6] = {"es", "cs", "ss", "ds", "fs", "gs"};

struct SegmentRegister {
  u16 selector = 0;
  DescriptorCache cache;
};

// GDTR and IDTR: a 32-bit linear base and a 16-bit limit in bytes.
struct DescriptorTableRegister {
  u32 base = 0;
  u16 limit = 0xFFFF;
};

}  // namespace x86lab
