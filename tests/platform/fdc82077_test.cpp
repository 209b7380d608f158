// The 82077AA against the Intel 82077AA data sheet: the reset interrupt and its four
// SENSE INTERRUPT STATUS answers C0h-C3h, VERSION 90h, invalid commands (80h),
// SPECIFY/CONFIGURE/LOCK through DUMPREG, SEEK and RECALIBRATE with ST0 = 20h + drive,
// SENSE DRIVE STATUS's ST3, READ ID, READ DATA through DMA channel 2 across a head
// change (MT) with ST0-ST2 and C, H, R, N of the next sector, end of cylinder without
// TC, WRITE DATA read back, a wrong data rate's missing address mark, the disk change
// line, non-DMA reads through the FIFO, and FORMAT TRACK.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>
#include <vector>

#include "platform/devices/fdc82077.h"

namespace x86lab {
namespace {

constexpr u32 kBuffer = 0x10000;

struct FdcFixture : ::testing::Test {
  ModeledClock cpu_clock;
  VirtualClock clock{cpu_clock, 1'000'000'000};  // one cycle per nanosecond
  Counters counters;
  PhysicalBus bus{1u << 20, counters};
  Dma8237Pair dma{bus};
  bool irq = false;
  Fdc82077 fdc{clock, [this](bool level) { irq = level; }, &dma};
  std::string path;
  std::unique_ptr<DiskImage> image;

  void SetUp() override {
    path = ::testing::TempDir() + "fdc82077_test_" + std::to_string(::getpid()) + ".img";
    std::ofstream file(path, std::ios::binary);
    // Sector LBA n holds n & FFh in its first byte, then the bytes 0, 1, 2, ...
    for (u32 lba = 0; lba < 2880; ++lba)
      for (u32 i = 0; i < 512; ++i) file.put(static_cast<char>(i == 0 ? lba & 0xFF : i & 0xFF));
    file.close();
    image = DiskImage::open("--fda", path, DiskImage::Medium::Floppy, false);
    fdc.insert(0, image.get());
    dma.set_bios_state();
  }
  void TearDown() override {
    image.reset();
    std::remove(path.c_str());
  }

  void run_to(u64 cycle) {
    while (clock.next_deadline() <= cycle) {
      clock.advance_to(clock.next_deadline());
      clock.run_due();
    }
    clock.advance_to(cycle);
  }
  // Runs until the INT output rises (at most two seconds of disk time).
  bool wait_irq() {
    const u64 limit = clock.now() + 2'000'000'000;
    while (!irq && clock.next_deadline() <= limit) {
      clock.advance_to(clock.next_deadline());
      clock.run_due();
    }
    return irq;
  }
  u8 msr() { return static_cast<u8>(fdc.read(0x3F4, 1)); }
  void send(std::initializer_list<u8> bytes) {
    for (u8 b : bytes) {
      ASSERT_EQ(msr() & 0xC0, 0x80) << "controller not ready for a command byte";
      fdc.write(0x3F5, 1, b);
    }
  }
  std::vector<u8> results() {
    std::vector<u8> out;
    while ((msr() & 0xC0) == 0xC0) out.push_back(static_cast<u8>(fdc.read(0x3F5, 1)));
    return out;
  }
  void reset_controller() {
    fdc.write(0x3F2, 1, 0x00);
    fdc.write(0x3F2, 1, 0x1C);  // drive 0, motor 0 on, DMA gate, not reset
    fdc.write(0x3F7, 1, 0x00);  // 500 kbit/s
    ASSERT_TRUE(wait_irq());
    for (u8 d = 0; d < 4; ++d) {
      send({0x08});
      ASSERT_EQ(results(), (std::vector<u8>{static_cast<u8>(0xC0 | d), 0x00}));
    }
  }
  void program_dma(u8 mode, u32 address, u32 bytes) {
    dma.write(0x0A, 1, 0x06);  // mask channel 2
    dma.write(0x0B, 1, mode);
    dma.write(0x0C, 1, 0);
    dma.write(0x04, 1, address & 0xFF);
    dma.write(0x04, 1, (address >> 8) & 0xFF);
    dma.write(0x81, 1, address >> 16);
    dma.write(0x05, 1, (bytes - 1) & 0xFF);
    dma.write(0x05, 1, (bytes - 1) >> 8);
    dma.write(0x0A, 1, 0x02);  // unmask
  }
};

TEST_F(FdcFixture, ResetRaisesIrqAndFourSenseInterruptsAnswerC0ToC3) {
  EXPECT_EQ(msr(), 0x00);  // held in reset at power-on (DOR = 0)
  reset_controller();
  EXPECT_FALSE(irq);
  EXPECT_EQ(msr(), 0x80);
  send({0x08});  // nothing pending now: invalid
  EXPECT_EQ(results(), std::vector<u8>{0x80});
}

TEST_F(FdcFixture, VersionAnswers90hAndAnUnknownCommandIsInvalid) {
  reset_controller();
  send({0x10});
  EXPECT_EQ(results(), std::vector<u8>{0x90});
  send({0x1F});
  EXPECT_EQ(results(), std::vector<u8>{0x80});
}

TEST_F(FdcFixture, DumpregShowsSpecifyConfigureAndLock) {
  reset_controller();
  send({0x03, 0xDF, 0x02});        // SPECIFY: SRT = D, HUT = F, HLT = 1, DMA
  send({0x13, 0x00, 0x57, 0x05});  // CONFIGURE: EIS, POLL off, FIFOTHR 7, PRETRK 5
  send({0x94});                    // LOCK
  EXPECT_EQ(results(), std::vector<u8>{0x10});
  send({0x0E});
  EXPECT_EQ(results(), (std::vector<u8>{0, 0, 0, 0, 0xDF, 0x02, 0x00, 0x80, 0x57, 0x05}));
  // LOCK keeps CONFIGURE's values through a software reset.
  reset_controller();
  send({0x0E});
  const std::vector<u8> dump = results();
  ASSERT_EQ(dump.size(), 10u);
  EXPECT_EQ(dump[8], 0x57);
  EXPECT_EQ(dump[9], 0x05);
}

TEST_F(FdcFixture, SeekAndRecalibrateEndWithSeekEndInSenseInterrupt) {
  reset_controller();
  send({0x03, 0xDF, 0x02});
  send({0x0F, 0x00, 10});  // SEEK drive 0 to cylinder 10
  EXPECT_EQ(msr() & 0x01, 0x01);  // drive 0 busy
  ASSERT_TRUE(wait_irq());
  send({0x08});
  EXPECT_EQ(results(), (std::vector<u8>{0x20, 10}));
  EXPECT_FALSE(irq);
  send({0x04, 0x00});  // SENSE DRIVE STATUS: not on track 0
  EXPECT_EQ(results(), std::vector<u8>{0x28});
  send({0x07, 0x00});  // RECALIBRATE
  ASSERT_TRUE(wait_irq());
  send({0x08});
  EXPECT_EQ(results(), (std::vector<u8>{0x20, 0}));
  send({0x04, 0x04});  // head 1: ST3 = T0 + HD
  EXPECT_EQ(results(), std::vector<u8>{0x3C});
  send({0x07, 0x02});  // drive 2 does not exist: no track 0 after 79 steps
  ASSERT_TRUE(wait_irq());
  send({0x08});
  EXPECT_EQ(results(), (std::vector<u8>{0x72, 0}));
}

TEST_F(FdcFixture, DiskChangeLineClearsWithAStep) {
  reset_controller();
  EXPECT_EQ(fdc.read(0x3F7, 1) & 0x80, 0x80);
  send({0x0F, 0x00, 1});
  ASSERT_TRUE(wait_irq());
  send({0x08});
  results();
  EXPECT_EQ(fdc.read(0x3F7, 1) & 0x80, 0x00);
}

TEST_F(FdcFixture, ReadDataAcrossTheHeadChangeEndsAtTcWithTheNextSectorsId) {
  reset_controller();
  send({0x03, 0xDF, 0x02});
  program_dma(0x46, kBuffer, 3 * 512);  // single, write to memory, channel 2
  send({0xE6, 0x00, 0, 0, 17, 2, 18, 0x1B, 0xFF});  // MT MFM SK READ DATA, C0 H0 R17
  ASSERT_TRUE(wait_irq());
  // Sectors 17 and 18 of head 0, then sector 1 of head 1; TC after the third.
  EXPECT_EQ(results(), (std::vector<u8>{0x04, 0x00, 0x00, 0, 1, 2, 2}));
  EXPECT_FALSE(irq);
  EXPECT_EQ(bus.peek(kBuffer), 16);
  EXPECT_EQ(bus.peek(kBuffer + 1), 1);
  EXPECT_EQ(bus.peek(kBuffer + 512), 17);
  EXPECT_EQ(bus.peek(kBuffer + 1024), 18);
  EXPECT_EQ(bus.peek(kBuffer + 1535), 0xFF);
  EXPECT_EQ(dma.status(0) & 0x04, 0x04);
}

// The sectors of a multi-sector READ DATA pass under the head one after the other: at
// 300 rpm (200 ms a turn, 18 sectors a track) five sectors take at most one turn to
// find the first and 5/18 of a turn to read (data sheet, "Data Transfer Commands";
// 3.5-inch 1.44 MB drive: 300 rpm). The machine runs device events at the first
// instruction boundary after their deadline: here a few cycles late each time, which
// once cost a whole turn per sector (the sector after the current one had just passed).
TEST_F(FdcFixture, ConsecutiveSectorsFollowEachOtherWhenEventsRunLate) {
  reset_controller();
  send({0x03, 0xDF, 0x02});
  program_dma(0x46, kBuffer, 5 * 512);
  const u64 start = clock.now();
  send({0xE6, 0x00, 0, 0, 14, 2, 18, 0x1B, 0xFF});  // sectors 14-18 of C0 H0
  const u64 limit = start + 2'000'000'000;
  while (!irq && clock.next_deadline() <= limit) {
    clock.advance_to(clock.next_deadline() + 7);  // the event runs 7 cycles late
    clock.run_due();
  }
  ASSERT_TRUE(irq);
  EXPECT_LT(clock.now() - start, 200'000'000u + 5 * 200'000'000u / 18 + 10'000u);
  EXPECT_EQ(results(), (std::vector<u8>{0x04, 0x00, 0x00, 0, 1, 1, 2}));  // TC at EOT with MT: H1 R1
  EXPECT_EQ(bus.peek(kBuffer), 13);
  EXPECT_EQ(bus.peek(kBuffer + 4 * 512), 17);
}

TEST_F(FdcFixture, ReadDataPastEotWithoutMtEndsWithEndOfCylinder) {
  reset_controller();
  program_dma(0x46, kBuffer, 4 * 512);
  send({0x46, 0x00, 0, 0, 18, 2, 18, 0x1B, 0xFF});  // MFM READ DATA, no MT, R18 = EOT
  ASSERT_TRUE(wait_irq());
  EXPECT_EQ(results(), (std::vector<u8>{0x40, 0x80, 0x00, 1, 0, 1, 2}));
}

TEST_F(FdcFixture, ReadDataOnAWrongCylinderFindsNoData) {
  reset_controller();
  program_dma(0x46, kBuffer, 512);
  send({0x46, 0x00, 5, 0, 1, 2, 18, 0x1B, 0xFF});  // C = 5 while the head is on 0
  ASSERT_TRUE(wait_irq());
  EXPECT_EQ(results(), (std::vector<u8>{0x40, 0x04, 0x10, 5, 0, 1, 2}));
}

TEST_F(FdcFixture, ReadAtTheWrongDataRateFindsNoAddressMark) {
  reset_controller();
  fdc.write(0x3F7, 1, 0x02);  // 250 kbit/s for a 1.44 MB disk
  program_dma(0x46, kBuffer, 512);
  send({0x46, 0x00, 0, 0, 1, 2, 18, 0x1B, 0xFF});
  ASSERT_TRUE(wait_irq());
  const std::vector<u8> r = results();
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0], 0x40);
  EXPECT_EQ(r[1], 0x01);
}

TEST_F(FdcFixture, WriteDataThenReadItBack) {
  reset_controller();
  for (u32 i = 0; i < 512; ++i) bus.poke(0x20000 + i, static_cast<u8>(0xA0 ^ i));
  program_dma(0x4A, 0x20000, 512);  // single, read from memory
  send({0x45, 0x04, 0, 1, 5, 2, 18, 0x1B, 0xFF});  // WRITE DATA head 1, sector 5
  ASSERT_TRUE(wait_irq());
  EXPECT_EQ(results(), (std::vector<u8>{0x04, 0x00, 0x00, 0, 1, 6, 2}));
  std::vector<u8> sector(512);
  ASSERT_TRUE(image->read(18 + 4, sector));
  EXPECT_EQ(sector[0], 0xA0);
  EXPECT_EQ(sector[511], static_cast<u8>(0xA0 ^ 511));
  program_dma(0x46, 0x30000, 512);
  send({0x46, 0x04, 0, 1, 5, 2, 18, 0x1B, 0xFF});
  ASSERT_TRUE(wait_irq());
  results();
  EXPECT_EQ(bus.peek(0x30000 + 7), static_cast<u8>(0xA0 ^ 7));
}

TEST_F(FdcFixture, ReadIdReportsTheSectorPassingUnderTheHead) {
  reset_controller();
  // Sector R starts (R - 1) * 200 ms / 18 into each turn; move past sector 5's start.
  run_to(5 * 200'000'000ull / 18 + 1000);
  send({0x4A, 0x00});
  ASSERT_TRUE(wait_irq());
  EXPECT_EQ(results(), (std::vector<u8>{0x00, 0x00, 0x00, 0, 0, 7, 2}));
}

TEST_F(FdcFixture, NonDmaReadMovesBytesThroughTheFifo) {
  reset_controller();
  send({0x03, 0xDF, 0x03});  // ND = 1
  send({0x46, 0x00, 0, 0, 2, 2, 2, 0x1B, 0xFF});  // sector 2 only (EOT = 2)
  EXPECT_EQ(msr() & 0xA0, 0x20);  // execution, non-DMA, no RQM yet
  ASSERT_TRUE(wait_irq());
  EXPECT_EQ(msr(), 0xF0);  // RQM, DIO to host, NDM, busy
  std::vector<u8> data;
  while ((msr() & 0xE0) == 0xE0) data.push_back(static_cast<u8>(fdc.read(0x3F5, 1)));
  ASSERT_EQ(data.size(), 512u);
  EXPECT_EQ(data[0], 1);
  EXPECT_EQ(data[2], 2);
  ASSERT_TRUE(wait_irq());
  // No TC in non-DMA mode: the read ends at EOT with EN.
  EXPECT_EQ(results(), (std::vector<u8>{0x40, 0x80, 0x00, 1, 0, 1, 2}));
}

TEST_F(FdcFixture, FormatTrackWritesTheFillerIntoTheNamedSectors) {
  reset_controller();
  for (u32 r = 1; r <= 18; ++r) {
    const u8 id[4] = {0, 0, static_cast<u8>(r), 2};
    for (u32 i = 0; i < 4; ++i) bus.poke(0x40000 + (r - 1) * 4 + i, id[i]);
  }
  program_dma(0x4A, 0x40000, 18 * 4);
  send({0x4D, 0x00, 2, 18, 0x54, 0xE5});
  ASSERT_TRUE(wait_irq());
  const std::vector<u8> r = results();
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0], 0x00);
  std::vector<u8> sector(512);
  ASSERT_TRUE(image->read(17, sector));
  EXPECT_EQ(sector[0], 0xE5);
  EXPECT_EQ(sector[300], 0xE5);
  ASSERT_TRUE(image->read(18, sector));  // head 1 untouched
  EXPECT_EQ(sector[0], 18);
}

