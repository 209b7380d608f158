// The Intel 82077AA CHMOS single-chip floppy disk controller in PC-AT mode, with two
// 3.5" drives holding raw floppy images (Intel 82077AA data sheet: "Register
// Description", "Controller Phases", "Command Set/Descriptions", "Status Register
// Encoding"). Ports 3F0h-3F5h and 3F7h, IRQ 6, DMA channel 2.
//
// PC-AT mode (the IDENT pin high) was chosen over PS/2 mode because the PC/AT is the
// machine modeled: status registers A and B (3F0h, 3F1h) do not exist in it and read
// as open bus (FFh); the DOR's DMA gate bit gates the INT and DRQ outputs; the digital
// input register (3F7h read) holds only DSKCHG in bit 7 (bits 6-0 belong to the hard
// disk controller on a PC and read 0 here).
//
// Media: the geometry follows from the image's size (DiskImage::Medium::Floppy allows
// only these): 720 KiB = 80 cylinders, 2 heads, 9 sectors at 250 kbit/s; 1.44 MB = 80,
// 2, 18 at 500 kbit/s; 2.88 MB = 80, 2, 36 at 1 Mbit/s. Every sector is 512 bytes
// (N = 2) and carries the ID (cylinder, head, sector, 2). A read at another data rate
// (CCR/DSR bits 1-0), or in FM mode, finds no address mark.
//
// Time (platform/clock.h): the disks turn at 300 rpm (200 ms a turn) and sector R
// passes under the head from (R - 1) * 200 ms / sectors-per-track into each turn,
// counted from cycle 0; a sector's data moves when its end passes. A seek takes the
// SPECIFY step rate time per cylinder stepped. Reset ends 10 us after the reset bit
// is released.
//
// DEVIATION: the FIFO is not modeled (bytes are there at once: no overrun in non-DMA
// mode, FIFOTHR and EFIFO are only stored); the drive motors, head load and head
// unload times are not modeled (a drive reads with its motor off); a deleted data
// mark cannot be stored in a raw image, so WRITE DELETED DATA writes normal data and
// every sector reads with a normal data mark; FORMAT TRACK writes the filler byte into
// the sectors whose IDs name this track and head with N = 2 and leaves other IDs out.
#pragma once
#include <array>
#include <functional>
#include <vector>

#include "mmu/bus_device.h"
#include "platform/clock.h"
#include "platform/devices/dma8237.h"
#include "platform/devices/storage/disk_image.h"
#include "trace/state_archive.h"

namespace x86lab {

class Fdc82077 : public BusDevice, public DmaClient {
 public:
  static constexpr unsigned kDrives = 2;    // drives 0 and 1 are attached; 2 and 3 are empty
  static constexpr unsigned kDmaChannel = 2;
  static constexpr unsigned kIrq = 6;

  // `irq`: the level of the INT output (IRQ 6 on a PC); `dma`: the controller whose
  // channel 2 the FDC uses (may be null: then DMA transfers overrun).
  Fdc82077(VirtualClock& clock, std::function<void(bool)> irq, Dma8237Pair* dma);

  // Puts `image` (a Medium::Floppy image, or null for an empty drive) into drive 0 or 1.
  // The drive's disk change line goes active, as when a disk is inserted.
  void insert(unsigned drive, DiskImage* image);
  DiskImage* image(unsigned drive) const { return drive < kDrives ? drives_[drive].image : nullptr; }

  // The CMOS drive type of a drive for a floppy image of `bytes` bytes (IBM PC/AT
  // Technical Reference, CMOS byte 10h "Diskette Drive Type"): 3 for 720 KiB, 4 for
  // 1.44 MB, 5 for 2.88 MB, 0 for anything else (no drive).
  static u8 cmos_drive_type(u64 bytes);

  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "fdc82077"; }

  // DmaClient: channel 2's units (bytes) during READ/WRITE/FORMAT execution.
  u16 dma_read_unit() override;
  void dma_write_unit(u16 value) override;
  void dma_terminal_count() override;

  // The main status register as the guest reads it, and the INT output.
  u8 main_status() const;
  bool interrupt_pending() const { return interrupt_; }
  u8 cylinder(unsigned drive) const { return pcn_[drive & 3]; }

  // Saves, checks or loads the controller's state, the drives' and their disks'
  // changes (DiskImage::transfer_state; a loading machine must have the same drives).
  void transfer_state(StateArchive& archive);

 private:
  enum class Phase : u8 { Reset, Command, Execution, Result };
  // What the command event does when it fires.
  enum class Step : u8 { None, ResetDone, Sector, ReadId, FormatDone };

