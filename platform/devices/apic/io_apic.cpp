// 82093AA register access through IOREGSEL/IOWIN and the redirection of input pins to
// APIC bus messages (Intel 82093AA IOAPIC data sheet, "Register Description",
// "Interrupt Input Pin Polarity", "Trigger Mode", "Remote IRR", "Delivery Status").
#include "platform/devices/apic/io_apic.h"

namespace x86lab {

namespace {
constexpr u8 kMaxRedirectionEntry = IoApic::kPins - 1;  // IOAPICVER bits 23:16
constexpr u32 kIdMask = 0x0F000000;                     // IOAPICID / IOAPICARB bits 27:24
constexpr bool is_redirection_register(u8 index) {
  return unsigned{index} >= IoApic::kIoRedTbl0 && unsigned{index} < IoApic::kIoRedTbl0 + 2 * IoApic::kPins;
}
}  // namespace

IoApic::IoApic(ApicBus& bus, Counters* counters, std::function<Tracer*()> tracer)
    : bus_(bus), counters_(counters), tracer_(std::move(tracer)) {
  bus_.attach(this);
}

void IoApic::reset() {
  io_register_select_ = 0;
  id_ = 0;
  arbitration_ = 0;
  for (RedirectionEntry& e : entries_) e.bits = RedirectionEntry::kMaskBit;
}

// ---- the pins ---------------------------------------------------------------

void IoApic::set_input(unsigned pin, bool level) {
  if (pin >= kPins) return;
  const bool was_asserted = asserted(pin);
  inputs_ = level ? (inputs_ | (1u << pin)) : (inputs_ & ~(1u << pin));
  const bool now_asserted = asserted(pin);
  RedirectionEntry& e = entries_[pin];
  if (e.level_triggered()) {
    if (!now_asserted) e.bits &= ~RedirectionEntry::kDeliveryStatusBit;  // nothing left to send
    deliver_level(pin);
  } else if (now_asserted && !was_asserted && !e.masked()) {
    send(pin);  // an edge that no local APIC takes is lost, as one that comes while masked
  }
}

void IoApic::deliver_level(unsigned pin) {
  RedirectionEntry& e = entries_[pin];
  if (!e.level_triggered() || e.masked() || e.remote_irr() || !asserted(pin)) return;
  if (send(pin)) {
    e.bits = (e.bits | RedirectionEntry::kRemoteIrrBit) & ~RedirectionEntry::kDeliveryStatusBit;
  } else {
    // No local APIC took it: the request stays pending (DELIVS = 1) and is sent again
    // at the pin's next change, the entry's next write or an EOI.
    e.bits |= RedirectionEntry::kDeliveryStatusBit;
  }
}

bool IoApic::send(unsigned pin) {
  const RedirectionEntry& e = entries_[pin];
  ApicMessage message;
  message.vector = e.vector();
  message.delivery_mode = e.delivery_mode();
  message.logical_destination = e.logical();
  // The whole field: bits 59:56 are the APIC ID in physical mode, 63:56 the message
  // destination address in logical mode; the local APIC decides whether it is named.
  message.destination = e.destination();
  message.level_triggered = e.level_triggered();
  message.assert = true;
  if (counters_) {
    ++counters_->ioapic_deliveries;
    ++counters_->ioapic_deliveries_by_pin[pin];
  }
  const bool taken = bus_.send(message);
  if (tracer_)
    emit(tracer_(), [&] {
      return events::IoApicDelivery{.pin = static_cast<u8>(pin), .vector = message.vector,
                                    .delivery_mode = static_cast<u8>(message.delivery_mode),
                                    .logical = message.logical_destination, .destination = message.destination,
                                    .level = message.level_triggered, .taken = taken};
    });
  return taken;
}

void IoApic::end_of_interrupt(u8 vector) {
  for (unsigned pin = 0; pin < kPins; ++pin) {
    RedirectionEntry& e = entries_[pin];
    if (e.vector() != vector || !e.remote_irr()) continue;
    e.bits &= ~RedirectionEntry::kRemoteIrrBit;
    deliver_level(pin);
  }
}

// ---- registers ----------------------------------------------------------------

u32 IoApic::read_register(u8 index) const {
  switch (index) {
    case kIoApicId: return id_;
    case kIoApicVer: return (u32{kMaxRedirectionEntry} << 16) | kVersion;
    case kIoApicArb: return arbitration_;
    default: break;
  }
  if (!is_redirection_register(index)) return 0;
  const u64 bits = entries_[(index - kIoRedTbl0) / 2].bits;
  return static_cast<u32>((index & 1) ? bits >> 32 : bits);
}

void IoApic::write_register(u8 index, u32 value) {
  if (index == kIoApicId) {
    id_ = value & kIdMask;
    arbitration_ = id_;  // data sheet: IOAPICARB is loaded when IOAPICID is written
    return;
  }
  if (!is_redirection_register(index)) return;  // read-only or reserved
  const unsigned pin = (index - kIoRedTbl0) / 2;
  RedirectionEntry& e = entries_[pin];
  const u64 half_mask = (index & 1) ? 0xFFFFFFFF00000000ull : 0x00000000FFFFFFFFull;
  const u64 written = ((index & 1) ? u64{value} << 32 : u64{value}) & half_mask & RedirectionEntry::kWritable;
  e.bits = (e.bits & ~(half_mask & RedirectionEntry::kWritable)) | written;
  // QUIRK: remote IRR is undefined for edge-triggered entries; x86lab clears it when
  // an entry becomes edge-triggered so that it cannot block a later level setting.
  if (!e.level_triggered()) e.bits &= ~(RedirectionEntry::kRemoteIrrBit | RedirectionEntry::kDeliveryStatusBit);
  deliver_level(pin);  // a level still asserted at unmask is sent
}

// A narrow access reads or writes its byte lanes of the 32-bit register (see io_apic.h).
u32 IoApic::read(u32 offset, unsigned size) {
  const u32 register_offset = offset & ~3u;
  const unsigned shift = (offset & 3) * 8;
  const u32 size_mask = size >= 4 ? 0xFFFFFFFFu : (1u << (size * 8)) - 1;
  u32 value;
  if (register_offset == kIoRegSel) value = io_register_select_;
  else if (register_offset == kIoWin) value = read_register(io_register_select_);
  else return 0xFFFFFFFFu & size_mask;
  return (value >> shift) & size_mask;
}

void IoApic::write(u32 offset, unsigned size, u32 value) {
  const u32 register_offset = offset & ~3u;
  const unsigned shift = (offset & 3) * 8;
  const u32 size_mask = size >= 4 ? 0xFFFFFFFFu : (1u << (size * 8)) - 1;
  const u32 lanes = (size_mask << shift);
  const auto merge = [&](u32 old) { return (old & ~lanes) | ((value << shift) & lanes); };
  if (register_offset == kIoRegSel) {
    io_register_select_ = static_cast<u8>(merge(io_register_select_));  // bits 31:8 reserved
  } else if (register_offset == kIoWin) {
    write_register(io_register_select_, merge(read_register(io_register_select_)));
  }
}

void IoApic::transfer_state(StateArchive& a) {
  a.field(io_register_select_, "IOAPIC IOREGSEL");
  a.field(id_, "IOAPIC ID", kIdMask);
  a.field(arbitration_, "IOAPIC arbitration ID", kIdMask);
  a.field(inputs_, "IOAPIC inputs", (u64{1} << kPins) - 1);
  for (RedirectionEntry& e : entries_) a.field(e.bits, "IOAPIC redirection entry");
}

}  // namespace x86lab
