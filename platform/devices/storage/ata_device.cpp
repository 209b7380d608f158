// An ATA device's register file, its PIO and DMA data phases and the ATA commands of a
// hard disk (ATA/ATAPI-6 clause 8 "Command descriptions", clause 9 "Protocol").
#include "platform/devices/storage/ata_device.h"

#include <algorithm>
#include <cstring>

namespace x86lab {

using namespace ata;

namespace {
constexpr u32 kSector = DiskImage::kSectorBytes;
}

AtaDevice::AtaDevice(DiskImage& image, std::string serial)
    : image_(image), serial_(std::move(serial)), default_(default_geometry(image.sectors())), current_(default_) {
  set_signature();
  status_ = packet_device() ? 0 : ready_status();  // power-up as after a reset (ATA-6 9.1)
}

// ---- the register file ----

void AtaDevice::write_register(u8 reg, u8 value) {
  switch (reg) {
    case kFeatures: features_.write(value); break;
    case kSectorCount: sector_count_.write(value); break;
    case kLbaLow: lba_low_.write(value); break;
    case kLbaMid: lba_mid_.write(value); break;
    case kLbaHigh: lba_high_.write(value); break;
    case kDevice: device_ = value; break;
    default: break;
  }
}

u8 AtaDevice::read_register(u8 reg, bool hob) const {
  switch (reg) {
    case kError: return error_;
    case kSectorCount: return hob ? sector_count_.previous : sector_count_.now;
    case kLbaLow: return hob ? lba_low_.previous : lba_low_.now;
    case kLbaMid: return hob ? lba_mid_.previous : lba_mid_.now;
    case kLbaHigh: return hob ? lba_high_.previous : lba_high_.now;
    case kDevice: return device_;
    default: return 0;
  }
}

// ---- command plumbing ----

void AtaDevice::command(u8 code) {
  if ((status_ & (kBsy | kDrq)) && !(packet_device() && code == kDeviceReset)) return;
  begin_command();
  command_ = code;
  if (!packet_device()) {
    execute_ata(code);
    return;
  }
  // The commands of a packet device (ATA-6 6.2.5 "PACKET Command feature set": the
  // mandatory ATA commands of a device implementing it).
  switch (code) {
    case kPacket: start_packet(); break;
    case kIdentifyPacketDevice: identify(); break;
    case kDeviceReset:  // ATA-6 8.10: the signature, Status 00h, no INTRQ
      set_signature();
      status_ = 0;
      break;
    case kIdentifyDevice:  // ATA-6 8.15: a packet device aborts it and places its signature
      set_signature();
      abort(kAbrt);
      break;
    case kSetFeatures: set_features(); break;
    case kCheckPowerMode: sector_count_.now = standby_ ? 0x00 : 0xFF; complete(); break;
    case kIdleImmediate: standby_ = false; complete(); break;
    case kStandbyImmediate:
    case kSleep: standby_ = true; complete(); break;
    default: abort(kAbrt); break;
  }
}

void AtaDevice::begin_command() {
  interrupt_ = false;
  error_ = 0;
  phase_ = Phase::Idle;
  source_ = Source::Buffer;
  buffer_.clear();
  buffer_position_ = 0;
  transfer_left_ = 0;
  block_left_ = 0;
}

void AtaDevice::complete(u8 extra_status) {
  phase_ = Phase::Idle;
  status_ = static_cast<u8>(ready_status() | extra_status);
  interrupt_ = true;
}

void AtaDevice::abort(u8 error) {
  error_ = error;
  phase_ = Phase::Idle;
  buffer_.clear();
  buffer_position_ = 0;
  transfer_left_ = 0;
  status_ = static_cast<u8>(ready_status() | kErr);
  interrupt_ = true;
}

void AtaDevice::fail_transfer(u8 error, u64 sector, bool ext) {
  set_address_registers(sector, ext);
  abort(error);
}

void AtaDevice::set_signature() {
  const Signature s = packet_device() ? kPacketSignature : kAtaSignature;
  sector_count_.now = s.sector_count;
  lba_low_.now = s.lba_low;
  lba_mid_.now = s.lba_mid;
  lba_high_.now = s.lba_high;
  device_ = 0;
  error_ = kDiagnosticPassed;
}

void AtaDevice::hold_software_reset() {
  begin_command();
  status_ = kBsy;
}

void AtaDevice::release_software_reset() {
  set_signature();
  status_ = packet_device() ? 0 : static_cast<u8>(kDrdy | kDsc);
}

void AtaDevice::execute_diagnostic(bool interrupt) {
  begin_command();
  set_signature();
  status_ = packet_device() ? 0 : static_cast<u8>(kDrdy | kDsc);
  interrupt_ = interrupt;
}

// ---- addressing (ATA-6 6.2.1 "Address translation", 6.16 "48-bit Address feature set") ----

bool AtaDevice::decode_address(bool ext, u64& lba, u32& count) {
  if (ext) {
    count = u32{sector_count_.previous} << 8 | sector_count_.now;
    if (count == 0) count = 65536;
    lba = u64{lba_low_.now} | u64{lba_mid_.now} << 8 | u64{lba_high_.now} << 16 | u64{lba_low_.previous} << 24 |
          u64{lba_mid_.previous} << 32 | u64{lba_high_.previous} << 40;
    return true;
  }
  count = sector_count_.now == 0 ? 256 : sector_count_.now;
  if (device_ & kLba) {
    lba = u64{device_ & 0x0Fu} << 24 | u64{lba_high_.now} << 16 | u64{lba_mid_.now} << 8 | lba_low_.now;
    return true;
  }
  const u32 cylinder = u32{lba_high_.now} << 8 | lba_mid_.now, head = device_ & 0x0Fu, sector = lba_low_.now;
  if (sector == 0 || sector > current_.sectors || head >= current_.heads || cylinder >= current_.cylinders) {
    abort(kIdnf);
    return false;
  }
  lba = (u64{cylinder} * current_.heads + head) * current_.sectors + sector - 1;
  return true;
}

void AtaDevice::set_address_registers(u64 lba, bool ext) {
  if (ext) {
    lba_low_ = {static_cast<u8>(lba), static_cast<u8>(lba >> 24)};
    lba_mid_ = {static_cast<u8>(lba >> 8), static_cast<u8>(lba >> 32)};
    lba_high_ = {static_cast<u8>(lba >> 16), static_cast<u8>(lba >> 40)};
  } else if (device_ & kLba) {
    lba_low_.now = static_cast<u8>(lba);
    lba_mid_.now = static_cast<u8>(lba >> 8);
    lba_high_.now = static_cast<u8>(lba >> 16);
    device_ = static_cast<u8>((device_ & 0xF0) | ((lba >> 24) & 0x0F));
  } else if (current_.heads && current_.sectors) {
    const u64 cylinder = lba / (u64{current_.heads} * current_.sectors);
    const u64 head = lba / current_.sectors % current_.heads;
    lba_low_.now = static_cast<u8>(lba % current_.sectors + 1);
    lba_mid_.now = static_cast<u8>(cylinder);
    lba_high_.now = static_cast<u8>(cylinder >> 8);
    device_ = static_cast<u8>((device_ & 0xF0) | (head & 0x0F));
  }
}

// ---- ATA commands of a disk ----

void AtaDevice::execute_ata(u8 code) {
  if ((code & 0xF0) == kRecalibrate || (code & 0xF0) == kSeek) {  // obsolete RECALIBRATE, SEEK: nothing to wait for
    complete();
    return;
  }
  standby_ = false;
  switch (code) {
    case kReadSectors: case kReadSectorsNoRetry: start_read(false, 1, false); break;
    case kReadSectorsExt: start_read(true, 1, false); break;
    case kReadMultiple: case kReadMultipleExt:
      if (multiple_ == 0) abort(kAbrt);  // ATA-6 8.27: multiple mode not enabled
      else start_read(code == kReadMultipleExt, multiple_, false);
      break;
    case kReadDma: case kReadDmaNoRetry: start_read(false, 1, true); break;
    case kReadDmaExt: start_read(true, 1, true); break;
    case kWriteSectors: case kWriteSectorsNoRetry: start_write(false, 1, false); break;
    case kWriteSectorsExt: start_write(true, 1, false); break;
    case kWriteMultiple: case kWriteMultipleExt:
      if (multiple_ == 0) abort(kAbrt);
      else start_write(code == kWriteMultipleExt, multiple_, false);
      break;
    case kWriteDma: case kWriteDmaNoRetry: start_write(false, 1, true); break;
    case kWriteDmaExt: start_write(true, 1, true); break;
    case kReadVerifySectors: case kReadVerifySectorsNoRetry: read_verify(false); break;
    case kReadVerifySectorsExt: read_verify(true); break;
    case kInitializeDeviceParameters: initialize_device_parameters(); break;
    case kSetMultipleMode: set_multiple_mode(); break;
    case kIdentifyDevice: identify(); break;
    case kSetFeatures: set_features(); break;
    case kFlushCache: case kFlushCacheExt:
      if (image_.flush()) complete();
      else abort(kAbrt);
      break;
    case kIdle: case kIdleImmediate: complete(); break;
    case kStandby: case kStandbyImmediate: case kSleep: standby_ = true; complete(); break;
    case kCheckPowerMode: sector_count_.now = 0xFF; complete(); break;  // active or idle
    default: abort(kAbrt); break;  // NOP, PACKET, IDENTIFY PACKET DEVICE and the rest: ATA-6 "command aborted"
  }
}

void AtaDevice::start_read(bool ext, u32 block_sectors, bool dma) {
  u64 lba = 0;
  u32 count = 0;
  if (!decode_address(ext, lba, count)) return;
  // DEVIATION: a range that runs past the end fails before any data moves, at the
  // first sector past the end (a drive would transfer the sectors before it first).
  if (lba >= image_.sectors() || count > image_.sectors() - lba) {
    fail_transfer(kIdnf, std::max(lba, image_.sectors()), ext);
    return;
  }
  ext_ = ext;
  next_sector_ = lba;
  source_ = Source::DiskSectors;
  transfer_left_ = u64{count} * kSector;
  block_bytes_ = block_sectors * kSector;
  if (dma) {
    phase_ = Phase::DmaIn;
    status_ = static_cast<u8>(ready_status() | kDrq);
  } else {
    start_next_in_block();
  }
}

void AtaDevice::start_write(bool ext, u32 block_sectors, bool dma) {
  u64 lba = 0;
  u32 count = 0;
  if (!decode_address(ext, lba, count)) return;
  if (lba >= image_.sectors() || count > image_.sectors() - lba) {
    fail_transfer(kIdnf, std::max(lba, image_.sectors()), ext);
    return;
  }
  if (image_.read_only()) {  // a write-protected medium: WP and ABRT, nothing written
    fail_transfer(kWp | kAbrt, lba, ext);
    return;
  }
  ext_ = ext;
  next_sector_ = lba;
  transfer_left_ = u64{count} * kSector;
  block_bytes_ = block_sectors * kSector;
  status_ = static_cast<u8>(ready_status() | kDrq);
  if (dma) {
    phase_ = Phase::DmaOut;
  } else {  // ATA-6 9.8 "PIO data-out": the first block is requested without INTRQ
    phase_ = Phase::PioOut;
    block_left_ = static_cast<u32>(std::min<u64>(block_bytes_, transfer_left_));
  }
}

void AtaDevice::read_verify(bool ext) {
  u64 lba = 0;
  u32 count = 0;
  if (!decode_address(ext, lba, count)) return;
  if (lba >= image_.sectors() || count > image_.sectors() - lba) fail_transfer(kIdnf, std::max(lba, image_.sectors()), ext);
  else complete();
}

void AtaDevice::set_features() {
  const u8 value = sector_count_.now;
  switch (features_.now) {
    case kFeatureSetTransferMode: {
      // ATA-6 8.46.11, Table 45: 00h PIO default, 01h PIO default without IORDY,
      // 08h+n PIO flow-control mode n, 20h+n multiword DMA n, 40h+n Ultra DMA n.
      const u8 mode = value & 7;
      const bool valid = value <= 1 || ((value & 0xF8) == 0x08 && mode <= 4) || ((value & 0xF8) == 0x20 && mode <= 2) ||
                         ((value & 0xF8) == 0x40 && mode <= 5);
      if (!valid) {
        abort(kAbrt);
        return;
      }
      transfer_mode_ = value <= 1 ? 0x0C : value;
      complete();
      return;
    }
    case kFeatureEnableWriteCache: write_cache_ = true; complete(); return;
    case kFeatureDisableWriteCache: write_cache_ = false; complete(); return;
    case kFeatureDisableRevertingToPowerOn:
    case kFeatureEnableRevertingToPowerOn:
    case 0x55:  // disable read look-ahead
    case 0xAA:  // enable read look-ahead
      complete();
      return;
    default: abort(kAbrt); return;
  }
}

// ATA-6 8.48 SET MULTIPLE MODE: a block of 2, 4, 8 or 16 sectors (word 47 says 16 at
// most; 1 is a power of two too). DEVIATION: a count of 0 disables multiple mode
// (ATA-6 leaves it to the device).
void AtaDevice::set_multiple_mode() {
  const u8 count = sector_count_.now;
  if (count > 16 || (count & (count - 1)) != 0) {
    abort(kAbrt);
    return;
  }
  multiple_ = count;
  complete();
}

// ATA-6 8.16 INITIALIZE DEVICE PARAMETERS: heads from Device bits 3:0 plus one,
// sectors per track from Sector Count; the cylinders follow from the capacity.
void AtaDevice::initialize_device_parameters() {
  const u32 sectors = sector_count_.now, heads = (device_ & 0x0Fu) + 1;
  if (sectors == 0) {
    abort(kAbrt);
    return;
  }
  const u64 cylinders = std::clamp<u64>(image_.sectors() / (u64{heads} * sectors), 1, 65535);
  current_ = {static_cast<u32>(cylinders), heads, sectors};
  complete();
}

void AtaDevice::identify() {
  const std::array<u16, 256> words = identify_data();
  buffer_.resize(512);
  for (unsigned i = 0; i < 256; ++i) {
    buffer_[2 * i] = static_cast<u8>(words[i]);
    buffer_[2 * i + 1] = static_cast<u8>(words[i] >> 8);
  }
  source_ = Source::Buffer;
  transfer_left_ = 512;
  block_bytes_ = 512;
  start_next_in_block();
}

// ---- the data phases (ATA-6 9.7 "PIO data-in", 9.8 "PIO data-out", 9.10 "DMA") ----

bool AtaDevice::fill(std::size_t bytes) {
  if (buffer_.size() - buffer_position_ >= bytes) return true;
  if (buffer_position_) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + buffer_position_);
    buffer_position_ = 0;
  }
  while (buffer_.size() < bytes) {  // whole sectors or CD blocks
    const std::size_t at = buffer_.size();
    if (source_ == Source::DiskSectors) {
      buffer_.resize(at + kSector);
      if (!image_.read(next_sector_, std::span<u8>(buffer_.data() + at, kSector))) {
        fail_transfer(next_sector_ >= image_.sectors() ? kIdnf : kUnc, next_sector_, ext_);
        return false;
      }
      ++next_sector_;
    } else if (source_ == Source::CdBlocks) {
      buffer_.resize(at + 2048);
      if (!image_.read(next_sector_ * 4, std::span<u8>(buffer_.data() + at, 2048))) {
        check_condition(0x03, 0x11);  // MEDIUM ERROR, UNRECOVERED READ ERROR (SPC-2 Annex D)
        return false;
      }
      ++next_sector_;
    } else {
      abort(kAbrt);  // an internal shortfall: the buffer should hold the whole response
      return false;
    }
  }
  return true;
}

