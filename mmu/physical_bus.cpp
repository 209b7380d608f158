// Physical memory map: RAM, ROM, MMIO and open bus (reads 0xFF, writes dropped),
// and the code marks that report writes into fetched instruction bytes.
#include "mmu/physical_bus.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <stdexcept>

#include "mmu/tlb.h"
#include "trace/state_archive.h"

namespace x86lab {

PhysicalBus::PhysicalBus(u32 ram_bytes, Counters& counters)
    : counters_(counters),
      ram_(static_cast<u8*>(std::calloc(std::max<std::size_t>(ram_bytes, 1), 1))),
      ram_bytes_(ram_bytes),
      read_pages_(kPageCount),
      write_pages_(kPageCount),
      page_flags_(kPageCount),
      routes_(kPageCount),
      code_marks_of_(static_cast<u32*>(std::calloc(kPageCount, sizeof(u32)))) {
  if (!ram_ || !code_marks_of_) throw std::bad_alloc();
  if (ram_bytes % kPageBytes != 0 || ram_bytes > 0xE0000000u)
    throw std::invalid_argument("RAM size must be a multiple of 4 KiB and at most 3.5 GiB");
  for (u32 page = 0; page < ram_bytes / kPageBytes; ++page) {
    read_pages_[page] = write_pages_[page] = ram_page(page);
    page_flags_[page] = kRamPage;
  }
}

void PhysicalBus::map_rom(u32 base, std::span<const u8> image) {
  if (image.size() % kPageBytes != 0 || base % kPageBytes != 0)
    throw std::invalid_argument("ROM base and size must be multiples of 4 KiB");
  RomRegion region{base, std::make_unique<u8[]>(image.size()), static_cast<u32>(image.size())};
  std::memcpy(region.bytes.get(), image.data(), image.size());
  roms_.push_back(std::move(region));
  for (u64 offset = 0; offset < image.size(); offset += kPageBytes) refresh_page(static_cast<u32>((base + offset) >> 12));
  revoke_host_pages(nullptr);
}

void PhysicalBus::map_mmio(u32 base, u32 size, BusDevice* device) {
  if (size % kPageBytes != 0 || base % kPageBytes != 0)
    throw std::invalid_argument("MMIO base and size must be multiples of 4 KiB");
  mmio_.push_back({base, size, device});
  for (u64 offset = 0; offset < size; offset += kPageBytes) refresh_page(static_cast<u32>((base + offset) >> 12));
  revoke_host_pages(nullptr);
}

void PhysicalBus::unmap_mmio(BusDevice* device) {
  std::vector<MmioRegion> removed;
  std::erase_if(mmio_, [&](const MmioRegion& region) {
    if (region.device != device) return false;
    removed.push_back(region);
    return true;
  });
  if (removed.empty()) return;
  for (const MmioRegion& region : removed)
    for (u64 offset = 0; offset < region.size; offset += kPageBytes)
      refresh_page(static_cast<u32>((region.base + offset) >> 12));
  revoke_host_pages(nullptr);
}

void PhysicalBus::route_shadow(u32 base, u32 size, bool reads_to_ram, bool writes_to_ram) {
  if (size % kPageBytes != 0 || base % kPageBytes != 0)
    throw std::invalid_argument("shadow RAM base and size must be multiples of 4 KiB");
  const u8 route = kRouted | (reads_to_ram ? kRouteReads : 0) | (writes_to_ram ? kRouteWrites : 0);
  bool changed = false;
  for (u64 offset = 0; offset < size; offset += kPageBytes) {
    const u32 page = static_cast<u32>((base + offset) >> 12);
    if (routes_[page] == route) continue;
    routes_[page] = route;
    refresh_page(page);
    changed = true;
  }
  if (changed) revoke_host_pages(nullptr);
}

void PhysicalBus::refresh_page(u32 page) {
  const u32 address = page << 12;
  const bool ram = page < ram_bytes_ / kPageBytes;
  u8* const beneath = rom_byte(address);  // null: open bus
  bool reads = false, writes = false;
  const bool mmio = find_mmio(address) != nullptr;
  if (mmio) {
    // An MMIO region takes the whole page.
  } else if (routes_[page] & kRouted) {
    reads = ram && (routes_[page] & kRouteReads);
    writes = ram && (routes_[page] & kRouteWrites);
  } else {
    reads = writes = ram && !beneath;
  }
  u8* const read_page = reads ? ram_page(page) : mmio ? nullptr : beneath;
  // Fetched bytes stay valid while reads keep coming from the same bytes (a shadow
  // page whose writes alone moved); any other change retires them.
  if (read_page != read_pages_[page] || !read_page) retire_code_page(page);
  const u8 flags = reads && writes ? kRamPage : reads ? kRamReadOnly : writes ? kRamWriteOnly : 0;
  const u8 code = page_flags_[page] & kCodePage;
  read_pages_[page] = read_page;
  // A code page whose writes reach its fetched bytes takes the slow path for them.
  write_pages_[page] = writes && !(code && flags == kRamPage) ? ram_page(page) : nullptr;
  page_flags_[page] = flags | code;
}

void PhysicalBus::mark_code_byte(u32 address) {
  const u32 page = address >> 12, offset = address & (kPageBytes - 1);
  code_marks_for(page).bytes[offset / kCodeBlockBytes] |= u64{1} << (offset % kCodeBlockBytes);
}

PhysicalBus::CodeMarks& PhysicalBus::code_marks_for(u32 page) {
  if (!(page_flags_[page] & kCodePage)) {
    page_flags_[page] |= kCodePage;
    if (free_code_marks_.empty()) {
      code_marks_of_[page] = static_cast<u32>(code_marks_.size());
      code_marks_.emplace_back();
    } else {
      code_marks_of_[page] = free_code_marks_.back();
      free_code_marks_.pop_back();
    }
    // Writes into the page now take the slow path, which checks them (writes to a
    // shadow page whose reads come from beneath change no fetched byte).
    if (page_flags_[page] & kRamPage) {
      if (write_pages_[page]) revoke_host_pages(write_pages_[page]);
      write_pages_[page] = nullptr;
    }
  }
  return code_marks_[code_marks_of_[page]];
}

void PhysicalBus::transfer_code_marks(StateArchive& a) {
  u32 count = 0;
  if (a.saving())
    for (u32 page = 0; page < kPageCount; ++page) count += (page_flags_[page] & kCodePage) ? 1 : 0;
  a.local(count, "code pages", kPageCount);
  u32 next = 0;
  for (u32 i = 0; i < count; ++i) {
    if (a.saving())
      while (!(page_flags_[next] & kCodePage)) ++next;
    u32 page = next++;
    a.local(page, "code page", kPageCount - 1);
    CodeMarks marks;
    if (a.saving()) marks = code_marks_[code_marks_of_[page]];
    a.local_array(marks.bytes, "code marks");
    if (a.loading() && std::any_of(std::begin(marks.bytes), std::end(marks.bytes), [](u64 block) { return block != 0; }))
      code_marks_for(page) = marks;
  }
}

void PhysicalBus::revoke_host_pages(const u8* host_page) {
  for (Tlb* tlb : tlbs_) tlb->revoke_host_pages(host_page);
}

void PhysicalBus::note_code_write(u32 address, unsigned size) {
  const u32 page = address >> 12;
  const CodeMarks& marks = code_marks_[code_marks_of_[page]];
  u64 blocks = 0;
  for (unsigned i = 0; i < size; ++i) {
    const u32 offset = (address + i) & (kPageBytes - 1);
    if (marks.bytes[offset / kCodeBlockBytes] >> (offset % kCodeBlockBytes) & 1)
      blocks |= u64{1} << (offset / kCodeBlockBytes);
  }
  if (blocks) retire_code_blocks(page, blocks);
}

void PhysicalBus::retire_code_page(u32 page) {
  if (!(page_flags_[page] & kCodePage)) return;
  const CodeMarks& marks = code_marks_[code_marks_of_[page]];
  u64 blocks = 0;
  for (u32 block = 0; block < std::size(marks.bytes); ++block)
    if (marks.bytes[block]) blocks |= u64{1} << block;
  retire_code_blocks(page, blocks);
}

void PhysicalBus::retire_all_code() {
  for (u32 page = 0; page < kPageCount; ++page) retire_code_page(page);
}

void PhysicalBus::retire_code_blocks(u32 page, u64 blocks) {
  const u32 index = code_marks_of_[page];
  CodeMarks& marks = code_marks_[index];
  for (u64 rest = blocks; rest; rest &= rest - 1) marks.bytes[std::countr_zero(rest)] = 0;
  if (std::all_of(std::begin(marks.bytes), std::end(marks.bytes), [](u64 block) { return block == 0; })) {
    page_flags_[page] &= ~kCodePage;
    code_marks_of_[page] = 0;
    free_code_marks_.push_back(index);
    if (page_flags_[page] & kRamPage) write_pages_[page] = ram_page(page);
  }
  ++code_write_generation_;
  counters_.code_block_invalidations += static_cast<u64>(std::popcount(blocks));
  if (code_listener_) code_listener_->code_blocks_written(page, blocks);
  for (CodeWriteListener* listener : extra_listeners_) listener->code_blocks_written(page, blocks);
}

const PhysicalBus::MmioRegion* PhysicalBus::find_mmio(u32 address) const {
  for (const auto& region : mmio_)
    if (address - region.base < region.size) return &region;
  return nullptr;
}

u8* PhysicalBus::rom_byte(u32 address) const {
  // The newest mapping wins, as in map_rom.
  for (auto it = roms_.rbegin(); it != roms_.rend(); ++it)
    if (address - it->base < it->size) return it->bytes.get() + (address - it->base);
  return nullptr;
}

u8 PhysicalBus::read_byte(u32 address) {
  address &= a20_mask_;
  if (const u8* page = read_pages_[address >> 12]) return page[address & (kPageBytes - 1)];
  if (const auto* region = find_mmio(address))
    return static_cast<u8>(region->device->read(address - region->base, 1));
  ++counters_.open_bus_reads;
  return 0xFF;
}

void PhysicalBus::write_byte(u32 address, u8 value) {
  address &= a20_mask_;
  const u8 flags = page_flags_[address >> 12];
  if (flags & (kRamPage | kRamWriteOnly)) {
    if (flags & kRamPage) note_write(address, 1);
    ram_page(address >> 12)[address & (kPageBytes - 1)] = value;
    return;
  }
  if (const auto* region = find_mmio(address)) {
    region->device->write(address - region->base, 1, value);
    return;
  }
  // ROM (also beneath a shadow page that reads RAM): dropped silently, like a real ROM chip.
  if ((flags & kRamReadOnly) ? rom_byte(address) != nullptr : read_pages_[address >> 12] != nullptr) return;
  ++counters_.open_bus_writes;
}

u64 PhysicalBus::read_slow(u32 address, unsigned size) {
  // Whole access inside one MMIO region: one device access of up to 4 bytes.
  if (const auto* region = find_mmio(address); region && address - region->base + size <= region->size) {
    if (size <= 4) return region->device->read(address - region->base, size);
    return region->device->read(address - region->base, 4) |
           u64{region->device->read(address - region->base + 4, 4)} << 32;
  }
  u64 value = 0;
  for (unsigned i = 0; i < size; ++i) value |= u64{read_byte(address + i)} << (8 * i);
  return value;
}

void PhysicalBus::write_slow(u32 address, unsigned size, u64 value) {
  // A RAM page that holds code (the fast path took every other RAM write): checked
  // against the fetched bytes, then written.
  const u32 in_page = address & (kPageBytes - 1);
  if ((page_flags_[address >> 12] & kRamPage) && in_page <= kPageBytes - size) {
    note_write(address, size);
    std::memcpy(ram_page(address >> 12) + in_page, &value, size);  // little-endian host: the low `size` bytes
    return;
  }
  if (const auto* region = find_mmio(address); region && address - region->base + size <= region->size) {
    if (size <= 4) {
      region->device->write(address - region->base, size, static_cast<u32>(value));
    } else {
      region->device->write(address - region->base, 4, static_cast<u32>(value));
      region->device->write(address - region->base + 4, 4, static_cast<u32>(value >> 32));
    }
    return;
  }
  for (unsigned i = 0; i < size; ++i) write_byte(address + i, static_cast<u8>(value >> (8 * i)));
}

u8 PhysicalBus::peek(u32 address) const {
  address &= a20_mask_;
  if (const u8* page = read_pages_[address >> 12]) return page[address & (kPageBytes - 1)];
  u8 value = 0xFF;
  if (const auto* region = find_mmio(address)) region->device->debug_read(address - region->base, value);
  return value;
}

void PhysicalBus::poke(u32 address, u8 value) {
  address &= a20_mask_;
  if (page_flags_[address >> 12] & kCodePage) note_code_write(address, 1);  // RAM or ROM
  if (page_flags_[address >> 12] & (kRamPage | kRamReadOnly)) {  // where reads come from
    ram_page(address >> 12)[address & (kPageBytes - 1)] = value;
  } else if (u8* rom = rom_byte(address)) {
    *rom = value;
  } else if (const auto* region = find_mmio(address)) {
    region->device->debug_write(address - region->base, value);
  }
}

void PhysicalBus::load(u32 address, std::span<const u8> bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i) poke(address + static_cast<u32>(i), bytes[i]);
}

}  // namespace x86lab
