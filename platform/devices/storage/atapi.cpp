// The ATAPI PACKET command protocol and the packet commands of a CD-ROM read from an
// ISO 9660 image (ATA/ATAPI-6 8.21 "PACKET" and 9.11 "PACKET protocol"; the commands
// from MMC-2 (T10/1228-D) and SPC-2 (T10/1236-D), sections named at each).
#include <algorithm>

#include "platform/devices/storage/ata_device.h"

namespace x86lab {

using namespace ata;

namespace {
// Sense keys (SPC-2 Table 107) and additional sense codes (SPC-2 Annex D).
constexpr u8 kNoSense = 0x00, kIllegalRequest = 0x05;
constexpr u8 kInvalidCommandOperationCode = 0x20, kLbaOutOfRange = 0x21, kInvalidFieldInCdb = 0x24,
             kSavingParametersNotSupported = 0x39, kMediumRemovalPrevented = 0x53;

u32 be16(const u8* p) { return u32{p[0]} << 8 | p[1]; }
u32 be32(const u8* p) { return u32{p[0]} << 24 | u32{p[1]} << 16 | u32{p[2]} << 8 | p[3]; }
void put_be16(std::vector<u8>& v, u32 value) {
  v.push_back(static_cast<u8>(value >> 8));
  v.push_back(static_cast<u8>(value));
}
void put_be32(std::vector<u8>& v, u32 value) {
  put_be16(v, value >> 16);
  put_be16(v, value & 0xFFFF);
}
void put_text(std::vector<u8>& v, std::string_view text, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) v.push_back(static_cast<u8>(i < text.size() ? text[i] : ' '));
}
// An address in a READ TOC descriptor: an LBA, or with MSF the time 00h M S F of
// LBA + 150 (MMC-2 Table 4 "LBA to MSF translation": 75 frames a second, 2 s of pregap).
void put_address(std::vector<u8>& v, u32 lba, bool msf) {
  if (!msf) {
    put_be32(v, lba);
    return;
  }
  const u32 frames = lba + 150;
  v.push_back(0);
  v.push_back(static_cast<u8>(frames / (75 * 60)));
  v.push_back(static_cast<u8>(frames / 75 % 60));
  v.push_back(static_cast<u8>(frames % 75));
}
}  // namespace

// ATA-6 9.11: PACKET's Features bit 0 asks for DMA; LBA Mid/High hold the byte count
// limit for PIO (0 is taken as FFFEh, an odd limit as the even one below it). The
// device then asks for the 12-byte packet: DRQ, C/D = 1, I/O = 0, no INTRQ (word 0
// bits 6:5 = 10b).
void AtaDevice::start_packet() {
  packet_dma_ = features_.now & 1;
  u32 limit = u32{lba_high_.now} << 8 | lba_mid_.now;
  if (limit == 0) limit = 0xFFFE;
  byte_count_limit_ = limit & ~1u;
  if (byte_count_limit_ == 0) byte_count_limit_ = 2;
  buffer_.clear();
  phase_ = Phase::Packet;
  sector_count_.now = kCoD;
  status_ = static_cast<u8>(kDrdy | kDrq);
}

// Completion: Status DRDY (ERR on CHECK CONDITION), I/O = 1 and C/D = 1, INTRQ.
void AtaDevice::packet_good() {
  sense_key_ = kNoSense;
  asc_ = ascq_ = 0;
  phase_ = Phase::Idle;
  sector_count_.now = kIo | kCoD;
  error_ = 0;
  status_ = kDrdy;
  interrupt_ = true;
}

// CHECK CONDITION: the sense key in Error bits 7:4, ABRT for an illegal request (ATA-6 8.21).
void AtaDevice::check_condition(u8 key, u8 asc, u8 ascq) {
  sense_key_ = key;
  asc_ = asc;
  ascq_ = ascq;
  phase_ = Phase::Idle;
  buffer_.clear();
  buffer_position_ = 0;
  transfer_left_ = 0;
  sector_count_.now = kIo | kCoD;
  error_ = static_cast<u8>(key << 4 | (key == kIllegalRequest ? kAbrt : 0));
  status_ = static_cast<u8>(kDrdy | kErr);
  interrupt_ = true;
}