void AtaDevice::start_next_in_block() {
  block_left_ = static_cast<u32>(std::min<u64>(block_bytes_, transfer_left_));
  if (!fill(block_left_)) return;
  phase_ = Phase::PioIn;
  status_ = static_cast<u8>(ready_status() | kDrq);
  interrupt_ = true;
}

u32 AtaDevice::read_data(unsigned size) {
  if (phase_ != Phase::PioIn) return size == 4 ? 0xFFFFFFFFu : 0xFFFFu;
  u32 value = 0;
  const unsigned words = size == 4 ? 2 : 1;
  for (unsigned w = 0; w < words && phase_ == Phase::PioIn; ++w) {
    const unsigned bytes = std::min<u32>(2, block_left_);
    if (!fill(bytes)) break;
    for (unsigned b = 0; b < bytes; ++b) value |= u32{buffer_[buffer_position_ + b]} << (16 * w + 8 * b);
    buffer_position_ += bytes;
    block_left_ -= bytes;
    transfer_left_ -= bytes;
    if (block_left_ == 0) end_in_block();
  }
  return value;
}

void AtaDevice::start_pio_in(u64 total_bytes) {
  transfer_left_ = total_bytes;
  start_next_in_block();
}

void AtaDevice::end_in_block() {
  if (transfer_left_ == 0) finish_data_phase();
  else if (command_ == kPacket) packet_next_block();
  else start_next_in_block();
}

