// The 82077AA's registers, reset, interrupt and controller phases (Intel 82077AA data
// sheet, "Register Description", "Reset", "Controller Phases").
#include "platform/devices/fdc82077.h"

namespace x86lab {

namespace {
// Digital output register ("DOR").
constexpr u8 kDorNotReset = 0x04, kDorDmaGate = 0x08;
// Main status register ("MSR").
constexpr u8 kMsrRqm = 0x80, kMsrDio = 0x40, kMsrNonDma = 0x20, kMsrCommandBusy = 0x10;
// Data rate select register ("DSR").
constexpr u8 kDsrSoftwareReset = 0x80;
constexpr u64 kResetDelayNs = 10'000;
}  // namespace

Fdc82077::Fdc82077(VirtualClock& clock, std::function<void(bool)> irq, Dma8237Pair* dma)
    : clock_(clock), irq_(std::move(irq)), dma_(dma) {
  command_event_ = clock_.add_event("fdc82077 command", [this] { on_command_event(); });
  for (unsigned d = 0; d < 4; ++d)
    seek_events_[d] = clock_.add_event("fdc82077 seek", [this, d] { on_seek_event(d); });
  if (dma_) dma_->attach(kDmaChannel, this);
  hardware_reset();
}

u8 Fdc82077::cmos_drive_type(u64 bytes) {
  switch (bytes) {
    case 737'280: return 3;
    case 1'474'560: return 4;
    case 2'949'120: return 5;
    default: return 0;
  }
}

void Fdc82077::insert(unsigned drive, DiskImage* image) {
  if (drive >= kDrives) return;
  Drive& d = drives_[drive];
  d.image = image;
  d.geometry = {};
  if (image) {
    switch (image->size_bytes()) {
      case 737'280: d.geometry = {80, 2, 9, 2}; break;
      case 1'474'560: d.geometry = {80, 2, 18, 0}; break;
      case 2'949'120: d.geometry = {80, 2, 36, 3}; break;
      default: d.image = nullptr; break;  // DiskImage::open admits no other floppy size
    }
  }
  d.disk_changed = true;
}

// The RESET pin: every register to its reset value, CONFIGURE's and SPECIFY's too.
void Fdc82077::hardware_reset() {
  dor_ = 0;
  tdr_ = 0;
  rate_ = 2;
  precomp_ = 0;
  lock_ = false;
  eis_ = false;
  efifo_ = true;
  poll_disabled_ = false;
  fifothr_ = 0;
  pretrk_ = 0;
  perpendicular_ = 0;
  srt_hut_ = hlt_nd_ = 0;
  sc_eot_ = 0;
  pcn_ = {};
  enter_reset();
}

// A software reset (DOR bit 2 low, DSR bit 7): the controller's state machine and
// status are cleared; CONFIGURE's EIS, EFIFO, FIFOTHR and PRETRK survive while LOCK is
// set ("LOCK"), the data rate and SPECIFY's values stay.
void Fdc82077::enter_reset() {
  phase_ = Phase::Reset;
  clock_.cancel(command_event_);
  for (unsigned d = 0; d < 4; ++d) {
    clock_.cancel(seek_events_[d]);
    seeking_[d] = false;
    seek_interrupt_[d] = false;
  }
  if (!lock_) {
    eis_ = false;
    efifo_ = true;
    fifothr_ = 0;
    pretrk_ = 0;
  }
  perpendicular_ &= 0x3C;  // GAP and WGATE clear; D3-D0 stay
  command_.clear();
  result_.clear();
  result_index_ = 0;
  step_ = Step::None;
  host_turn_ = false;
  terminal_count_ = false;
  reset_interrupts_ = 0;
  if (dma_) dma_->set_dreq(kDmaChannel, false);
  interrupt_ = false;
  update_irq();
}

// Leaving reset: after the reset time the controller polls the four drives' ready
// lines and reports a change on each ("Polling Mode", "Reset": four SENSE INTERRUPT
// STATUS commands answer C0h-C3h).
void Fdc82077::leave_reset() {
  phase_ = Phase::Command;
  schedule_step(Step::ResetDone, kResetDelayNs);
}

void Fdc82077::update_irq() {
  if (irq_) irq_(interrupt_ && (dor_ & kDorDmaGate));
}

void Fdc82077::raise_interrupt() {
  interrupt_ = true;
  update_irq();
}

u64 Fdc82077::now_ns() const { return clock_.ns_at(clock_.now()); }

u64 Fdc82077::sector_ns(const Drive& drive) const {
  return revolution_ns() / (drive.geometry.sectors ? drive.geometry.sectors : 18);
}

// SPECIFY's SRT: (16 - SRT) ms per step at 500 kbit/s, scaled by 500 / rate ("SPECIFY",
// the step rate table): 2x at 250 kbit/s, 1.67x at 300, 0.5x at 1 Mbit/s.
u64 Fdc82077::step_ns() const {
  const u64 at_500 = (16u - (srt_hut_ >> 4)) * 1'000'000ull;
  switch (rate_) {
    case 1: return at_500 * 5 / 3;
    case 2: return at_500 * 2;
    case 3: return at_500 / 2;
    default: return at_500;
  }
}

void Fdc82077::schedule_step(Step step, u64 delay_ns) {
  step_ = step;
  clock_.schedule(command_event_, clock_.cycle_of_ns(now_ns() + std::max<u64>(delay_ns, 1'000)));
}

void Fdc82077::on_command_event() {
  const Step step = step_;
  step_ = Step::None;
  switch (step) {
    case Step::ResetDone:
      reset_interrupts_ = 0x0F;
      raise_interrupt();
      break;
    case Step::Sector: sector_event(); break;
    case Step::ReadId: read_id_done(); break;
    case Step::FormatDone: format_done(); break;
    case Step::None: break;
  }
}

u8 Fdc82077::main_status() const {
  u8 busy = 0;
  for (unsigned d = 0; d < 4; ++d)
    if (seeking_[d]) busy |= static_cast<u8>(1u << d);
  switch (phase_) {
    case Phase::Reset: return 0;
    case Phase::Command: return static_cast<u8>(kMsrRqm | busy | (command_.empty() ? 0 : kMsrCommandBusy));
    case Phase::Result: return static_cast<u8>(kMsrRqm | kMsrDio | kMsrCommandBusy | busy);
    case Phase::Execution:
      if (dma_mode_) return static_cast<u8>(kMsrCommandBusy | busy);
      return static_cast<u8>(kMsrNonDma | kMsrCommandBusy | busy |
                             (host_turn_ ? kMsrRqm | (writing_ ? 0 : kMsrDio) : 0));
  }
  return 0;
}

u32 Fdc82077::read(u32 port, unsigned) {
  switch (port & 7) {
    case 0: case 1: return 0xFF;  // status registers A and B: not present in PC-AT mode
    case 2: return dor_;
    case 3: return tdr_ & 0x03;
    case 4: return main_status();
    case 5: return read_fifo();
    case 7: {
      const Drive* selected = (dor_ & 3) < kDrives ? &drives_[dor_ & 3] : nullptr;
      return selected && selected->disk_changed ? 0x80 : 0x00;
    }
    default: return 0xFF;
  }
}

void Fdc82077::write(u32 port, unsigned, u32 value) {
  const u8 byte = static_cast<u8>(value);
  switch (port & 7) {
    case 2: {
      const bool was_reset = !(dor_ & kDorNotReset);
      dor_ = byte;
      if (!(byte & kDorNotReset)) {
        if (!was_reset || phase_ != Phase::Reset) enter_reset();
      } else if (was_reset) {
        leave_reset();
      }
      update_irq();
      break;
    }
    case 3: tdr_ = byte & 0x03; break;
    case 4:  // data rate select register
      rate_ = byte & 3;
      precomp_ = (byte >> 2) & 7;
      if (byte & kDsrSoftwareReset) {  // self-clearing software reset
        enter_reset();
        if (dor_ & kDorNotReset) leave_reset();
      }
      break;
    case 5: write_fifo(byte); break;
    case 7: rate_ = byte & 3; break;  // configuration control register
    default: break;
  }
}

void Fdc82077::start_result(std::initializer_list<u8> bytes) { start_result(std::vector<u8>(bytes)); }

void Fdc82077::start_result(const std::vector<u8>& bytes) {
  result_ = bytes;
  result_index_ = 0;
  command_.clear();
  phase_ = result_.empty() ? Phase::Command : Phase::Result;
}

// The data register: result bytes in the result phase, sector bytes in non-DMA
// execution; anything else reads the last byte again (no RQM: the host must not read).
u8 Fdc82077::read_fifo() {
  if (phase_ == Phase::Result) {
    // "Result Phase": reading the first result byte clears the interrupt of a read,
    // write or READ ID command.
    if (interrupt_) {
      interrupt_ = false;
      update_irq();
    }
    if (result_index_ >= result_.size()) {  // only after loading a damaged snapshot
      start_result({});
      return 0xFF;
    }
    const u8 value = result_[result_index_++];
    if (result_index_ >= result_.size()) start_result({});
    return value;
  }
  if (phase_ == Phase::Execution && !dma_mode_ && host_turn_ && !writing_) {
    interrupt_ = false;  // non-DMA: each byte's interrupt is cleared by its transfer
    update_irq();
    const u8 value = buffer_index_ < buffer_.size() ? buffer_[buffer_index_++] : 0xFF;
    if (buffer_index_ >= buffer_.size()) drain_sector_from_host();
    return value;
  }
  return result_.empty() ? 0xFF : result_.back();
}

void Fdc82077::write_fifo(u8 value) {
  if (phase_ == Phase::Execution && !dma_mode_ && host_turn_ && writing_) {
    interrupt_ = false;
    update_irq();
    if (buffer_index_ < buffer_.size()) buffer_[buffer_index_++] = value;
    if (buffer_index_ >= buffer_.size()) drain_sector_from_host();
    return;
  }
  if (phase_ != Phase::Command) return;  // no RQM: the byte is lost
  command_.push_back(value);
  if (command_.size() >= command_length(command_[0])) execute_command();
}

void Fdc82077::transfer_state(StateArchive& a) {
  for (Drive& d : drives_) {
    bool present = d.image != nullptr;
    const bool had = present;
    a.local(present, "FDC drive has a disk");
    if (present != had)
      throw StateArchiveError("FDC drive: the snapshot's floppy drives differ from this machine's");
    if (d.image) d.image->transfer_state(a);
    a.field(d.disk_changed, "FDC disk change");
    a.field(d.track, "FDC drive track");
  }
  a.field(dor_, "FDC DOR");
  a.field(tdr_, "FDC TDR");
  a.field(rate_, "FDC data rate", 3);
  a.field(precomp_, "FDC precompensation", 7);
  u8 phase = static_cast<u8>(phase_), step = static_cast<u8>(step_);
  a.field(phase, "FDC phase", 3);
  a.field(step, "FDC step", static_cast<u8>(Step::FormatDone));
  phase_ = static_cast<Phase>(phase);
  step_ = static_cast<Step>(step);
  a.field(interrupt_, "FDC INT");
  a.array(pcn_, "FDC PCN");
  a.array(seeking_, "FDC seeking");
  a.array(seek_target_, "FDC seek target");
  a.array(seek_recalibrate_, "FDC recalibrate");
  a.array(seek_interrupt_, "FDC seek interrupt");
  a.array(seek_st0_, "FDC seek ST0");
  a.field(reset_interrupts_, "FDC reset interrupts", 0x0F);
  a.field(srt_hut_, "FDC SRT/HUT");
  a.field(hlt_nd_, "FDC HLT/ND");
  a.field(eis_, "FDC EIS");
  a.field(efifo_, "FDC EFIFO");
  a.field(poll_disabled_, "FDC POLL");
  a.field(fifothr_, "FDC FIFOTHR", 15);
  a.field(pretrk_, "FDC PRETRK");
  a.field(perpendicular_, "FDC perpendicular");
  a.field(sc_eot_, "FDC SC/EOT");
  a.field(lock_, "FDC LOCK");
  a.sequence(command_, "FDC command bytes", 9);
  // The indexes are bounded by their sequence's length in the archive (check mode
  // leaves the members alone, so the bound comes from local copies).
  std::vector<u8> result = result_, buffer = buffer_;
  a.local_sequence(result, "FDC result bytes", 10);
  a.field(result_index_, "FDC result index", result.size());
  if (a.loading()) result_ = result;
  a.field(opcode_, "FDC opcode");
  a.field(dma_mode_, "FDC DMA mode");
  a.field(writing_, "FDC writing");
  a.field(host_turn_, "FDC host turn");
  a.field(terminal_count_, "FDC TC");
  a.field(drive_, "FDC drive", 3);
  a.field(head_, "FDC head", 1);
  a.field(c_, "FDC C");
  a.field(h_, "FDC H");
  a.field(r_, "FDC R");
  a.field(n_, "FDC N");
  a.field(eot_, "FDC EOT");
  a.field(st2_flags_, "FDC ST2 flags");
  a.field(filler_, "FDC format filler");
  a.field(multi_track_, "FDC MT");
  a.field(skip_, "FDC SK");
  a.field(sectors_left_, "FDC sectors left");
  a.local_sequence(buffer, "FDC buffer", 4 * 256);
  a.field(buffer_index_, "FDC buffer index", buffer.size());
  if (a.loading()) buffer_ = buffer;
  a.field(sector_ready_ns_, "FDC sector time");
}

}  // namespace x86lab