  struct Geometry {
    unsigned cylinders = 0, heads = 0, sectors = 0;
    u8 rate = 0;  // CCR data rate code: 0 = 500, 1 = 300, 2 = 250 kbit/s, 3 = 1 Mbit/s
  };
  struct Drive {
    DiskImage* image = nullptr;
    Geometry geometry;
    bool disk_changed = false;  // DIR bit 7
    u8 track = 0;               // the head's physical cylinder (0-83)
  };

  // fdc82077.cpp: registers, phases, interrupts, reset, time.
  void hardware_reset();
  void enter_reset();
  void leave_reset();
  void update_irq();
  void raise_interrupt();
  void start_result(std::initializer_list<u8> bytes);
  void start_result(const std::vector<u8>& bytes);
  u8 read_fifo();
  void write_fifo(u8 value);
  u64 now_ns() const;
  u64 revolution_ns() const { return 200'000'000; }
  u64 sector_ns(const Drive& drive) const;
  u64 step_ns() const;
  void schedule_step(Step step, u64 delay_ns);
  void on_command_event();
  void on_seek_event(unsigned drive);

  // fdc82077_commands.cpp: decoding, execution and results.
  static unsigned command_length(u8 opcode);
  void execute_command();
  void start_seek(unsigned drive, unsigned target, bool recalibrate);
  void start_transfer();
  void sector_event();
  void sector_done();
  bool next_sector();
  void finish_transfer(u8 st0_code, u8 st1, u8 st2);
  void read_id_done();
  void start_format();
  void format_done();
  void schedule_sector(u64 start_ns);
  bool commit_write();
  void sense_interrupt();
  void dump_registers();
  bool medium_readable(const Drive& drive) const;
  u64 sector_lba(const Drive& drive) const;
  u8 st0(u8 code) const;
  void drain_sector_from_host();

  VirtualClock& clock_;
  std::function<void(bool)> irq_;
  Dma8237Pair* dma_;
  VirtualClock::EventId command_event_;
  std::array<VirtualClock::EventId, 4> seek_events_{};
  std::array<Drive, kDrives> drives_{};

  // Registers.
  u8 dor_ = 0;       // digital output register (reset value: the controller in reset)
  u8 tdr_ = 0;       // tape drive register
  u8 rate_ = 2;      // data rate select (CCR/DSR bits 1-0), 250 kbit/s after a hardware reset
  u8 precomp_ = 0;   // DSR bits 4-2
  Phase phase_ = Phase::Reset;
  bool interrupt_ = false;
  std::array<u8, 4> pcn_{};           // present cylinder numbers
  std::array<bool, 4> seeking_{};     // MSR drive busy bits
  std::array<u8, 4> seek_target_{};
  std::array<bool, 4> seek_recalibrate_{};
  std::array<bool, 4> seek_interrupt_{};  // a SENSE INTERRUPT STATUS answer is pending
  std::array<u8, 4> seek_st0_{};
  u8 reset_interrupts_ = 0;            // drives still to report after a reset (bits 0-3)
  // SPECIFY, CONFIGURE, PERPENDICULAR MODE and LOCK.
  u8 srt_hut_ = 0, hlt_nd_ = 0;
  bool eis_ = false, efifo_ = true, poll_disabled_ = false;
  u8 fifothr_ = 0, pretrk_ = 0, perpendicular_ = 0, sc_eot_ = 0;
  bool lock_ = false;

  // Command, execution and result phases.
  std::vector<u8> command_;   // bytes received so far
  std::vector<u8> result_;    // bytes still to be read
  std::size_t result_index_ = 0;
  Step step_ = Step::None;
  u8 opcode_ = 0;             // command_[0] & 1Fh of the executing command
  bool dma_mode_ = true;      // SPECIFY's ND bit clear
  bool writing_ = false;      // the data goes to the disk (WRITE DATA, FORMAT TRACK)
  bool host_turn_ = false;    // non-DMA: the host may move bytes now (MSR RQM)
  bool terminal_count_ = false;
  u8 drive_ = 0, head_ = 0;   // the executing command's drive and head
  u8 c_ = 0, h_ = 0, r_ = 0, n_ = 0, eot_ = 0;  // the ID of the current sector, end of track
  u8 st2_flags_ = 0;          // ST2 bits gathered during execution (CM)
  u8 filler_ = 0;             // FORMAT TRACK's filler byte
  bool multi_track_ = false, skip_ = false;  // MT and SK of the executing command
  u16 sectors_left_ = 0;      // VERIFY with EC = 1: sectors still to verify
  std::vector<u8> buffer_;    // the current sector's bytes, or the FORMAT IDs
  std::size_t buffer_index_ = 0;
  u64 sector_ready_ns_ = 0;   // when the current sector's end passes under the head
};

}  // namespace x86lab
