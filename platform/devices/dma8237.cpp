// The 8237A pair: register decoding, the byte pointer flip-flop, and the service of
// DREQs (Intel 8237A-5 data sheet, "Register Description" and "Transfer Modes").
#include "platform/devices/dma8237.h"

namespace x86lab {

namespace {
// Command register bits ("Command Register").
constexpr u8 kControllerDisable = 0x04;
// Mode register fields ("Mode Register").
// DEVIATION: trace/access_kind.h has no kind for DMA cycles yet; they count as data
// accesses (the self-modifying-code check sees them like any other write).
constexpr AccessKind kDmaAccess = AccessKind::Data;
constexpr u8 kAutoInitialize = 0x10, kAddressDecrement = 0x20;
Dma8237Pair::TransferType type_of(u8 mode) { return static_cast<Dma8237Pair::TransferType>((mode >> 2) & 3); }
Dma8237Pair::TransferMode mode_of(u8 mode) { return static_cast<Dma8237Pair::TransferMode>(mode >> 6); }
}  // namespace

Dma8237Pair::Dma8237Pair(PhysicalBus& bus) : bus_(bus) {}

void Dma8237Pair::attach(unsigned channel, DmaClient* client) { clients_[channel & 7] = client; }

// Ports: DMA1 register n at n (00h-0Fh); DMA2 register n at C0h + 2n; page registers
// at 81h-8Fh. Every register is 8 bits wide: a wider access reaches its low byte.
u32 Dma8237Pair::read(u32 port, unsigned) {
  if (port <= 0x0F) return register_read(0, port);
  if (port >= 0xC0 && port <= 0xDF) return (port & 1) ? 0xFF : register_read(1, (port - 0xC0) >> 1);
  if (port >= 0x81 && port <= 0x8F) return page_registers_[port & 0xF];
  return 0xFF;
}

void Dma8237Pair::write(u32 port, unsigned, u32 value) {
  const u8 byte = static_cast<u8>(value);
  if (port <= 0x0F) register_write(0, port, byte);
  else if (port >= 0xC0 && port <= 0xDF) {
    if (!(port & 1)) register_write(1, (port - 0xC0) >> 1, byte);
  } else if (port >= 0x81 && port <= 0x8F) {
    page_registers_[port & 0xF] = byte;
  }
}

u8 Dma8237Pair::status(unsigned controller) const {
  u8 value = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const Channel& c = channels_[controller * 4 + i];
    if (c.terminal) value |= static_cast<u8>(1u << i);
    if (c.dreq || c.request) value |= static_cast<u8>(0x10u << i);
  }
  return value;
}

u32 Dma8237Pair::next_address(unsigned channel) const {
  channel &= 7;
  const Channel& c = channels_[channel];
  const u32 page = page_registers_[kPagePort[channel]];
  // PC/AT: channels 5-7 move words; their address register counts words, the page
  // register supplies A23-A17 (its bit 0 is not used).
  if (channel >= 4) return ((page & 0xFEu) << 16) | (u32{c.current_address} << 1);
  return (page << 16) | c.current_address;
}

u8 Dma8237Pair::register_read(unsigned controller, unsigned reg) {
  Controller& k = controllers_[controller];
  if (reg < 8) {  // current address (even) or current word count (odd) of channel reg/2
    const Channel& c = channels_[controller * 4 + reg / 2];
    const u16 value = (reg & 1) ? c.current_count : c.current_address;
    const bool high = k.flip_flop;
    k.flip_flop = !k.flip_flop;
    return static_cast<u8>(high ? value >> 8 : value);
  }
  if (reg == 8) {  // status: reading clears the TC bits ("Status Register")
    const u8 value = status(controller);
    for (unsigned i = 0; i < 4; ++i) channels_[controller * 4 + i].terminal = false;
    return value;
  }
  if (reg == 0xD) return k.temporary;
  // The other registers are write-only on the 8237A.
  return 0xFF;
}

void Dma8237Pair::register_write(unsigned controller, unsigned reg, u8 value) {
  Controller& k = controllers_[controller];
  if (reg < 8) {  // base and current address / word count, low byte then high byte
    Channel& c = channels_[controller * 4 + reg / 2];
    u16& base = (reg & 1) ? c.base_count : c.base_address;
    base = k.flip_flop ? static_cast<u16>((base & 0x00FF) | (value << 8)) : static_cast<u16>((base & 0xFF00) | value);
    k.flip_flop = !k.flip_flop;
    ((reg & 1) ? c.current_count : c.current_address) = base;
    return;
  }
  const unsigned low = value & 3;
  Channel& selected = channels_[controller * 4 + low];
  switch (reg) {
    case 8: k.command = value; break;
    case 9:  // request register: bit 2 sets or clears channel bits 1-0's request
      selected.request = value & 0x04;
      break;
    case 0xA: selected.masked = value & 0x04; break;  // single mask bit
    case 0xB: selected.mode = value; break;            // mode; bits 1-0 select the channel
    case 0xC: k.flip_flop = false; break;              // clear byte pointer flip-flop
    case 0xD: master_clear(controller); break;
    case 0xE:  // clear mask register
      for (unsigned i = 0; i < 4; ++i) channels_[controller * 4 + i].masked = false;
      break;
    case 0xF:  // write all mask register bits
      for (unsigned i = 0; i < 4; ++i) channels_[controller * 4 + i].masked = (value >> i) & 1;
      break;
    default: break;
  }
  serve_pending();
}