// A file without write permission is a write-protected disk: ST3 bit 6, and WRITE DATA
// ends with NW (ST0 40h, ST1 02h) without touching the file.
TEST_F(FdcFixture, ReadOnlyImageIsWriteProtected) {
  image.reset();
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  image = DiskImage::open("--fda", path, DiskImage::Medium::Floppy, false);
  ASSERT_TRUE(image->read_only());
  fdc.insert(0, image.get());
  reset_controller();
  send({0x04, 0x00});
  EXPECT_EQ(results(), std::vector<u8>{0x78});  // WP, RDY, T0, TS (always 1), drive 0
  program_dma(0x4A, 0x20000, 512);
  send({0x45, 0x00, 0, 0, 1, 2, 18, 0x1B, 0xFF});
  ASSERT_TRUE(wait_irq());
  EXPECT_EQ(results(), (std::vector<u8>{0x40, 0x02, 0x00, 0, 0, 1, 2}));
  std::vector<u8> sector(512);
  ASSERT_TRUE(image->read(0, sector));
  EXPECT_EQ(sector[1], 1);
}

TEST_F(FdcFixture, CmosDriveTypesFollowTheImageSize) {
  EXPECT_EQ(Fdc82077::cmos_drive_type(737'280), 3);
  EXPECT_EQ(Fdc82077::cmos_drive_type(1'474'560), 4);
  EXPECT_EQ(Fdc82077::cmos_drive_type(2'949'120), 5);
  EXPECT_EQ(Fdc82077::cmos_drive_type(1'228'800), 0);
}

}  // namespace
}  // namespace x86lab