void AtaDevice::write_data(unsigned size, u32 value) {
  const unsigned bytes = size == 4 ? 4 : 2;
  if (phase_ == Phase::Packet) {
    for (unsigned b = 0; b < bytes && buffer_.size() < 12; ++b) buffer_.push_back(static_cast<u8>(value >> (8 * b)));
    if (buffer_.size() == 12) execute_packet();
    return;
  }
  for (unsigned w = 0; w < bytes / 2 && phase_ == Phase::PioOut; ++w) {
    buffer_.push_back(static_cast<u8>(value >> (16 * w)));
    buffer_.push_back(static_cast<u8>(value >> (16 * w + 8)));
    block_left_ -= 2;
    transfer_left_ -= 2;
    if (block_left_ == 0) end_out_block();
  }
}

bool AtaDevice::write_buffered_sectors() {
  const std::size_t sectors = buffer_.size() / kSector;
  if (sectors == 0) return true;
  if (!image_.write(next_sector_, std::span<const u8>(buffer_.data(), sectors * kSector))) {
    const u8 error = image_.read_only() ? kWp | kAbrt : next_sector_ + sectors > image_.sectors() ? kIdnf : kAbrt;
    fail_transfer(error, next_sector_, ext_);
    return false;
  }
  next_sector_ += sectors;
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(sectors * kSector));
  return true;
}

