// One ATA device on a channel: a hard disk (the ATA command set) or a CD-ROM (the
// ATAPI PACKET command set) with its register file, its data phases (PIO and DMA) and
// its reset behaviour (ATA/ATAPI-6, T13/1410D; MMC-2 and SPC-2 for the packets).
//
// The file splits by concept: ata_device.cpp holds the register file, the data phases
// and the ATA commands; ata_identify.cpp the IDENTIFY (PACKET) DEVICE data and the CHS
// translation; atapi.cpp the packet commands.
//
// Timing (a deliberate choice, docs/booting.md "Disks and CD-ROMs"): every command
// completes within the port write that issues it, on the modeled clock's current
// cycle: BSY is never seen set except while Device Control SRST is held; a data-in
// block is ready (DRQ and INTRQ) at once; a DMA transfer runs the moment both the
// device requests it and the bus master is started. No wall time is involved.
#pragma once
#include <array>
#include <span>
#include <string>
#include <vector>

#include "platform/devices/storage/ata_registers.h"
#include "platform/devices/storage/disk_image.h"
#include "trace/state_archive.h"
#include "trace/types.h"

namespace x86lab {

// The CHS geometry a disk reports (IDENTIFY DEVICE words 1, 3, 6 and 54-56).
struct AtaGeometry {
  u32 cylinders = 0;  // 1-65535
  u32 heads = 0;      // 1-16
  u32 sectors = 0;    // sectors per track, 1-255
  u64 capacity() const { return u64{cylinders} * heads * sectors; }
  bool operator==(const AtaGeometry&) const = default;
};

// The default translation of an image of `sectors` 512-byte sectors, as x86lab defines
// it (the BIOS reads it from IDENTIFY words 1, 3, 6, and the CMOS disk-type bytes
// carry it): 16 heads, 63 sectors per track, and as many whole cylinders as the image
// holds, at least 1 and at most 16383 (ATA-6 6.2.1: a device of more than 16,514,064
// sectors reports 16383/16/63). The sectors past the last whole cylinder are reached
// by LBA only.
AtaGeometry default_geometry(u64 sectors);

class AtaDevice {
 public:
  // A hard disk for a DiskImage of Medium::HardDisk, an ATAPI CD-ROM for Medium::Cdrom.
  // `image` outlives the device. `serial` goes to IDENTIFY words 10-19 (20 characters
  // at most).
  AtaDevice(DiskImage& image, std::string serial);

  bool packet_device() const { return image_.medium() == DiskImage::Medium::Cdrom; }
  DiskImage& image() { return image_; }

  // ---- the register file (the channel routes the host's accesses) ----
  // A write of a command block register 1-6 (ata::Register), latched by both devices
  // of a channel. Features, Sector Count and LBA Low/Mid/High keep the value written
  // before as their "previous content" (ATA-6 7.1, 48-bit addressing).
  void write_register(u8 reg, u8 value);
  // A read of register 1-6; with `hob` (Device Control HOB) the previous content of
  // registers 1-5. Registers out of 1-6 read 0.
  u8 read_register(u8 reg, bool hob) const;
  u8 status() const { return status_; }
  // A write of the Command register: executes `code`. Ignored while BSY or DRQ is set,
  // except DEVICE RESET on a packet device (ATA-6 7.4).
  void command(u8 code);
  // Data register reads and writes of `size` bytes (1, 2 or 4: a 4-byte access is two
  // 16-bit transfers, a 1-byte access one whose high byte is lost). Outside a PIO data
  // phase a read returns FFFFh and a write is ignored.
  u32 read_data(unsigned size);
  void write_data(unsigned size, u32 value);

  // ---- resets ----
  // Device Control SRST set (BSY until release_software_reset) and released: the
  // device aborts any command, loads its signature (ata::kAtaSignature or
  // kPacketSignature) with Error 01h and Device 00h, and reports Status 50h (a disk) or
  // 00h (a packet device) (ATA-6 9.2 "Software reset protocol", 9.12).
  void hold_software_reset();
  void release_software_reset();
  // EXECUTE DEVICE DIAGNOSTIC, run by both devices of the channel (the channel issues
  // it to each): the reset outcome above; `interrupt` for the device that reports (ATA-6 8.11).
  void execute_diagnostic(bool interrupt);

  // ---- INTRQ ----
  // The device's interrupt request, before the channel applies nIEN and selection:
  // set at the end of a command or a data block, cleared by a read of Status or a
  // new command (ATA-6 5.2.9 "INTRQ").
  bool interrupt_pending() const { return interrupt_; }
  void clear_interrupt() { interrupt_ = false; }

  // ---- DMA (the PIIX3 bus master, through the channel) ----
  // True while a DMA data phase waits for data to move (DMARQ asserted).
  bool dma_requested() const { return phase_ == Phase::DmaIn || phase_ == Phase::DmaOut; }
  // True for a transfer from the device to memory (a read command).
  bool dma_to_memory() const { return phase_ == Phase::DmaIn; }
  // Moves up to `bytes.size()` bytes (even) of the DMA transfer: out of the device
  // (dma_read) or into it (dma_write). Returns the bytes moved; fewer when the
  // command's transfer ends (it then completes: status, INTRQ) or fails.
  std::size_t dma_read(std::span<u8> bytes);
  std::size_t dma_write(std::span<const u8> bytes);