// Data to the host: at most the allocation length; nothing to move completes at once.
void AtaDevice::packet_data_in(std::vector<u8> data, u32 allocation_length) {
  if (data.size() > allocation_length) data.resize(allocation_length);
  if (data.empty()) {
    packet_good();
    return;
  }
  transfer_left_ = data.size();
  buffer_ = std::move(data);
  buffer_position_ = 0;
  source_ = Source::Buffer;
  if (packet_dma_) {
    phase_ = Phase::DmaIn;
    sector_count_.now = kIo;
    status_ = static_cast<u8>(kDrdy | kDrq);
    return;
  }
  packet_next_block();
}

void AtaDevice::start_cd_read(u64 lba, u64 blocks) {
  if (lba > cd_blocks() || blocks > cd_blocks() - lba) {
    check_condition(kIllegalRequest, kLbaOutOfRange);
    return;
  }
  if (blocks == 0) {
    packet_good();
    return;
  }
  source_ = Source::CdBlocks;
  next_sector_ = lba;
  transfer_left_ = blocks * 2048;
  buffer_.clear();
  buffer_position_ = 0;
  if (packet_dma_) {
    phase_ = Phase::DmaIn;
    sector_count_.now = kIo;
    status_ = static_cast<u8>(kDrdy | kDrq);
    return;
  }
  packet_next_block();
}

// One PIO DRQ block of a packet's data: at most the byte count limit, its size in the
// Byte Count registers (LBA Mid/High), I/O = 1, C/D = 0, INTRQ (ATA-6 9.11).
void AtaDevice::packet_next_block() {
  block_left_ = static_cast<u32>(std::min<u64>(byte_count_limit_, transfer_left_));
  lba_mid_.now = static_cast<u8>(block_left_);
  lba_high_.now = static_cast<u8>(block_left_ >> 8);
  sector_count_.now = kIo;
  phase_ = Phase::PioIn;
  status_ = static_cast<u8>(kDrdy | kDrq);
  interrupt_ = true;
}

void AtaDevice::execute_packet() {
  std::copy(buffer_.begin(), buffer_.begin() + 12, packet_.begin());
  buffer_.clear();
  buffer_position_ = 0;
  const u8* p = packet_.data();
  switch (p[0]) {
    case 0x00: packet_good(); break;  // TEST UNIT READY (SPC-2 7.25): the medium is always ready
    case 0x03: packet_request_sense(); break;
    case 0x12: packet_inquiry(); break;
    case 0x1B: packet_start_stop(); break;
    case 0x1E:  // PREVENT ALLOW MEDIUM REMOVAL (SPC-2 7.12): byte 4 bit 0 prevents
      medium_locked_ = p[4] & 1;
      packet_good();
      break;
    case 0x25: packet_read_capacity(); break;
    case 0x28: start_cd_read(be32(p + 2), be16(p + 7)); break;  // READ(10) (MMC-2 6.1.16)
    case 0xA8: start_cd_read(be32(p + 2), be32(p + 6)); break;  // READ(12) (MMC-2 6.1.17)
    case 0x2B:                                                  // SEEK(10)
      if (be32(p + 2) >= cd_blocks()) check_condition(kIllegalRequest, kLbaOutOfRange);
      else packet_good();
      break;
    case 0x43: packet_read_toc(); break;
    case 0x46: packet_get_configuration(); break;
    case 0x4A: packet_get_event_status(); break;
    case 0x5A: packet_mode_sense(); break;
    case 0xBB: packet_good(); break;  // SET CD SPEED (MMC-2 6.1.36): any speed is the one speed
    default: check_condition(kIllegalRequest, kInvalidCommandOperationCode); break;
  }
}

// REQUEST SENSE (SPC-2 7.20): fixed-format sense data, 18 bytes (response code 70h,
// sense key in byte 2, additional length 10, ASC and ASCQ in bytes 12-13). It reports
// the previous command's sense, then clears it.
void AtaDevice::packet_request_sense() {
  std::vector<u8> d(18, 0);
  d[0] = 0x70;
  d[2] = sense_key_;
  d[7] = 10;
  d[12] = asc_;
  d[13] = ascq_;
  packet_data_in(std::move(d), packet_[4]);
}