void AtaDevice::end_out_block() {
  if (!write_buffered_sectors()) return;
  if (transfer_left_ == 0) {
    complete();
    return;
  }
  block_left_ = static_cast<u32>(std::min<u64>(block_bytes_, transfer_left_));
  status_ = static_cast<u8>(ready_status() | kDrq);
  interrupt_ = true;
}

// The end of a command's data: a PIO data-in command ends without INTRQ (ATA-6 9.7:
// the interrupt came with the last block); DMA, PIO data-out and packet commands end
// with one.
void AtaDevice::finish_data_phase() {
  if (command_ == kPacket) {
    packet_good();
  } else if (phase_ == Phase::PioIn) {
    phase_ = Phase::Idle;
    status_ = ready_status();
  } else {
    complete();
  }
}

std::size_t AtaDevice::dma_read(std::span<u8> bytes) {
  if (phase_ != Phase::DmaIn) return 0;
  const std::size_t n = static_cast<std::size_t>(std::min<u64>(bytes.size(), transfer_left_));
  if (!fill(n)) return 0;
  std::memcpy(bytes.data(), buffer_.data() + buffer_position_, n);
  buffer_position_ += static_cast<u32>(n);
  transfer_left_ -= n;
  if (transfer_left_ == 0) finish_data_phase();
  return n;
}

