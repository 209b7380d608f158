// 16550A registers and interrupt sources. DEVIATION: transmission is instantaneous
// (the transmitter is empty again right after each THR write), so a guest's console
// output costs no modeled time; reception is paced at the programmed baud rate.
#include "platform/devices/uart.h"

namespace x86lab {

namespace {
// Register offsets from the base port.
enum : unsigned { kData = 0, kIer = 1, kIir = 2, kLcr = 3, kMcr = 4, kLsr = 5, kMsr = 6, kScr = 7 };
constexpr u8 kLsrDataReady = 0x01, kLsrOverrun = 0x02, kLsrThre = 0x20, kLsrTemt = 0x40;
constexpr u8 kLsrErrors = 0x1E;  // OE PE FE BI
constexpr u8 kIerRda = 0x01, kIerThre = 0x02, kIerLineStatus = 0x04, kIerModemStatus = 0x08;
}  // namespace

Uart16550::Uart16550(VirtualClock& clock, u16 base, std::function<void(bool)> irq)
    : clock_(clock), base_(base), irq_(std::move(irq)) {
  timeout_event_ = clock_.add_event("uart rx timeout", [this] { timeout_event(); });
  input_event_ = clock_.add_event("uart rx input", [this] { input_poll_event(); });
  update_modem_status();
  msr_ &= 0xF0;  // no deltas at reset
}

void Uart16550::attach_host(SerialHost* host) { host_ = host; }

void Uart16550::set_irq_gate(IrqGate gate) {
  gate_ = gate;
  update_irq();
}

// Host input is polled while the guest can notice it: receive interrupts enabled, or
// a guest polling LSR (each LSR read re-arms an idle poll).
void Uart16550::arm_input_poll() {
  if (host_ && host_->input_open() && !clock_.scheduled(input_event_)) schedule_input_poll(0);
}

u64 Uart16550::character_ns() const {
  // Start bit, 5-8 data bits, optional parity, 1 or 2 stop bits.
  const unsigned bits = 1 + 5 + (lcr_ & 3) + ((lcr_ & 0x08) ? 1 : 0) + ((lcr_ & 0x04) ? 2 : 1);
  const u64 divisor = divisor_ ? divisor_ : 0x10000;
  return bits * divisor * 16 * 1'000'000'000ull / kInputClockHz;
}

unsigned Uart16550::trigger_level() const {
  static constexpr unsigned kLevels[] = {1, 4, 8, 14};
  return kLevels[fcr_ >> 6];
}

bool Uart16550::receiver_has_room() const { return rx_.size() < (fifo_enabled() ? kFifoBytes : 1u); }

void Uart16550::receive(u8 byte) {
  if (!receiver_has_room()) {
    // Overrun: the FIFO keeps its bytes; without FIFO the holding register is overwritten.
    line_errors_ |= kLsrOverrun;
    if (!fifo_enabled()) rx_.back() = byte;
  } else {
    rx_.push_back(byte);
  }
  timeout_pending_ = false;
  schedule_timeout();
  update_irq();
}

// The character timeout of FIFO mode: bytes below the trigger level and no FIFO
// activity for four character times.
void Uart16550::schedule_timeout() {
  if (fifo_enabled() && !rx_.empty()) clock_.schedule(timeout_event_, clock_.now() + clock_.cycle_of_ns(4 * character_ns()));
  else clock_.cancel(timeout_event_);
}

void Uart16550::timeout_event() {
  if (fifo_enabled() && !rx_.empty()) {
    timeout_pending_ = true;
    update_irq();
  }
}

void Uart16550::schedule_input_poll(u64 delay_ns) {
  clock_.schedule(input_event_, clock_.now() + clock_.cycle_of_ns(delay_ns));
}

void Uart16550::input_poll_event() {
  if (!host_ || !host_->input_open()) return;
  // DEVIATION: host input waits while the receiver is full instead of overrunning,
  // so scripted input is never lost.
  if (!receiver_has_room() || loopback()) {
    schedule_input_poll(character_ns());
    return;
  }
  if (auto byte = host_->receive()) {
    receive(*byte);
    schedule_input_poll(character_ns());
  } else if (host_->input_open() && (ier_ & kIerRda)) {
    schedule_input_poll(kIdlePollNs);
  }
}

u8 Uart16550::interrupt_identification() const {
  u8 id = 0x01;  // no interrupt pending
  if ((ier_ & kIerLineStatus) && (line_errors_ & kLsrErrors)) id = 0x06;
  else if ((ier_ & kIerRda) && !rx_.empty() && (!fifo_enabled() || rx_.size() >= trigger_level())) id = 0x04;
  else if ((ier_ & kIerRda) && timeout_pending_) id = 0x0C;
  else if ((ier_ & kIerThre) && thre_pending_) id = 0x02;
  else if ((ier_ & kIerModemStatus) && (msr_ & 0x0F)) id = 0x00;
  return static_cast<u8>(id | (fifo_enabled() ? 0xC0 : 0));
}

void Uart16550::update_irq() {
  // INTR: an enabled interrupt is pending (IIR bit 0 clear). With the PC's gate the IRQ
  // driver is enabled by OUT2, which loopback forces inactive (IrqGate).
  const bool intr = !(interrupt_identification() & 0x01);
  const bool level = gate_ == IrqGate::Direct ? intr : intr && (mcr_ & 0x08) && !loopback();
  if (level != irq_level_) {
    irq_level_ = level;
    if (irq_) irq_(level);
  }
}

void Uart16550::update_modem_status() {
  u8 lines;
  if (loopback()) {
    // CTS = RTS, DSR = DTR, RI = OUT1, DCD = OUT2.
    lines = static_cast<u8>(((mcr_ & 0x02) ? 0x10 : 0) | ((mcr_ & 0x01) ? 0x20 : 0) | ((mcr_ & 0x04) ? 0x40 : 0) |
                            ((mcr_ & 0x08) ? 0x80 : 0));
  } else {
    lines = 0xB0;  // a connected terminal: CTS, DSR and DCD asserted, no ring
  }
  const u8 old = msr_ & 0xF0;
  u8 deltas = msr_ & 0x0F;
  if ((old ^ lines) & 0x10) deltas |= 0x01;            // DCTS
  if ((old ^ lines) & 0x20) deltas |= 0x02;            // DDSR
  if ((old & 0x40) && !(lines & 0x40)) deltas |= 0x04;  // TERI: trailing edge of RI
  if ((old ^ lines) & 0x80) deltas |= 0x08;            // DDCD
  msr_ = static_cast<u8>(lines | deltas);
}

void Uart16550::transmit(u8 byte) {
  if (loopback()) receive(byte);
  else if (host_) host_->transmit(byte);
}

u8 Uart16550::read_rbr() {
  if (rx_.empty()) return 0;
  const u8 byte = rx_.front();
  rx_.pop_front();
  timeout_pending_ = false;
  schedule_timeout();
  return byte;
}

u32 Uart16550::read(u32 port, unsigned) {
  const bool dlab = lcr_ & 0x80;
  u8 value = 0xFF;
  switch (port - base_) {
    case kData: value = dlab ? static_cast<u8>(divisor_) : read_rbr(); break;
    case kIer: value = dlab ? static_cast<u8>(divisor_ >> 8) : ier_; break;
    case kIir:
      value = interrupt_identification();
      if ((value & 0x0F) == 0x02) thre_pending_ = false;  // reading IIR clears a reported THRE
      break;
    case kLcr: value = lcr_; break;
    case kMcr: value = mcr_; break;
    case kLsr:
      value = static_cast<u8>((rx_.empty() ? 0 : kLsrDataReady) | line_errors_ | kLsrThre | kLsrTemt);
      line_errors_ = 0;
      arm_input_poll();
      break;
    case kMsr:
      value = msr_;
      msr_ &= 0xF0;
      break;
    case kScr: value = scr_; break;
    default: break;
  }
  update_irq();
  return value;
}

void Uart16550::write(u32 port, unsigned, u32 value) {
  const u8 byte = static_cast<u8>(value);
  const bool dlab = lcr_ & 0x80;
  switch (port - base_) {
    case kData:
      if (dlab) {
        divisor_ = static_cast<u16>((divisor_ & 0xFF00) | byte);
      } else {
        // The holding register empties at once (see the file comment); the THRE
        // interrupt it clears is pending again before the IRQ line is re-evaluated.
        transmit(byte);
        thre_pending_ = true;
      }
      break;
    case kIer:
      if (dlab) {
        divisor_ = static_cast<u16>((divisor_ & 0x00FF) | (byte << 8));
      } else {
        // Enabling the THRE interrupt with the holding register empty raises it.
        if ((byte & kIerThre) && !(ier_ & kIerThre)) thre_pending_ = true;
        ier_ = byte & 0x0F;
        if (ier_ & kIerRda) arm_input_poll();
      }
      break;
    case kIir: {  // FCR
      const bool was_enabled = fifo_enabled();
      fcr_ = byte & 0xC1;
      if (was_enabled != fifo_enabled() || (byte & 0x02)) {
        rx_.clear();
        timeout_pending_ = false;
      }
      if (!fifo_enabled()) fcr_ = 0;
      schedule_timeout();
      break;
    }
    case kLcr: lcr_ = byte; break;
    case kMcr:
      mcr_ = byte & 0x1F;
      update_modem_status();
      break;
    case kScr: scr_ = byte; break;
    default: break;  // LSR and MSR are read-only
  }
  update_irq();
}

void Uart16550::transfer_state(StateArchive& a) {
  a.sequence(rx_, "UART receive FIFO", kFifoBytes);
  a.field(ier_, "UART IER");
  a.field(lcr_, "UART LCR");
  a.field(mcr_, "UART MCR");
  a.field(fcr_, "UART FCR");
  a.field(scr_, "UART SCR");
  a.field(line_errors_, "UART LSR errors");
  a.field(msr_, "UART MSR");
  a.field(divisor_, "UART divisor");
  a.field(thre_pending_, "UART THRE interrupt");
  a.field(timeout_pending_, "UART timeout interrupt");
  a.field(irq_level_, "UART IRQ");
}

}  // namespace x86lab
