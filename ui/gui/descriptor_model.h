// What the Descriptor tables and TSS windows show: GDT, LDT and IDT entries decoded
// with the SDM's type names and gate targets, read with side-effect-free peeks (Intel
// SDM Vol. 3, "Segment Descriptors", "System Descriptor Types", "Interrupt Descriptor
// Table (IDT)", "Call Gates", "32-Bit Task-State Segment (TSS)").
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "mmu/paging.h"
#include "segmentation/descriptor.h"

namespace x86lab::gui {

// The SDM's name of a descriptor type without the Accessed and Busy states, which
// are shown on their own: "Data read/write", "Code execute/read conforming",
// "32-bit TSS", "LDT", "32-bit interrupt gate", "Task gate", "Reserved (type 8)".
std::string descriptor_type_name(const Descriptor& descriptor);

// True for call, interrupt, trap and task gates.
bool is_gate(const Descriptor& descriptor);

// One line of detail: for segments "base 00100000 limit FFFFF*4K DPL 3
// 32-bit", for gates "-> 0008:00101234 DPL 0" (call gates add "params 2"), for task
// gates "-> TSS 0028 DPL 0".
std::string descriptor_summary(const Descriptor& descriptor);

// Eight bytes at `linear` by side-effect-free peek; empty when a byte is not mapped.
std::optional<u64> peek_u64(const Mmu& mmu, u32 linear);
std::optional<u32> peek_u32(const Mmu& mmu, u32 linear);
std::optional<u16> peek_u16(const Mmu& mmu, u32 linear);

struct DescriptorRow {
  u32 index = 0;    // entry number (the vector for the IDT)
  u32 linear = 0;   // linear address of the entry's first byte
  bool mapped = false;
  u64 raw = 0;
  Descriptor descriptor;
  std::string type_name;
  std::string summary;
  bool accessed = false;  // code/data descriptor with A = 1
  bool busy = false;      // TSS descriptor with B = 1
};

// How many whole 8-byte entries a table with this limit (bytes - 1) holds, at most `max_entries`.
u32 table_entries(u32 limit, u32 max_entries = 8192);
// Entry `index` of the descriptor table at linear `base`.
DescriptorRow read_descriptor_row(const Mmu& mmu, u32 base, u32 index);
// The entries of a descriptor table at linear `base` whose limit is `limit` bytes
// (entries whose last byte is within the limit), at most `max_entries`.
std::vector<DescriptorRow> read_descriptor_table(const Mmu& mmu, u32 base, u32 limit, u32 max_entries = 8192);

// One vector of the real-address-mode interrupt vector table: 4-byte entries at
// IDTR.base + 4 * vector, the handler's offset (low word) then its segment (SDM Vol. 3,
// "Interrupt and Exception Handling in Real-Address Mode"). `mapped` is false when a byte
// of the entry cannot be read.
struct IvtRow {
  u32 vector = 0;
  u32 linear = 0;   // linear address of the entry
  bool mapped = false;
  u16 segment = 0;
  u16 offset = 0;
  u32 handler() const { return (u32{segment} << 4) + offset; }  // the handler's linear address (without A20 masking)
};
// How many 4-byte vectors an IVT with this limit holds (at most 256).
u32 ivt_entries(u32 limit);
IvtRow read_ivt_row(const Mmu& mmu, u32 base, u32 vector);

// A 32-bit TSS decoded (SDM Figure "32-Bit Task-State Segment (TSS)"), or empty when
// its 104 bytes are not all mapped.
struct TssFields {
  u16 previous_task_link;
  std::array<u32, 3> esp;  // ESP0-ESP2
  std::array<u16, 3> ss;   // SS0-SS2
  u32 cr3, eip, eflags;
  std::array<u32, 8> gpr;  // EAX ECX EDX EBX ESP EBP ESI EDI
  std::array<u16, 6> segments;  // ES CS SS DS FS GS
  u16 ldt;
  bool t;                  // debug trap bit
  u16 io_map_base;
};
std::optional<TssFields> read_tss32(const Mmu& mmu, u32 base);

}  // namespace x86lab::gui