std::size_t AtaDevice::dma_write(std::span<const u8> bytes) {
  if (phase_ != Phase::DmaOut) return 0;
  const std::size_t n = static_cast<std::size_t>(std::min<u64>(bytes.size(), transfer_left_));
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
  transfer_left_ -= n;
  if (!write_buffered_sectors()) return n;
  if (transfer_left_ == 0) finish_data_phase();
  return n;
}

// ---- machine state ----

void AtaDevice::transfer_state(StateArchive& a) {
  for (Register2* r : {&features_, &sector_count_, &lba_low_, &lba_mid_, &lba_high_}) {
    a.field(r->now, "ata register");
    a.field(r->previous, "ata register");
  }
  a.field(device_, "ata device");
  a.field(error_, "ata error");
  a.field(status_, "ata status");
  a.field(interrupt_, "ata intrq");
  a.field(current_.cylinders, "ata cylinders", 65535);
  a.field(current_.heads, "ata heads", 16);
  a.field(current_.sectors, "ata sectors per track", 255);
  a.field(multiple_, "ata multiple count", 16);
  a.field(transfer_mode_, "ata transfer mode");
  a.field(write_cache_, "ata write cache");
  a.field(standby_, "ata standby");
  a.field(phase_, "ata phase", static_cast<u64>(Phase::Packet));
  a.field(source_, "ata source", static_cast<u64>(Source::CdBlocks));
  a.field(command_, "ata command");
  a.field(ext_, "ata ext");
  std::vector<u8> pending(buffer_.begin() + buffer_position_, buffer_.end());
  a.local_sequence(pending, "ata buffer", 256u * 1024u * 1024u);
  if (a.loading()) {
    buffer_ = std::move(pending);
    buffer_position_ = 0;
  }
  a.field(next_sector_, "ata next sector");
  a.field(transfer_left_, "ata transfer left");
  a.field(block_left_, "ata block left");
  a.field(block_bytes_, "ata block bytes");
  for (u8& b : packet_) a.field(b, "atapi packet");
  a.field(packet_dma_, "atapi dma");
  a.field(byte_count_limit_, "atapi byte count limit", 0xFFFE);
  a.field(sense_key_, "atapi sense key", 15);
  a.field(asc_, "atapi asc");
  a.field(ascq_, "atapi ascq");
  a.field(medium_locked_, "atapi medium locked");
}

}  // namespace x86lab