// INQUIRY (SPC-2 7.3.2, standard data): peripheral device type 05h (CD/DVD), RMB,
// response data format 2, additional length 31, vendor, product, revision.
void AtaDevice::packet_inquiry() {
  if (packet_[1] & 1) {  // EVPD: no vital product data pages
    check_condition(kIllegalRequest, kInvalidFieldInCdb);
    return;
  }
  std::vector<u8> d = {0x05, 0x80, 0x00, 0x02, 31, 0, 0, 0};
  put_text(d, "X86LAB", 8);
  put_text(d, "VIRTUAL CD-ROM", 16);
  put_text(d, "1.0", 4);
  packet_data_in(std::move(d), be16(packet_.data() + 3));
}

// READ CAPACITY (MMC-2 6.1.18): the last logical block address and the block length, 2048.
void AtaDevice::packet_read_capacity() {
  std::vector<u8> d;
  put_be32(d, static_cast<u32>(cd_blocks() - 1));
  put_be32(d, 2048);
  packet_data_in(std::move(d), 8);
}

// READ TOC/PMA/ATIP (MMC-2 6.1.25): one data track (ADR 1, control 4) from block 0 and
// the lead-out (track AAh) at the end of the image. Format 0: the TOC from the
// starting track; format 1: the first track of the last session. The format is in
// byte 2 bits 3:0, or for older hosts byte 9 bits 7:6.
void AtaDevice::packet_read_toc() {
  const u8* p = packet_.data();
  const bool msf = p[1] & 0x02;
  const u8 format = (p[2] & 0x0F) ? (p[2] & 0x0F) : static_cast<u8>(p[9] >> 6);
  const u8 start = p[6];
  const u32 lead_out = static_cast<u32>(cd_blocks());
  std::vector<u8> d = {0, 0, 1, 1};  // data length (filled below), first and last track or session
  if (format == 0) {
    if (start > 1 && start != 0xAA) {
      check_condition(kIllegalRequest, kInvalidFieldInCdb);
      return;
    }
    if (start <= 1) {
      d.insert(d.end(), {0x00, 0x14, 0x01, 0x00});
      put_address(d, 0, msf);
    }
    d.insert(d.end(), {0x00, 0x14, 0xAA, 0x00});
    put_address(d, lead_out, msf);
  } else if (format == 1) {
    d.insert(d.end(), {0x00, 0x14, 0x01, 0x00});
    put_address(d, 0, msf);
  } else {
    check_condition(kIllegalRequest, kInvalidFieldInCdb);
    return;
  }
  d[0] = static_cast<u8>((d.size() - 2) >> 8);
  d[1] = static_cast<u8>(d.size() - 2);
  packet_data_in(std::move(d), be16(p + 7));
}

// MODE SENSE(10) (SPC-2 7.10, MMC-2 5.5): an 8-byte header (mode data length, medium
// type 01h "120 mm CD-ROM data only", no block descriptors) and the pages asked for:
// 01h read error recovery, 0Dh CD device parameters, 0Eh CD audio control, 2Ah CD
// capabilities and mechanical status, or 3Fh for all of them. Saved values (PC 11b)
// are not supported.
void AtaDevice::packet_mode_sense() {
  const u8* p = packet_.data();
  const u8 control = p[2] >> 6, page = p[2] & 0x3F;
  if (control == 3) {
    check_condition(kIllegalRequest, kSavingParametersNotSupported);
    return;
  }
  const bool changeable = control == 1;  // the changeable bits: none
  std::vector<u8> d = {0, 0, 0x01, 0, 0, 0, 0, 0};
  auto add_page = [&](std::vector<u8> bytes) {
    if (changeable) std::fill(bytes.begin() + 2, bytes.end(), 0);
    d.insert(d.end(), bytes.begin(), bytes.end());
  };
  const bool all = page == 0x3F;
  if (page == 0x01 || all) add_page({0x01, 0x0A, 0, 5, 0, 0, 0, 0, 5, 0, 0, 0});  // read retry count 5
  if (page == 0x0D || all) add_page({0x0D, 0x06, 0, 0, 0, 60, 0, 75});          // 60 S per M, 75 F per S
  if (page == 0x0E || all) add_page({0x0E, 0x0E, 0x04, 0, 0, 0, 0, 0, 1, 0xFF, 2, 0xFF, 0, 0, 0, 0});
  if (page == 0x2A || all) {
    // MMC-2 Table 108: reads CD-ROM only; byte 6: tray loading (001b), eject (3),
    // lock (0) and its state (1); maximum and current read speed 2822 kB/s (16x, an
    // assumption), 256 volume levels, no buffer.
    const u8 lock = static_cast<u8>(0x29 | (medium_locked_ ? 0x02 : 0));
    add_page({0x2A, 0x12, 0, 0, 0x00, 0x00, lock, 0, 0x0B, 0x06, 0x01, 0x00, 0, 0, 0x0B, 0x06, 0, 0, 0, 0});
  }
  if (d.size() == 8) {
    check_condition(kIllegalRequest, kInvalidFieldInCdb);
    return;
  }
  d[0] = static_cast<u8>((d.size() - 2) >> 8);
  d[1] = static_cast<u8>(d.size() - 2);
  packet_data_in(std::move(d), be16(p + 7));
}