// "Master Clear": command, status, request and temporary registers and the flip-flop
// cleared, all mask bits set (the same state as the RESET pin).
void Dma8237Pair::master_clear(unsigned controller) {
  controllers_[controller] = Controller{};
  for (unsigned i = 0; i < 4; ++i) {
    Channel& c = channels_[controller * 4 + i];
    c.masked = true;
    c.request = false;
    c.terminal = false;
  }
}

void Dma8237Pair::set_bios_state() {
  channels_[4].mode = static_cast<u8>(static_cast<u8>(TransferMode::Cascade) << 6);
  channels_[4].masked = false;
  serve_pending();
}

bool Dma8237Pair::can_serve(unsigned channel) const {
  const Channel& c = channels_[channel];
  if (channel == 4 || c.masked || !(c.dreq || c.request)) return false;
  if (mode_of(c.mode) == TransferMode::Cascade) return false;
  if (controllers_[channel / 4].command & kControllerDisable) return false;
  if (channel < 4) {  // DMA1's HRQ is DREQ 4 of DMA2: a cascade channel 4 must pass it on
    const Channel& cascade = channels_[4];
    if (cascade.masked || mode_of(cascade.mode) != TransferMode::Cascade) return false;
    if (controllers_[1].command & kControllerDisable) return false;
  }
  return true;
}

void Dma8237Pair::set_dreq(unsigned channel, bool level) {
  channels_[channel & 7].dreq = level;
  if (level) serve_pending();
}

// Serves every channel that can be served, in the fixed priority of the PC/AT (DMA1's
// channels through cascade channel 4, the highest of DMA2, then 5, 6, 7). Nested
// requests from a client's callbacks are picked up by the loop that is running.
// DEVIATION: rotating priority (command bit 4) is not modeled; the order of service
// is not visible to a guest here, since each service runs to its end at once.
void Dma8237Pair::serve_pending() {
  if (serving_) return;
  serving_ = true;
  // Each round serves a channel to its DREQ's drop or terminal count; the bound keeps
  // a device that holds DREQ high on an auto-initializing channel from looping forever.
  for (unsigned round = 0, served = 1; served && round < 64; ++round) {
    served = 0;
    for (unsigned channel : {0u, 1u, 2u, 3u, 5u, 6u, 7u})
      if (can_serve(channel)) {
        serve(channel);
        served = 1;
      }
  }
  serving_ = false;
}

// One service: units move while the channel can be served (demand and single mode: as
// long as DREQ stays high; block mode: to terminal count once started). At terminal
// count the request bit clears, and without auto-initialize the channel's mask bit is
// set; with it the current registers are reloaded from the base registers
// ("Autoinitialize").
void Dma8237Pair::serve(unsigned channel) {
  Channel& c = channels_[channel];
  const bool block = mode_of(c.mode) == TransferMode::Block;
  while (true) {
    const bool terminal = transfer_unit(channel);
    if (terminal) {
      c.terminal = true;
      c.request = false;
      if (c.mode & kAutoInitialize) {
        c.current_address = c.base_address;
        c.current_count = c.base_count;
      } else {
        c.masked = true;
      }
      if (DmaClient* client = clients_[channel]) client->dma_terminal_count();
      return;
    }
    if (!block && !can_serve(channel)) return;
    if (block && (c.masked || (controllers_[channel / 4].command & kControllerDisable))) return;
  }
}

// Moves one unit and steps the address and count; true at terminal count (the count
// register going from 0 to FFFFh).
bool Dma8237Pair::transfer_unit(unsigned channel) {
  Channel& c = channels_[channel];
  DmaClient* client = clients_[channel];
  const u32 address = next_address(channel);
  const bool word = channel >= 4;
  switch (type_of(c.mode)) {
    case TransferType::Write: {  // device to memory
      const u16 value = client ? client->dma_read_unit() : 0xFFFF;
      if (word) bus_.write<u16>(address, value, kDmaAccess);
      else bus_.write<u8>(address, static_cast<u8>(value), kDmaAccess);
      break;
    }
    case TransferType::Read: {  // memory to device
      const u16 value = word ? bus_.read<u16>(address, kDmaAccess) : bus_.read<u8>(address, kDmaAccess);
      if (client) client->dma_write_unit(value);
      break;
    }
    case TransferType::Verify:
    case TransferType::Illegal: break;  // addresses and counts step, no memory cycle
  }
  c.current_address = static_cast<u16>(c.current_address + ((c.mode & kAddressDecrement) ? -1 : 1));
  return c.current_count-- == 0;
}

void Dma8237Pair::transfer_state(StateArchive& a) {
  for (Channel& c : channels_) {
    a.field(c.base_address, "DMA base address");
    a.field(c.base_count, "DMA base count");
    a.field(c.current_address, "DMA current address");
    a.field(c.current_count, "DMA current count");
    a.field(c.mode, "DMA mode");
    a.field(c.masked, "DMA mask");
    a.field(c.request, "DMA request");
    a.field(c.dreq, "DMA DREQ");
    a.field(c.terminal, "DMA TC");
  }
  for (Controller& k : controllers_) {
    a.field(k.command, "DMA command");
    a.field(k.flip_flop, "DMA flip-flop");
    a.field(k.temporary, "DMA temporary");
  }
  a.array(page_registers_, "DMA page registers");
}

}  // namespace x86lab
