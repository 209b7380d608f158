// The PIIX3 bus master IDE registers and the PRD-driven DMA engine (82371SB data sheet,
// "Bus Master IDE I/O Registers", "Bus Master IDE Operation").
#include "platform/devices/storage/ata_bus_master.h"

#include <algorithm>

namespace x86lab {

BusMasterIde::BusMasterIde(PhysicalBus& memory, std::array<AtaChannel*, 2> channels,
                           std::function<bool()> bus_master_enabled)
    : memory_(memory), channels_(channels), bus_master_enabled_(std::move(bus_master_enabled)) {
  for (unsigned c = 0; c < 2; ++c) {
    if (!channels_[c]) continue;
    channels_[c]->set_bus_master_listeners([this, c] { state_[c].status |= kInterrupt; }, [this, c] { run(c); });
  }
}

u8 BusMasterIde::read_byte(unsigned offset) const {
  const Channel& s = state_[offset >> 3 & 1];
  switch (offset & 7) {
    case 0: return s.command;
    case 2: return s.status;
    case 4: return static_cast<u8>(s.table);
    case 5: return static_cast<u8>(s.table >> 8);
    case 6: return static_cast<u8>(s.table >> 16);
    case 7: return static_cast<u8>(s.table >> 24);
    default: return 0;  // reserved
  }
}

void BusMasterIde::write_byte(unsigned offset, u8 value) {
  const unsigned c = offset >> 3 & 1;
  Channel& s = state_[c];
  switch (offset & 7) {
    case 0: {
      const bool was_started = s.command & kStart;
      s.command = value & (kStart | kWriteToMemory);
      if ((s.command & kStart) && !was_started) {  // start: from the first descriptor
        s.prd = s.table;
        s.prd_done = 0;
        s.status |= kActive;
        run(c);
      } else if (!(s.command & kStart)) {
        s.status &= static_cast<u8>(~kActive);
      }
      break;
    }
    case 2:
      s.status = static_cast<u8>((s.status & (kActive | kError | kInterrupt)) & ~(value & (kError | kInterrupt)));
      s.status |= value & (kDrive0Capable | kDrive1Capable);
      break;
    case 4: s.table = (s.table & 0xFFFFFF00u) | (value & 0xFCu); break;
    case 5: s.table = (s.table & 0xFFFF00FFu) | u32{value} << 8; break;
    case 6: s.table = (s.table & 0xFF00FFFFu) | u32{value} << 16; break;
    case 7: s.table = (s.table & 0x00FFFFFFu) | u32{value} << 24; break;
    default: break;
  }
}

u32 BusMasterIde::read(u32 port, unsigned size) {
  u32 value = 0;
  for (unsigned i = 0; i < size; ++i) value |= u32{read_byte((port + i) & 0xF)} << (8 * i);
  return value;
}

void BusMasterIde::write(u32 port, unsigned size, u32 value) {
  for (unsigned i = 0; i < size; ++i) write_byte((port + i) & 0xF, static_cast<u8>(value >> (8 * i)));
}

bool BusMasterIde::move(unsigned c, u32 address, u32 bytes) {
  Channel& s = state_[c];
  AtaChannel& channel = *channels_[c];
  const bool to_memory = s.command & kWriteToMemory;
  std::array<u8, 4096> chunk;
  while (bytes) {
    const u32 want = std::min<u32>(bytes, chunk.size());
    std::size_t moved = 0;
    // DEVIATION: the bytes go through the bus with AccessKind::Data (there is no DMA
    // kind yet); they retire decoded code they overwrite like any other write.
    if (to_memory) {
      moved = channel.dma_read(std::span<u8>(chunk.data(), want));
      for (std::size_t i = 0; i < moved; ++i) memory_.write<u8>(address + static_cast<u32>(i), chunk[i], AccessKind::Data);
    } else {
      for (u32 i = 0; i < want; ++i) chunk[i] = memory_.read<u8>(address + i, AccessKind::Data);
      moved = channel.dma_write(std::span<const u8>(chunk.data(), want));
    }
    s.prd_done += static_cast<u32>(moved);
    address += static_cast<u32>(moved);
    bytes -= static_cast<u32>(moved);
    if (moved < want) return false;
  }
  return true;
}

void BusMasterIde::run(unsigned c) {
  Channel& s = state_[c];
  AtaChannel* channel = channels_[c];
  if (running_ || !channel || !(s.command & kStart) || !(s.status & kActive) || !bus_master_enabled_()) return;
  // The direction programmed must be the device's (else the transfer waits).
  if (!channel->dma_requested() || channel->dma_to_memory() != bool(s.command & kWriteToMemory)) return;
  running_ = true;
  constexpr unsigned kMaxDescriptors = 8192;
  unsigned n = 0;
  for (; n < kMaxDescriptors; ++n) {
    const u32 base = memory_.read<u32>(s.prd, AccessKind::Data) & ~1u;
    const u16 count_word = memory_.read<u16>(s.prd + 4, AccessKind::Data);
    const bool end_of_table = memory_.read<u16>(s.prd + 6, AccessKind::Data) & 0x8000;
    const u32 count = (count_word & 0xFFFEu) ? (count_word & 0xFFFEu) : 0x10000u;
    if (s.prd_done < count) move(c, base + s.prd_done, count - s.prd_done);
    if (!channel->dma_requested()) {  // the device's transfer is done
      if (end_of_table && s.prd_done >= count) s.status &= static_cast<u8>(~kActive);
      break;
    }
    if (end_of_table) {  // the table ended before the transfer
      s.status &= static_cast<u8>(~kActive);
      break;
    }
    s.prd += 8;
    s.prd_done = 0;
  }
  if (n == kMaxDescriptors) s.status = static_cast<u8>((s.status & ~kActive) | kError);
  running_ = false;
}

void BusMasterIde::transfer_state(StateArchive& a) {
  for (Channel& s : state_) {
    a.field(s.command, "bmide command", kStart | kWriteToMemory);
    a.field(s.status, "bmide status");
    a.field(s.table, "bmide table");
    a.field(s.prd, "bmide descriptor");
    a.field(s.prd_done, "bmide descriptor bytes done", 0x10000);
  }
}

}  // namespace x86lab