// GET CONFIGURATION (MMC-3 5.2 / MMC-2 6.1.4): current profile 0008h (CD-ROM) and the
// features Profile List (0000h), Core (0001h, ATAPI), Removable Medium (0003h),
// Random Readable (0010h) and CD Read (001Eh), all current. RT 0: features from the
// starting one; 1: the current ones from it (all are); 2: only the starting one.
void AtaDevice::packet_get_configuration() {
  const u8* p = packet_.data();
  const u8 rt = p[1] & 3;
  const u32 starting = be16(p + 2);
  if (rt == 3) {
    check_condition(kIllegalRequest, kInvalidFieldInCdb);
    return;
  }
  struct Feature {
    u16 code;
    std::vector<u8> bytes;
  };
  const std::vector<Feature> features = {
      {0x0000, {0x00, 0x00, 0x03, 0x04, 0x00, 0x08, 0x01, 0x00}},
      {0x0001, {0x00, 0x01, 0x03, 0x08, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00}},
      {0x0003, {0x00, 0x03, 0x03, 0x04, 0x29, 0x00, 0x00, 0x00}},
      {0x0010, {0x00, 0x10, 0x03, 0x08, 0x00, 0x00, 0x08, 0x00, 0x00, 0x01, 0x00, 0x00}},
      {0x001E, {0x00, 0x1E, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00}},
  };
  std::vector<u8> d = {0, 0, 0, 0, 0, 0, 0x00, 0x08};
  for (const Feature& f : features) {
    if (rt == 2 ? f.code != starting : f.code < starting) continue;
    d.insert(d.end(), f.bytes.begin(), f.bytes.end());
  }
  const u32 length = static_cast<u32>(d.size() - 4);
  d[0] = static_cast<u8>(length >> 24);
  d[1] = static_cast<u8>(length >> 16);
  d[2] = static_cast<u8>(length >> 8);
  d[3] = static_cast<u8>(length);
  packet_data_in(std::move(d), be16(p + 7));
}

// GET EVENT STATUS NOTIFICATION (MMC-2 6.1.5), polled only: the media class (4) with
// "no change", media present, door closed; supported classes: media only.
void AtaDevice::packet_get_event_status() {
  const u8* p = packet_.data();
  if (!(p[1] & 1)) {  // asynchronous operation is not supported
    check_condition(kIllegalRequest, kInvalidFieldInCdb);
    return;
  }
  std::vector<u8> d;
  if (p[4] & 0x10) {
    d = {0x00, 0x06, 0x04, 0x10, 0x00, 0x02, 0x00, 0x00};
  } else {
    d = {0x00, 0x02, 0x80, 0x10};  // NEA: no class asked for is supported
  }
  packet_data_in(std::move(d), be16(p + 7));
}

// START STOP UNIT (MMC-2 6.1.38): LoEj with Start = 0 ejects, refused while the
// medium is locked. DEVIATION: the tray is not modeled; an eject leaves the medium in.
void AtaDevice::packet_start_stop() {
  const bool load_eject = packet_[4] & 0x02, start = packet_[4] & 0x01;
  if (load_eject && !start && medium_locked_) {
    check_condition(kIllegalRequest, kMediumRemovalPrevented, 0x02);
    return;
  }
  packet_good();
}

}  // namespace x86lab