  // ---- for tests and the debugger ----
  AtaGeometry current_geometry() const { return current_; }
  u8 multiple_count() const { return multiple_; }
  // The 256 words of IDENTIFY DEVICE (a disk) or IDENTIFY PACKET DEVICE (a packet
  // device) as they are now.
  std::array<u16, 256> identify_data() const;
  // ATAPI sense data of the last command: sense key, additional sense code and qualifier.
  u8 sense_key() const { return sense_key_; }
  u8 additional_sense_code() const { return asc_; }

  // Saves, checks or loads the registers, the data phase and the settings (the disk's
  // content is the DiskImage's own transfer_state, which the controller calls).
  void transfer_state(StateArchive& archive);

 private:
  enum class Phase : u8 { Idle, PioIn, PioOut, DmaIn, DmaOut, Packet };
  // Where a data-in transfer takes its bytes from when the buffer runs dry.
  enum class Source : u8 { Buffer, DiskSectors, CdBlocks };

  // Registers: [0] the current content, [1] the previous content (48-bit addressing).
  struct Register2 {
    u8 now = 0, previous = 0;
    void write(u8 value) {
      previous = now;
      now = value;
    }
  };

  // ---- ata_device.cpp: command plumbing ----
  void begin_command();
  void complete(u8 extra_status = 0);                 // success: DRDY (DSC), INTRQ
  void abort(u8 error);                               // ERR with `error`, INTRQ
  void fail_transfer(u8 error, u64 sector, bool ext);  // an error at `sector`
  void set_signature();
  u8 ready_status() const { return packet_device() ? ata::kDrdy : ata::kDrdy | ata::kDsc; }
  // Address and count of a read/write command: LBA28, LBA48 or CHS. False (and the
  // command aborted with IDNF) for a CHS address outside the current geometry.
  bool decode_address(bool ext, u64& lba, u32& count);
  void set_address_registers(u64 lba, bool ext);
  void execute_ata(u8 code);
  void start_read(bool ext, u32 block_sectors, bool dma);
  void start_write(bool ext, u32 block_sectors, bool dma);
  void read_verify(bool ext);
  void set_features();
  void set_multiple_mode();
  void initialize_device_parameters();
  void identify();
  // Data phases.
  void start_pio_in(u64 total_bytes);
  void start_next_in_block();
  void end_in_block();
  void end_out_block();
  bool fill(std::size_t bytes);  // the buffer holds `bytes` unread bytes (refilling from the source)
  bool write_buffered_sectors();
  void finish_data_phase();

  // ---- ata_identify.cpp ----
  std::array<u16, 256> identify_device_words() const;
  std::array<u16, 256> identify_packet_device_words() const;

  // ---- atapi.cpp: the PACKET command set ----
  void start_packet();
  void execute_packet();
  void packet_good();
  void check_condition(u8 key, u8 asc, u8 ascq = 0);
  void packet_data_in(std::vector<u8> data, u32 allocation_length);
  void start_cd_read(u64 lba, u64 blocks);
  void packet_next_block();
  void packet_inquiry();
  void packet_request_sense();
  void packet_read_capacity();
  void packet_read_toc();
  void packet_mode_sense();
  void packet_get_configuration();
  void packet_get_event_status();
  void packet_start_stop();
  u64 cd_blocks() const { return image_.size_bytes() / 2048; }

  DiskImage& image_;
  std::string serial_;
  AtaGeometry default_, current_;

  // Register file (ATA-6 7.1).
  Register2 features_, sector_count_, lba_low_, lba_mid_, lba_high_;
  u8 device_ = 0;
  u8 error_ = ata::kDiagnosticPassed;
  u8 status_ = 0;
  bool interrupt_ = false;

  // Settings.
  u8 multiple_ = 0;           // READ/WRITE MULTIPLE block size in sectors; 0: disabled
  u8 transfer_mode_ = 0x0C;   // SET FEATURES 03h value: 08h+n PIO n, 20h+n MW DMA n, 40h+n UDMA n
  bool write_cache_ = true;
  bool standby_ = false;

  // The data phase.
  Phase phase_ = Phase::Idle;
  Source source_ = Source::Buffer;
  u8 command_ = 0;            // the command whose data phase runs
  bool ext_ = false;          // its addressing is LBA48
  std::vector<u8> buffer_;    // bytes read ahead (data in) or received (data out)
  u32 buffer_position_ = 0;   // the next unread byte of buffer_ (data in)
  u64 next_sector_ = 0;       // the next sector (512 bytes) or CD block (2048) to read or write
  u64 transfer_left_ = 0;     // bytes of the command still to move
  u32 block_left_ = 0;        // bytes of the current PIO DRQ block still to move
  u32 block_bytes_ = 0;       // bytes of a full DRQ block (ATA: sectors per block * 512)

  // ATAPI.
  std::array<u8, 12> packet_{};
  bool packet_dma_ = false;   // PACKET with Features bit 0 (DMA)
  u32 byte_count_limit_ = 0;  // LBA Mid/High at PACKET, even, 2-FFFEh
  u8 sense_key_ = 0, asc_ = 0, ascq_ = 0;
  bool medium_locked_ = false;  // PREVENT ALLOW MEDIUM REMOVAL
};

}  // namespace x86lab
