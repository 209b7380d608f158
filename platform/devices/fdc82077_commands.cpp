// The 82077AA's command set: decoding, execution and result bytes (Intel 82077AA data
// sheet, "Command Set/Descriptions", "Status Register Encoding" and the table of C, H,
// R, N values in the result phase).
#include "platform/devices/fdc82077.h"

#include <algorithm>
#include <cstdlib>

namespace x86lab {

namespace {
// Opcodes, after removing the MT (bit 7), MFM (bit 6) and SK (bit 5) bits where the
// command has them ("Command Set Summary").
constexpr u8 kReadData = 0x06, kReadDeletedData = 0x0C, kWriteData = 0x05, kWriteDeletedData = 0x09,
             kVerify = 0x16, kReadId = 0x0A, kFormatTrack = 0x0D, kRecalibrate = 0x07, kSenseInterrupt = 0x08,
             kSpecify = 0x03, kSenseDriveStatus = 0x04, kSeek = 0x0F, kVersion = 0x10, kConfigure = 0x13,
             kDumpRegisters = 0x0E, kPerpendicular = 0x12, kLock = 0x14, kInvalid = 0xFF;
constexpr u8 kMultiTrack = 0x80, kMfm = 0x40, kSkip = 0x20;
// Status register 0: interrupt codes, seek end, equipment check.
constexpr u8 kNormal = 0x00, kAbnormal = 0x40, kInvalidCommand = 0x80, kPolling = 0xC0, kSeekEnd = 0x20,
             kEquipmentCheck = 0x10;
// Status register 1.
constexpr u8 kEndOfCylinder = 0x80, kDataError = 0x20, kOverrun = 0x10, kNoData = 0x04, kNotWritable = 0x02,
             kMissingAddressMark = 0x01;
// Status register 2.
constexpr u8 kControlMark = 0x40, kDataErrorInData = 0x20, kWrongCylinder = 0x10, kBadCylinder = 0x02;
// Status register 3.
constexpr u8 kWriteProtected = 0x40, kTrack0 = 0x10, kSt3AlwaysSet = 0x28;
constexpr unsigned kRecalibrateSteps = 79;  // RECALIBRATE gives up after 79 step pulses ("RECALIBRATE")
constexpr unsigned kLastPhysicalTrack = 83;

// The command a first byte starts: its opcode (kInvalid for none) with the bits that
// must be zero checked.
u8 decode(u8 first) {
  switch (first & 0x1F) {
    case kReadData: case kReadDeletedData: case kVerify: return first & 0x1F;
    default: break;
  }
  if ((first & 0x3F) == kWriteData || (first & 0x3F) == kWriteDeletedData) return first & 0x3F;
  if ((first & 0xBF) == kReadId || (first & 0xBF) == kFormatTrack) return first & 0x3F;
  if ((first & 0xBF) == 0x8F) return kSeek;  // RELATIVE SEEK: 1 DIR 0 0 1 1 1 1
  if ((first & 0x7F) == kLock) return kLock;
  switch (first) {
    case kRecalibrate: case kSenseInterrupt: case kSpecify: case kSenseDriveStatus: case kSeek: case kVersion:
    case kConfigure: case kDumpRegisters: case kPerpendicular:
      return first;
    default: return kInvalid;
  }
}
}  // namespace

// Command bytes including the first ("Command Set Summary").
unsigned Fdc82077::command_length(u8 first) {
  switch (decode(first)) {
    case kReadData: case kReadDeletedData: case kWriteData: case kWriteDeletedData: case kVerify: return 9;
    case kFormatTrack: return 6;
    case kConfigure: return 4;
    case kSpecify: case kSeek: return 3;
    case kReadId: case kRecalibrate: case kSenseDriveStatus: case kPerpendicular: return 2;
    default: return 1;
  }
}

u8 Fdc82077::st0(u8 code) const { return static_cast<u8>(code | (head_ << 2) | drive_); }

void Fdc82077::execute_command() {
  const u8 first = command_[0];
  const u8 op = decode(first);
  const std::vector<u8> p = command_;
  if (p.size() >= 2) {
    drive_ = p[1] & 3;
    head_ = (p[1] >> 2) & 1;
  }
  opcode_ = op;
  switch (op) {
    case kReadData: case kReadDeletedData: case kWriteData: case kWriteDeletedData: case kVerify:
      multi_track_ = first & kMultiTrack;
      skip_ = first & kSkip;
      c_ = p[2];
      h_ = p[3];
      r_ = p[4];
      n_ = p[5];
      eot_ = p[6];
      sc_eot_ = eot_;
      sectors_left_ = op == kVerify && (p[1] & 0x80) ? (p[8] ? p[8] : 256) : 0;
      writing_ = op == kWriteData || op == kWriteDeletedData;
      if (!(first & kMfm)) n_ = 0xFF;  // FM: no MFM address mark will be found
      start_transfer();
      return;
    case kReadId:
      phase_ = Phase::Execution;
      writing_ = false;
      if (!(first & kMfm)) n_ = 0xFF;
      else n_ = 2;
      {
        const Drive* d = drive_ < kDrives ? &drives_[drive_] : nullptr;
        const u64 st = d ? sector_ns(*d) : revolution_ns() / 18;
        schedule_step(Step::ReadId, st - now_ns() % st);
      }
      return;
    case kFormatTrack:
      n_ = (first & kMfm) ? p[2] : 0xFF;
      filler_ = p[5];
      sc_eot_ = p[3];
      buffer_.assign(4u * p[3], 0);
      start_format();
      return;
    case kRecalibrate: start_result({}); start_seek(drive_, 0, true); return;
    case kSeek: {
      unsigned target = p[2];
      if (first & 0x80) {  // relative: DIR (bit 6) 1 = inward, to higher cylinders
        const int moved = (first & 0x40) ? pcn_[drive_] + p[2] : pcn_[drive_] - p[2];
        target = static_cast<unsigned>(std::clamp(moved, 0, 255));
      }
      start_result({});
      start_seek(drive_, target, false);
      return;
    }
    case kSenseInterrupt: sense_interrupt(); return;
    case kSpecify:
      srt_hut_ = p[1];
      hlt_nd_ = p[2];
      dma_mode_ = !(p[2] & 1);
      start_result({});
      return;
    case kSenseDriveStatus: {
      const Drive* d = drive_ < kDrives && drives_[drive_].image ? &drives_[drive_] : nullptr;
      const u8 st3 = static_cast<u8>((d && d->image->read_only() ? kWriteProtected : 0) |
                                     (d && d->track == 0 ? kTrack0 : 0) | kSt3AlwaysSet | (head_ << 2) | drive_);
      start_result({st3});
      return;
    }
    case kVersion: start_result({0x90}); return;  // an enhanced controller (82077AA)
    case kConfigure:
      eis_ = p[2] & 0x40;
      efifo_ = p[2] & 0x20;
      poll_disabled_ = p[2] & 0x10;
      fifothr_ = p[2] & 0x0F;
      pretrk_ = p[3];
      start_result({});
      return;
    case kDumpRegisters: dump_registers(); return;
    case kPerpendicular:
      perpendicular_ = static_cast<u8>(((p[1] & 0x80) ? (p[1] & 0x3C) : (perpendicular_ & 0x3C)) | (p[1] & 0x03));
      start_result({});
      return;
    case kLock:
      lock_ = first & 0x80;
      start_result({static_cast<u8>(lock_ ? 0x10 : 0x00)});
      return;
    default: start_result({kInvalidCommand}); return;  // "Invalid Commands": ST0 = 80h
  }
}

// DUMPREG's ten bytes ("DUMPREG").
void Fdc82077::dump_registers() {
  start_result({pcn_[0], pcn_[1], pcn_[2], pcn_[3], srt_hut_, hlt_nd_, sc_eot_,
                static_cast<u8>((lock_ ? 0x80 : 0) | (perpendicular_ & 0x3F)),
                static_cast<u8>((eis_ ? 0x40 : 0) | (efifo_ ? 0x20 : 0) | (poll_disabled_ ? 0x10 : 0) | fifothr_),
                pretrk_});
}

// SENSE INTERRUPT STATUS: the reset polling interrupts first (ST0 = C0h + drive), then
// finished seeks and recalibrations; with nothing pending the command is invalid.
void Fdc82077::sense_interrupt() {
  for (unsigned d = 0; d < 4; ++d)
    if (reset_interrupts_ & (1u << d)) {
      reset_interrupts_ &= static_cast<u8>(~(1u << d));
      start_result({static_cast<u8>(kPolling | d), pcn_[d]});
      if (!reset_interrupts_) interrupt_ = false;
      update_irq();
      return;
    }
  for (unsigned d = 0; d < 4; ++d)
    if (seek_interrupt_[d]) {
      seek_interrupt_[d] = false;
      start_result({seek_st0_[d], pcn_[d]});
      bool more = false;
      for (bool pending : seek_interrupt_) more |= pending;
      if (!more) interrupt_ = false;
      update_irq();
      return;
    }
  start_result({kInvalidCommand});
}

// SEEK, RELATIVE SEEK and RECALIBRATE: the drive steps while the controller takes new
// commands (its MSR busy bit set); at the end an interrupt, and SENSE INTERRUPT
// STATUS answers ST0 with SE (and EC when RECALIBRATE found no track 0).
void Fdc82077::start_seek(unsigned drive, unsigned target, bool recalibrate) {
  const bool present = drive < kDrives && drives_[drive].image;
  unsigned steps = target > pcn_[drive] ? target - pcn_[drive] : pcn_[drive] - target;
  if (recalibrate) steps = present ? std::min<unsigned>(drives_[drive].track, kRecalibrateSteps) : kRecalibrateSteps;
  seeking_[drive] = true;
  seek_target_[drive] = static_cast<u8>(target);
  seek_recalibrate_[drive] = recalibrate;
  clock_.schedule(seek_events_[drive], clock_.cycle_of_ns(now_ns() + std::max<u64>(steps * step_ns(), 1'000)));
  seek_st0_[drive] = static_cast<u8>(kSeekEnd | (head_ << 2) | drive);
}

void Fdc82077::on_seek_event(unsigned drive) {
  seeking_[drive] = false;
  const bool present = drive < kDrives && drives_[drive].image;
  if (seek_recalibrate_[drive]) {
    if (present && drives_[drive].track <= kRecalibrateSteps) {
      if (drives_[drive].track) drives_[drive].disk_changed = false;
      drives_[drive].track = 0;
      pcn_[drive] = 0;
    } else {  // no track 0 signal after 79 steps
      if (present) drives_[drive].track = static_cast<u8>(drives_[drive].track - kRecalibrateSteps);
      pcn_[drive] = 0;
      seek_st0_[drive] |= kAbnormal | kEquipmentCheck;
    }
  } else {
    const int moved = int(seek_target_[drive]) - int(pcn_[drive]);
    if (present && moved) {
      Drive& d = drives_[drive];
      d.track = static_cast<u8>(std::clamp(int(d.track) + moved, 0, int(kLastPhysicalTrack)));
      d.disk_changed = false;  // a step pulse with a disk in the drive resets DSKCHG
    }
    pcn_[drive] = seek_target_[drive];
  }
  seek_interrupt_[drive] = true;
  raise_interrupt();
}

bool Fdc82077::medium_readable(const Drive& drive) const {
  return drive.image && drive.geometry.rate == rate_ && n_ != 0xFF;
}

u64 Fdc82077::sector_lba(const Drive& drive) const {
  const Geometry& g = drive.geometry;
  return (u64{drive.track} * g.heads + head_) * g.sectors + (r_ - 1u);
}

// The end of sector r_ after `start_ns`: the next time its start passes under the head,
// plus one sector time.
void Fdc82077::schedule_sector(u64 start_ns) {
  const Drive* d = drive_ < kDrives ? &drives_[drive_] : nullptr;
  const u64 st = d ? sector_ns(*d) : revolution_ns() / 18;
  const u64 rev = revolution_ns();
  const u64 angle = (r_ >= 1 && d && r_ <= d->geometry.sectors ? (r_ - 1u) * st : 0);
  const u64 wait = (angle + rev - start_ns % rev) % rev;
  // A sector not on the track is searched for two turns (two index pulses) before
  // the controller gives up.
  const bool found = d && medium_readable(*d) && r_ >= 1 && r_ <= d->geometry.sectors;
  sector_ready_ns_ = start_ns + (found ? wait + st : 2 * rev);
  step_ = Step::Sector;
  clock_.schedule(command_event_, clock_.cycle_of_ns(std::max(sector_ready_ns_, now_ns() + 1'000)));
}

// READ DATA, READ DELETED DATA, WRITE DATA, WRITE DELETED DATA, VERIFY: with implied
// seek (CONFIGURE's EIS) the head first moves to cylinder C, then the sectors pass.
void Fdc82077::start_transfer() {
  phase_ = Phase::Execution;
  terminal_count_ = false;
  st2_flags_ = 0;
  host_turn_ = false;
  u64 start = now_ns();
  if (eis_ && drive_ < kDrives && pcn_[drive_] != c_) {
    Drive& d = drives_[drive_];
    const int moved = int(c_) - int(pcn_[drive_]);
    start += static_cast<u64>(std::abs(moved)) * step_ns();
    if (d.image) {
      d.track = static_cast<u8>(std::clamp(int(d.track) + moved, 0, int(kLastPhysicalTrack)));
      d.disk_changed = false;
    }
    pcn_[drive_] = c_;
  }
  schedule_sector(start);
}

// The end of the current sector passed under the head: check its ID, then move its data.
void Fdc82077::sector_event() {
  if (drive_ >= kDrives || !medium_readable(drives_[drive_])) return finish_transfer(kAbnormal, kMissingAddressMark, 0);
  Drive& d = drives_[drive_];
  if (writing_ && d.image->read_only()) return finish_transfer(kAbnormal, kNotWritable, 0);
  if (c_ != d.track || h_ != head_ || n_ != 2 || r_ < 1 || r_ > d.geometry.sectors || d.track >= d.geometry.cylinders)
    return finish_transfer(kAbnormal, kNoData, c_ != d.track ? (c_ == 0xFF ? kBadCylinder : kWrongCylinder) : 0);
  if (opcode_ == kReadDeletedData) {
    // Every sector has a normal data mark: with SK the sector is skipped, without SK it
    // is read, CM is set and the command ends after it ("SK effect" table).
    st2_flags_ |= kControlMark;
    if (skip_) {
      sector_done();
      return;
    }
  }
  buffer_.assign(DiskImage::kSectorBytes, 0);
  buffer_index_ = 0;
  if (!writing_ && !d.image->read(sector_lba(d), buffer_)) return finish_transfer(kAbnormal, kDataError, kDataErrorInData);
  if (opcode_ == kVerify) {
    sector_done();
    return;
  }
  if (!dma_mode_) {  // the host moves the bytes through the data register; INT says so
    host_turn_ = true;
    raise_interrupt();
    return;
  }
  if (dma_ && (dor_ & 0x08)) {
    dma_->set_dreq(kDmaChannel, true);
    dma_->set_dreq(kDmaChannel, false);
  }
  if (buffer_index_ < buffer_.size() && !terminal_count_) return finish_transfer(kAbnormal, kOverrun, 0);
  if (writing_ && !commit_write()) return;
  sector_done();
}

bool Fdc82077::commit_write() {
  if (drive_ >= kDrives || !drives_[drive_].image) {  // a loaded snapshot's state only
    finish_transfer(kAbnormal, kMissingAddressMark, 0);
    return false;
  }
  Drive& d = drives_[drive_];
  if (d.image->write(sector_lba(d), buffer_)) return true;
  finish_transfer(kAbnormal, kDataError, 0);
  return false;
}

// Non-DMA: the host moved the last byte of the sector (or of FORMAT's IDs).
void Fdc82077::drain_sector_from_host() {
  host_turn_ = false;
  if (opcode_ == kFormatTrack) {
    schedule_step(Step::FormatDone, 2 * revolution_ns() - now_ns() % revolution_ns());
    return;
  }
  if (writing_ && !commit_write()) return;
  sector_done();
}

// After a sector: terminal count ends the command normally with the next sector's ID
// in the result; READ DELETED DATA without SK ends at once; else on to the next sector,
// and past EOT (and the last head with MT) the command ends with EN.
void Fdc82077::sector_done() {
  if (opcode_ == kReadDeletedData && !skip_) return finish_transfer(kNormal, 0, 0);
  if (terminal_count_) {
    next_sector();
    return finish_transfer(kNormal, 0, 0);
  }
  if (opcode_ == kVerify && sectors_left_ && --sectors_left_ == 0) {
    next_sector();
    return finish_transfer(kNormal, 0, 0);
  }
  if (!next_sector()) {
    // VERIFY with EC = 0 ends normally at EOT (there is no TC without DMA).
    if (opcode_ == kVerify && !(command_.size() > 1 && (command_[1] & 0x80)) && !sectors_left_)
      return finish_transfer(kNormal, 0, 0);
    return finish_transfer(kAbnormal, kEndOfCylinder, 0);
  }
  // The next sector's ID field follows this sector's data field under the head (the
  // gaps are not modeled): with DMA the bytes moved at sector_ready_ns_, and the
  // event that got here ran at the first instruction boundary after it, so now_ns()
  // lags by an instruction or two. Starting from now_ns() would miss the next
  // sector's start by those nanoseconds and wait a whole turn (200 ms) for each
  // sector. Without DMA the host moved the bytes: the next sector comes after that.
  schedule_sector(dma_mode_ ? sector_ready_ns_ : std::max(sector_ready_ns_, now_ns()));
}

// Steps the ID to the next sector ("C, H, R, N in the result phase" table): R + 1
// before EOT; at EOT R = 1 and, with MT on side 0, side 1 follows (H complemented),
// else C + 1 (and H complemented with MT). False when the command must stop.
bool Fdc82077::next_sector() {
  if (r_ != eot_) {
    ++r_;
    return true;
  }
  r_ = 1;
  if (multi_track_ && head_ == 0) {
    head_ = 1;
    h_ ^= 1;
    return true;
  }
  ++c_;
  if (multi_track_) h_ ^= 1;
  return false;
}

void Fdc82077::finish_transfer(u8 st0_code, u8 st1, u8 st2) {
  if (dma_) dma_->set_dreq(kDmaChannel, false);
  host_turn_ = false;
  clock_.cancel(command_event_);
  step_ = Step::None;
  start_result({st0(st0_code), st1, static_cast<u8>(st2 | st2_flags_), c_, h_, r_, n_});
  raise_interrupt();
}

// READ ID: the first ID field that passes the head after the command.
void Fdc82077::read_id_done() {
  if (drive_ >= kDrives || !medium_readable(drives_[drive_])) {
    c_ = pcn_[drive_];
    h_ = head_;
    r_ = 1;
    return finish_transfer(kAbnormal, kMissingAddressMark, 0);
  }
  const Drive& d = drives_[drive_];
  const u64 st = sector_ns(d);
  c_ = d.track;
  h_ = head_;
  r_ = static_cast<u8>((now_ns() % revolution_ns()) / st % d.geometry.sectors + 1);
  n_ = 2;
  finish_transfer(kNormal, 0, 0);
}

// FORMAT TRACK: the IDs (C, H, R, N for each of SC sectors) come from the host after
// the index pulse; the track is written during the turn and the command ends at the
// next index pulse.
void Fdc82077::start_format() {
  phase_ = Phase::Execution;
  writing_ = true;
  terminal_count_ = false;
  st2_flags_ = 0;
  buffer_index_ = 0;
  host_turn_ = false;
  c_ = drive_ < kDrives ? drives_[drive_].track : 0;
  h_ = head_;
  r_ = 1;
  if (drive_ >= kDrives || !medium_readable(drives_[drive_]))
    return finish_transfer(kAbnormal, kMissingAddressMark, 0);
  if (drives_[drive_].image->read_only()) return finish_transfer(kAbnormal, kNotWritable, 0);
  if (!dma_mode_) {
    host_turn_ = !buffer_.empty();
    if (host_turn_) raise_interrupt();
    else drain_sector_from_host();
    return;
  }
  if (dma_ && (dor_ & 0x08)) {
    dma_->set_dreq(kDmaChannel, true);
    dma_->set_dreq(kDmaChannel, false);
  }
  if (buffer_index_ < buffer_.size() && !terminal_count_) return finish_transfer(kAbnormal, kOverrun, 0);
  schedule_step(Step::FormatDone, 2 * revolution_ns() - now_ns() % revolution_ns());
}

void Fdc82077::format_done() {
  if (drive_ >= kDrives || !drives_[drive_].image) return finish_transfer(kAbnormal, kMissingAddressMark, 0);
  Drive& d = drives_[drive_];
  const std::vector<u8> filler(DiskImage::kSectorBytes, filler_);
  for (std::size_t i = 0; i + 4 <= buffer_index_; i += 4) {
    const u8 c = buffer_[i], h = buffer_[i + 1], r = buffer_[i + 2], n = buffer_[i + 3];
    c_ = c;
    h_ = h;
    r_ = r;
    n_ = n;
    if (c != d.track || h != head_ || n != 2 || r < 1 || r > d.geometry.sectors) continue;
    if (!d.image->write(sector_lba(d), filler)) return finish_transfer(kAbnormal, kDataError, 0);
  }
  finish_transfer(kNormal, 0, 0);
}

u16 Fdc82077::dma_read_unit() {
  if (buffer_index_ >= buffer_.size() || writing_) {
    if (dma_) dma_->set_dreq(kDmaChannel, false);
    return 0xFF;
  }
  const u8 value = buffer_[buffer_index_++];
  if (buffer_index_ >= buffer_.size() && dma_) dma_->set_dreq(kDmaChannel, false);
  return value;
}

void Fdc82077::dma_write_unit(u16 value) {
  if (buffer_index_ < buffer_.size() && writing_) buffer_[buffer_index_++] = static_cast<u8>(value);
  if (buffer_index_ >= buffer_.size() && dma_) dma_->set_dreq(kDmaChannel, false);
}

void Fdc82077::dma_terminal_count() {
  terminal_count_ = true;
  if (dma_) dma_->set_dreq(kDmaChannel, false);
}

}  // namespace x86lab
