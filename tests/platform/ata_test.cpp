// The ATA channels, the ATAPI CD-ROM and the PIIX3 bus master against ATA/ATAPI-6,
// MMC-2/SPC-2 and the PIIX3 data sheet: signatures, IDENTIFY words, status after
// commands, errors, LBA48 register pairs, PRD tables.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "platform/devices/storage/ata_controller.h"
#include "trace/state_archive.h"

namespace x86lab {
namespace {

namespace fs = std::filesystem;
using namespace ata;

constexpr u16 kCmd = 0x1F0, kCtl = 0x3F6, kCmd2 = 0x170, kCtl2 = 0x376;
constexpr u32 kDiskSectors = 20160;  // 20 cylinders of 16 heads x 63 sectors
constexpr u16 kBmBase = 0xC000;

// Sector n of the test disk holds bytes (n * 7 + i) & 0xFF; CD block 16 is an ISO 9660
// primary volume descriptor ("\x01CD001").
u8 disk_byte(u64 sector, unsigned i) { return static_cast<u8>(sector * 7 + i); }

std::string make_file(const std::string& name, const std::vector<u8>& bytes) {
  const fs::path dir = fs::temp_directory_path() / ("x86lab_ata_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

std::vector<u8> disk_bytes(u32 sectors) {
  std::vector<u8> bytes(u64{sectors} * 512);
  for (u64 s = 0; s < sectors; ++s)
    for (unsigned i = 0; i < 512; ++i) bytes[s * 512 + i] = disk_byte(s, i);
  return bytes;
}

std::vector<u8> iso_bytes(u32 blocks) {
  std::vector<u8> bytes(u64{blocks} * 2048);
  for (u32 b = 0; b < blocks; ++b) bytes[u64{b} * 2048 + 100] = static_cast<u8>(b);
  const u8 pvd[] = {0x01, 'C', 'D', '0', '0', '1', 0x01};
  std::copy(std::begin(pvd), std::end(pvd), bytes.begin() + 16 * 2048);
  return bytes;
}

std::vector<u8> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class AtaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    disk_path = make_file("disk.img", disk_bytes(kDiskSectors));
    iso_path = make_file("cd.iso", iso_bytes(64));
    disk = DiskImage::open("--hda", disk_path, DiskImage::Medium::HardDisk, false);
    cd = DiskImage::open("--cdrom", iso_path, DiskImage::Medium::Cdrom, false);
    build(AtaController::Decode::Enabled);
  }
  void build(AtaController::Decode decode) {
    ata.reset();
    ata = std::make_unique<AtaController>(bus, [this](unsigned irq, bool level) { irq_level[irq] = level; },
                                          AtaController::Drives{disk.get(), nullptr, cd.get(), nullptr}, decode);
    ata->attach_ports(ports);
    ata->pci_function().plug(ports, bus, [](bool) {});
  }
  void TearDown() override {
    ata.reset();
    disk.reset();
    cd.reset();
    fs::remove_all(fs::path(disk_path).parent_path());
  }
  u8 in(u16 port) { return static_cast<u8>(ports.read(port, 1)); }
  void out(u16 port, u8 value) { ports.write(port, 1, value); }
  u16 data() { return static_cast<u16>(ports.read(kCmd, 2)); }
  void lba28(u32 lba, u8 count, u8 command) {
    out(kCmd + kSectorCount, count);
    out(kCmd + kLbaLow, static_cast<u8>(lba));
    out(kCmd + kLbaMid, static_cast<u8>(lba >> 8));
    out(kCmd + kLbaHigh, static_cast<u8>(lba >> 16));
    out(kCmd + kDevice, static_cast<u8>(0xE0 | (lba >> 24)));
    out(kCmd + kCommand, command);
  }
  std::vector<u8> read_block(u16 base, unsigned bytes) {
    std::vector<u8> out_bytes;
    for (unsigned i = 0; i < bytes; i += 2) {
      const u16 w = static_cast<u16>(ports.read(base, 2));
      out_bytes.push_back(static_cast<u8>(w));
      out_bytes.push_back(static_cast<u8>(w >> 8));
    }
    return out_bytes;
  }
  // Sends a 12-byte packet to the secondary master with byte count limit `limit`.
  void packet(std::array<u8, 12> p, u16 limit = 0xFFFE, bool dma = false) {
    out(kCmd2 + kDevice, 0xA0);
    out(kCmd2 + kFeatures, dma ? 1 : 0);
    out(kCmd2 + kLbaMid, static_cast<u8>(limit));
    out(kCmd2 + kLbaHigh, static_cast<u8>(limit >> 8));
    out(kCmd2 + kCommand, kPacket);
    for (unsigned i = 0; i < 12; i += 2) ports.write(kCmd2, 2, u32{p[i]} | u32{p[i + 1]} << 8);
  }
  u16 byte_count() { return static_cast<u16>(in(kCmd2 + kLbaMid) | in(kCmd2 + kLbaHigh) << 8); }
  // PRD table at 0x1000 with the given (address, bytes, eot) entries; bus master on.
  void prd_table(std::vector<std::tuple<u32, u32, bool>> entries, unsigned channel = 0) {
    u32 at = 0x1000;
    for (auto [address, bytes, eot] : entries) {
      bus.write<u32>(at, address, AccessKind::Data);
      bus.write<u32>(at + 4, (bytes & 0xFFFF) | (eot ? 0x80000000u : 0), AccessKind::Data);
      at += 8;
    }
    Piix3Ide& ide = ata->pci_function();
    ide.config_write(pci::kBar0 + 16, 4, kBmBase);
    ide.config_write(pci::kCommand, 2, pci::kCommandIo | pci::kCommandBusMaster);
    ports.write(kBmBase + 8 * channel + 4, 4, 0x1000);
  }

  Counters counters;
  PhysicalBus bus{16u << 20, counters};
  PortBus ports{counters};
  std::string disk_path, iso_path;
  std::unique_ptr<DiskImage> disk, cd;
  std::unique_ptr<AtaController> ata;
  bool irq_level[16] = {};
};

TEST_F(AtaTest, PowerOnSignaturesOfADiskAndAPacketDevice) {
  // ATA-6 9.12 Table 27.
  EXPECT_EQ(in(kCmd + kSectorCount), 0x01);
  EXPECT_EQ(in(kCmd + kLbaLow), 0x01);
  EXPECT_EQ(in(kCmd + kLbaMid), 0x00);
  EXPECT_EQ(in(kCmd + kLbaHigh), 0x00);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  EXPECT_EQ(in(kCmd2 + kSectorCount), 0x01);
  EXPECT_EQ(in(kCmd2 + kLbaLow), 0x01);
  EXPECT_EQ(in(kCmd2 + kLbaMid), 0x14);
  EXPECT_EQ(in(kCmd2 + kLbaHigh), 0xEB);
  EXPECT_EQ(in(kCmd2 + kStatus), 0x00);
}

TEST_F(AtaTest, AbsentSlaveReadsZeroAndEmptyChannelFloats) {
  out(kCmd + kDevice, 0xB0);
  EXPECT_EQ(in(kCmd + kStatus), 0x00);
  EXPECT_EQ(in(kCtl), 0x00);
  AtaController bare(bus, [](unsigned, bool) {}, AtaController::Drives{});
  EXPECT_EQ(bare.primary().read(kCmd + kStatus, 1), 0xFFu);
}

TEST_F(AtaTest, IdentifyDeviceWordsAndIntegrityWord) {
  out(kCmd + kDevice, 0xA0);
  out(kCmd + kCommand, kIdentifyDevice);
  EXPECT_TRUE(irq_level[14]);
  EXPECT_EQ(in(kCtl), 0x58);  // DRDY DSC DRQ; Alternate Status keeps INTRQ
  EXPECT_TRUE(irq_level[14]);
  EXPECT_EQ(in(kCmd + kStatus), 0x58);
  EXPECT_FALSE(irq_level[14]);  // reading Status clears INTRQ
  std::array<u16, 256> w;
  for (u16& word : w) word = data();
  EXPECT_EQ(in(kCmd + kStatus), 0x50);  // no INTRQ after the last PIO data-in block
  EXPECT_FALSE(irq_level[14]);
  EXPECT_EQ(w[0] & 0x8000, 0);  // ATA device
  EXPECT_EQ(w[1], 20);
  EXPECT_EQ(w[3], 16);
  EXPECT_EQ(w[6], 63);
  EXPECT_EQ(w[27], ('X' << 8) | '8');  // ATA string byte order
  EXPECT_EQ(w[47] & 0xFF, 16);
  EXPECT_TRUE(w[49] & (1u << 9));  // LBA
  EXPECT_TRUE(w[49] & (1u << 8));  // DMA
  EXPECT_EQ(w[53] & 7, 7);
  EXPECT_EQ(u32{w[57]} | u32{w[58]} << 16, kDiskSectors);  // 20 x 16 x 63
  EXPECT_EQ(u32{w[60]} | u32{w[61]} << 16, kDiskSectors);
  EXPECT_TRUE(w[83] & (1u << 10));  // 48-bit address feature set
  EXPECT_TRUE(w[83] & (1u << 12));  // FLUSH CACHE
  EXPECT_EQ(w[83] & 0xC000, 0x4000);
  EXPECT_EQ(u64{w[100]} | u64{w[101]} << 16 | u64{w[102]} << 32 | u64{w[103]} << 48, kDiskSectors);
  EXPECT_EQ(w[255] & 0xFF, 0xA5);
  u8 sum = 0;
  for (u16 word : w) sum = static_cast<u8>(sum + (word & 0xFF) + (word >> 8));
  EXPECT_EQ(sum, 0);
}

// ATA-1 (X3.221-1994) IDENTIFY DRIVE words 4 and 5: unformatted bytes per track and
// per sector (retired since ATA-2's successors); the Bochs BIOS reads word 5 as the
// PIO block size, and with 0 it moved no data (INT 13h error 4).
TEST_F(AtaTest, IdentifyDeviceWords4And5HoldTheAta1BytesPerTrackAndSector) {
  out(kCmd + kDevice, 0xA0);
  out(kCmd + kCommand, kIdentifyDevice);
  std::array<u16, 256> w;
  for (u16& word : w) word = data();
  EXPECT_EQ(w[4], 512 * 63);
  EXPECT_EQ(w[5], 512);
}

TEST_F(AtaTest, DefaultGeometryClampsAt16383Cylinders) {
  EXPECT_EQ(default_geometry(16383ull * 16 * 63 * 4), (AtaGeometry{16383, 16, 63}));
  EXPECT_EQ(default_geometry(100), (AtaGeometry{1, 16, 63}));
  EXPECT_EQ(default_geometry(2016), (AtaGeometry{2, 16, 63}));
}

TEST_F(AtaTest, PacketDeviceAbortsIdentifyDeviceWithItsSignature) {
  out(kCmd2 + kDevice, 0xA0);
  out(kCmd2 + kCommand, kIdentifyDevice);
  EXPECT_EQ(in(kCmd2 + kStatus), kDrdy | kErr);
  EXPECT_EQ(in(kCmd2 + kError), kAbrt);
  EXPECT_EQ(in(kCmd2 + kLbaMid), 0x14);
  EXPECT_EQ(in(kCmd2 + kLbaHigh), 0xEB);
  out(kCmd2 + kCommand, kIdentifyPacketDevice);
  EXPECT_EQ(in(kCmd2 + kStatus), kDrdy | kDrq);
  std::vector<u8> id = read_block(kCmd2, 512);
  const u16 w0 = static_cast<u16>(id[0] | id[1] << 8);
  EXPECT_EQ(w0 >> 14, 2);          // packet device
  EXPECT_EQ((w0 >> 8) & 0x1F, 5);  // CD-ROM
  EXPECT_TRUE(w0 & 0x80);          // removable
  EXPECT_EQ(w0 & 3, 0);            // 12-byte packets
}

TEST_F(AtaTest, ReadSectorsGivesEachSectorWithAnInterruptPerBlock) {
  lba28(1000, 3, kReadSectors);
  for (u32 s = 0; s < 3; ++s) {
    EXPECT_TRUE(irq_level[14]) << s;
    EXPECT_EQ(in(kCmd + kStatus), 0x58);
    std::vector<u8> bytes = read_block(kCmd, 512);
    EXPECT_EQ(bytes[0], disk_byte(1000 + s, 0));
    EXPECT_EQ(bytes[511], disk_byte(1000 + s, 511));
  }
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
}

TEST_F(AtaTest, ThirtyTwoBitDataReadsTwoWords) {
  lba28(5, 1, kReadSectors);
  const u32 first = ports.read(kCmd, 4);
  EXPECT_EQ(first, u32{disk_byte(5, 0)} | u32{disk_byte(5, 1)} << 8 | u32{disk_byte(5, 2)} << 16 |
                       u32{disk_byte(5, 3)} << 24);
}

TEST_F(AtaTest, WriteSectorsReachTheFileAndFlushCompletes) {
  lba28(7, 2, kWriteSectors);
  EXPECT_FALSE(irq_level[14]);  // ATA-6 9.8: the first block is asked for without INTRQ
  EXPECT_EQ(in(kCmd + kStatus), 0x58);
  for (unsigned i = 0; i < 256; ++i) ports.write(kCmd, 2, 0xA55A);
  EXPECT_TRUE(irq_level[14]);
  EXPECT_EQ(in(kCmd + kStatus), 0x58);
  for (unsigned i = 0; i < 256; ++i) ports.write(kCmd, 4, 0x11223344);
  EXPECT_TRUE(irq_level[14]);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  out(kCmd + kCommand, kFlushCache);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  const std::vector<u8> file = read_file(disk_path);
  EXPECT_EQ(file[7 * 512], 0x5A);
  EXPECT_EQ(file[7 * 512 + 1], 0xA5);
  EXPECT_EQ(file[8 * 512], 0x44);
  EXPECT_EQ(file[8 * 512 + 3], 0x11);
  EXPECT_EQ(file[9 * 512], disk_byte(9, 0));
}

TEST_F(AtaTest, Lba48RegistersAreFifosReadBackWithHob) {
  out(kCmd + kLbaLow, 0x12);
  out(kCmd + kLbaLow, 0x34);
  EXPECT_EQ(in(kCmd + kLbaLow), 0x34);
  out(kCtl, kHob);
  EXPECT_EQ(in(kCmd + kLbaLow), 0x12);
  out(kCmd + kSectorCount, 0);  // a register write clears HOB
  EXPECT_EQ(in(kCmd + kLbaLow), 0x34);
}

TEST_F(AtaTest, ReadSectorsExtTakesTheHighOrderBytes) {
  // LBA 0000_0000_2710h (10000) in two halves, count 0001h.
  out(kCmd + kSectorCount, 0x00);
  out(kCmd + kLbaLow, 0x00);
  out(kCmd + kLbaMid, 0x00);
  out(kCmd + kLbaHigh, 0x00);
  out(kCmd + kSectorCount, 0x01);
  out(kCmd + kLbaLow, 0x10);
  out(kCmd + kLbaMid, 0x27);
  out(kCmd + kLbaHigh, 0x00);
  out(kCmd + kDevice, 0x40);
  out(kCmd + kCommand, kReadSectorsExt);
  EXPECT_EQ(in(kCmd + kStatus), 0x58);
  EXPECT_EQ(read_block(kCmd, 512)[3], disk_byte(10000, 3));
  // A high-order byte beyond the disk: IDNF, and the LBA of the failure in the registers.
  out(kCmd + kSectorCount, 0x00);
  out(kCmd + kLbaLow, 0x01);  // LBA bits 31:24 = 1
  out(kCmd + kSectorCount, 0x01);
  out(kCmd + kLbaLow, 0x00);
  out(kCmd + kCommand, kReadSectorsExt);
  EXPECT_EQ(in(kCmd + kStatus), kDrdy | kDsc | kErr);
  EXPECT_EQ(in(kCmd + kError), kIdnf);
}

TEST_F(AtaTest, ChsAddressingFollowsInitializeDeviceParameters) {
  // 4 heads, 32 sectors per track: C 2 H 3 S 5 is LBA (2*4+3)*32+4 = 356.
  out(kCmd + kSectorCount, 32);
  out(kCmd + kDevice, 0xA3);
  out(kCmd + kCommand, kInitializeDeviceParameters);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  EXPECT_EQ(ata->primary().device(0)->current_geometry(), (AtaGeometry{kDiskSectors / 128, 4, 32}));
  out(kCmd + kSectorCount, 1);
  out(kCmd + kLbaLow, 5);
  out(kCmd + kLbaMid, 2);
  out(kCmd + kLbaHigh, 0);
  out(kCmd + kDevice, 0xA3);
  out(kCmd + kCommand, kReadSectors);
  EXPECT_EQ(read_block(kCmd, 512)[0], disk_byte(356, 0));
  out(kCmd + kLbaLow, 0);  // sector 0 does not exist
  out(kCmd + kCommand, kReadSectors);
  EXPECT_EQ(in(kCmd + kStatus), kDrdy | kDsc | kErr);
  EXPECT_EQ(in(kCmd + kError), kIdnf);
}

TEST_F(AtaTest, ReadMultipleNeedsSetMultipleModeWithAPowerOfTwo) {
  lba28(0, 8, kReadMultiple);
  EXPECT_EQ(in(kCmd + kError), kAbrt);
  out(kCmd + kSectorCount, 3);
  out(kCmd + kCommand, kSetMultipleMode);
  EXPECT_EQ(in(kCmd + kError), kAbrt);
  out(kCmd + kSectorCount, 4);
  out(kCmd + kCommand, kSetMultipleMode);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  lba28(100, 8, kReadMultiple);
  EXPECT_TRUE(irq_level[14]);
  EXPECT_EQ(in(kCmd + kStatus), 0x58);
  std::vector<u8> block = read_block(kCmd, 2048);  // one DRQ block of 4 sectors
  EXPECT_EQ(block[3 * 512], disk_byte(103, 0));
  EXPECT_TRUE(irq_level[14]);
  EXPECT_EQ(in(kCmd + kStatus), 0x58);
  read_block(kCmd, 2048);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
}

TEST_F(AtaTest, UnknownCommandAndNopAbort) {
  out(kCmd + kCommand, 0x00);
  EXPECT_EQ(in(kCmd + kStatus), kDrdy | kDsc | kErr);
  EXPECT_EQ(in(kCmd + kError), kAbrt);
  out(kCmd + kFeatures, 0x03);
  out(kCmd + kSectorCount, 0x46);  // Ultra DMA mode 6: not supported
  out(kCmd + kCommand, kSetFeatures);
  EXPECT_EQ(in(kCmd + kError), kAbrt);
  out(kCmd + kSectorCount, 0x22);  // multiword DMA mode 2
  out(kCmd + kCommand, kSetFeatures);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  EXPECT_EQ(ata->primary().device(0)->identify_data()[63], 0x0407);
}

TEST_F(AtaTest, SoftwareResetHoldsBusyThenLoadsSignatures) {
  lba28(3, 1, kReadSectors);
  out(kCtl, kSrst);
  EXPECT_EQ(in(kCtl), kBsy);
  EXPECT_EQ(in(kCtl2), 0x00);  // the other channel is not reset
  out(kCtl, 0);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  EXPECT_EQ(in(kCmd + kError), kDiagnosticPassed);
  EXPECT_EQ(in(kCmd + kSectorCount), 0x01);
  EXPECT_EQ(in(kCmd + kLbaLow), 0x01);
  EXPECT_EQ(ports.read(kCmd, 2), 0xFFFFu);  // the data phase was aborted
}

TEST_F(AtaTest, NienKeepsIntrqOffTheIrqLine) {
  out(kCtl, kNien);
  lba28(0, 1, kReadSectors);
  EXPECT_FALSE(irq_level[14]);
  out(kCtl, 0);
  EXPECT_TRUE(irq_level[14]);  // still pending: the line follows once nIEN is cleared
}

TEST_F(AtaTest, ExecuteDeviceDiagnosticLoadsSignatureAndInterrupts) {
  out(kCmd2 + kCommand, kExecuteDeviceDiagnostic);
  EXPECT_TRUE(irq_level[15]);
  EXPECT_EQ(in(kCmd2 + kError), 0x01);
  EXPECT_EQ(in(kCmd2 + kLbaMid), 0x14);
  EXPECT_EQ(in(kCmd2 + kLbaHigh), 0xEB);
}

TEST_F(AtaTest, WriteToAReadOnlyImageFailsWithWriteProtect) {
  ata.reset();
  disk.reset();
  ::chmod(disk_path.c_str(), 0444);
  disk = DiskImage::open("--hda", disk_path, DiskImage::Medium::HardDisk, false);
  if (!disk->read_only()) GTEST_SKIP() << "the test runs with the right to write a read-only file (root)";
  build(AtaController::Decode::Enabled);
  lba28(1, 1, kWriteSectors);
  EXPECT_EQ(in(kCmd + kStatus), kDrdy | kDsc | kErr);
  EXPECT_EQ(in(kCmd + kError), kWp | kAbrt);
}

TEST_F(AtaTest, Piix3IdeIdentityAndIdetimDecodeEnable) {
  build(AtaController::Decode::PowerOn);
  Piix3Ide& ide = ata->pci_function();
  EXPECT_EQ(ide.config_read(0x00, 4), 0x70108086u);
  EXPECT_EQ(ide.config_read(0x08, 4), 0x01018000u);  // class 01h 01h, prog-if 80h, revision 00h
  EXPECT_EQ(ide.config_read(0x40, 2), 0x0000u);
  EXPECT_EQ(in(kCmd + kStatus), 0xFF);  // decode disabled at power-up
  ide.config_write(0x40, 2, 0x8000);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  EXPECT_EQ(in(kCmd2 + kStatus), 0xFF);
  ide.config_write(pci::kBar0 + 16, 4, 0xFFFFFFFF);
  EXPECT_EQ(ide.config_read(pci::kBar0 + 16, 4), 0xFFFFFFF1u);  // 16 bytes of I/O
}

TEST_F(AtaTest, ReadDmaThroughOnePrdEndsTheTable) {
  prd_table({{0x20000, 1024, true}});
  lba28(50, 2, kReadDma);
  EXPECT_EQ(in(kCmd + kStatus), 0x58);
  ports.write(kBmBase, 1, BusMasterIde::kStart | BusMasterIde::kWriteToMemory);
  EXPECT_EQ(bus.read<u8>(0x20000, AccessKind::Data), disk_byte(50, 0));
  EXPECT_EQ(bus.read<u8>(0x20000 + 1023, AccessKind::Data), disk_byte(51, 511));
  EXPECT_EQ(ports.read(kBmBase + 2, 1), BusMasterIde::kInterrupt);  // interrupt, not active
  EXPECT_TRUE(irq_level[14]);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  ports.write(kBmBase + 2, 1, BusMasterIde::kInterrupt);  // write 1 to clear
  EXPECT_EQ(ports.read(kBmBase + 2, 1), 0u);
}

TEST_F(AtaTest, DmaWithALargerPrdStaysActiveAndASmallerOneStops) {
  prd_table({{0x20000, 0x1000, true}});
  ports.write(kBmBase, 1, BusMasterIde::kStart | BusMasterIde::kWriteToMemory);
  lba28(0, 1, kReadDma);
  EXPECT_EQ(ports.read(kBmBase + 2, 1), BusMasterIde::kInterrupt | BusMasterIde::kActive);
  ports.write(kBmBase, 1, 0);
  ports.write(kBmBase + 2, 1, BusMasterIde::kInterrupt);
  prd_table({{0x20000, 256, false}, {0x30000, 256, true}});
  lba28(0, 2, kReadDma);
  ports.write(kBmBase, 1, BusMasterIde::kStart | BusMasterIde::kWriteToMemory);
  EXPECT_EQ(bus.read<u8>(0x30000 + 255, AccessKind::Data), disk_byte(0, 511));
  EXPECT_EQ(ports.read(kBmBase + 2, 1), 0u);  // the table ended first: neither active nor interrupt
  EXPECT_EQ(in(kCmd + kStatus), 0x58);      // the device still waits for DMA
}

TEST_F(AtaTest, WriteDmaNeedsTheBusMasterEnable) {
  prd_table({{0x40000, 512, true}});
  for (u32 i = 0; i < 512; ++i) bus.write<u8>(0x40000 + i, static_cast<u8>(0xFF - i), AccessKind::Data);
  ata->pci_function().config_write(pci::kCommand, 2, pci::kCommandIo);  // bus master off
  lba28(20, 1, kWriteDma);
  ports.write(kBmBase, 1, BusMasterIde::kStart);
  EXPECT_EQ(in(kCmd + kStatus), 0x58);  // nothing moved
  ports.write(kBmBase, 1, 0);
  ata->pci_function().config_write(pci::kCommand, 2, pci::kCommandIo | pci::kCommandBusMaster);
  ports.write(kBmBase, 1, BusMasterIde::kStart);
  EXPECT_EQ(in(kCmd + kStatus), 0x50);
  EXPECT_EQ(read_file(disk_path)[20 * 512 + 1], 0xFE);
}

TEST_F(AtaTest, PacketInquiryInPio) {
  packet({0x12, 0, 0, 0, 36, 0});
  EXPECT_TRUE(irq_level[15]);
  EXPECT_EQ(in(kCmd2 + kStatus), kDrdy | kDrq);
  EXPECT_EQ(in(kCmd2 + kSectorCount), kIo);  // interrupt reason: data to the host
  EXPECT_EQ(byte_count(), 36);
  std::vector<u8> d = read_block(kCmd2, 36);
  EXPECT_EQ(d[0], 0x05);  // CD/DVD device
  EXPECT_EQ(d[1], 0x80);  // removable
  EXPECT_EQ(d[4], 31);
  EXPECT_TRUE(irq_level[15]);
  EXPECT_EQ(in(kCmd2 + kStatus), kDrdy);
  EXPECT_EQ(in(kCmd2 + kSectorCount), kIo | kCoD);  // completion
}

TEST_F(AtaTest, PacketReadCapacityAndReadTenWithAByteCountLimit) {
  packet({0x25});
  std::vector<u8> cap = read_block(kCmd2, 8);
  EXPECT_EQ(cap[3], 63);    // last LBA
  EXPECT_EQ(cap[6], 0x08);  // 2048-byte blocks
  packet({0x28, 0, 0, 0, 0, 16, 0, 0, 2, 0}, 1024);  // READ(10) LBA 16, 2 blocks, 1 KiB per DRQ block
  for (unsigned block = 0; block < 4; ++block) {
    EXPECT_EQ(byte_count(), 1024) << block;
    EXPECT_EQ(in(kCmd2 + kStatus), kDrdy | kDrq);
    std::vector<u8> d = read_block(kCmd2, 1024);
    if (block == 0) {
      EXPECT_EQ(std::string(d.begin() + 1, d.begin() + 6), "CD001");
    }
    if (block == 2) {
      EXPECT_EQ(d[100], 17);
    }
  }
  EXPECT_EQ(in(kCmd2 + kStatus), kDrdy);
}

TEST_F(AtaTest, PacketErrorsGiveSenseData) {
  packet({0xFF});  // no such operation code
  EXPECT_EQ(in(kCmd2 + kStatus), kDrdy | kErr);
  EXPECT_EQ(in(kCmd2 + kError), 0x54);  // sense key 5 (ILLEGAL REQUEST), ABRT
  packet({0x03, 0, 0, 0, 18, 0});
  std::vector<u8> sense = read_block(kCmd2, 18);
  EXPECT_EQ(sense[0], 0x70);
  EXPECT_EQ(sense[2], 0x05);
  EXPECT_EQ(sense[12], 0x20);  // INVALID COMMAND OPERATION CODE
  packet({0x28, 0, 0, 0, 0, 64, 0, 0, 1, 0});  // READ(10) past the end
  EXPECT_EQ(in(kCmd2 + kError), 0x54);
  EXPECT_EQ(ata->secondary().device(0)->additional_sense_code(), 0x21);  // LBA OUT OF RANGE
  packet({0x00});                                                       // TEST UNIT READY
  EXPECT_EQ(in(kCmd2 + kStatus), kDrdy);
}

TEST_F(AtaTest, PacketReadTocFormatZero) {
  packet({0x43, 0, 0, 0, 0, 0, 0, 0, 100, 0});
  std::vector<u8> toc = read_block(kCmd2, byte_count());
  ASSERT_EQ(toc.size(), 20u);
  EXPECT_EQ(toc[1], 18);  // TOC data length
  EXPECT_EQ(toc[2], 1);
  EXPECT_EQ(toc[3], 1);
  EXPECT_EQ(toc[5], 0x14);  // ADR 1, data track
  EXPECT_EQ(toc[6], 1);
  EXPECT_EQ(toc[14], 0xAA);  // lead-out
  EXPECT_EQ(toc[19], 64);    // at the end of the image
  packet({0x43, 0x02, 0, 0, 0, 0, 0, 0, 100, 0});  // MSF: track 1 at 00:02:00
  toc = read_block(kCmd2, byte_count());
  EXPECT_EQ(toc[9], 0);
  EXPECT_EQ(toc[10], 2);
  EXPECT_EQ(toc[11], 0);
}

TEST_F(AtaTest, PacketModeSenseCapabilitiesPage) {
  packet({0x5A, 0, 0x2A, 0, 0, 0, 0, 0, 64, 0});
  std::vector<u8> d = read_block(kCmd2, byte_count());
  ASSERT_EQ(d.size(), 28u);
  EXPECT_EQ(d[1], 26);  // mode data length
  EXPECT_EQ(d[8], 0x2A);
  EXPECT_EQ(d[9], 0x12);
  packet({0x5A, 0, 0x05, 0, 0, 0, 0, 0, 64, 0});  // no such page
  EXPECT_EQ(in(kCmd2 + kError), 0x54);
}

TEST_F(AtaTest, PacketReadTenByDma) {
  prd_table({{0x50000, 2048, true}}, 1);
  packet({0x28, 0, 0, 0, 0, 16, 0, 0, 1, 0}, 0xFFFE, true);
  EXPECT_EQ(in(kCmd2 + kStatus), kDrdy | kDrq);
  ports.write(kBmBase + 8, 1, BusMasterIde::kStart | BusMasterIde::kWriteToMemory);
  EXPECT_EQ(bus.read<u8>(0x50001, AccessKind::Data), 'C');
  EXPECT_EQ(bus.read<u8>(0x50005, AccessKind::Data), '1');
  EXPECT_EQ(ports.read(kBmBase + 10, 1), BusMasterIde::kInterrupt);
  EXPECT_EQ(in(kCmd2 + kStatus), kDrdy);
  EXPECT_EQ(in(kCmd2 + kSectorCount), kIo | kCoD);
}

TEST_F(AtaTest, SnapshotRestoresRegistersAndDiskContent) {
  lba28(30, 1, kWriteSectors);
  for (unsigned i = 0; i < 256; ++i) ports.write(kCmd, 2, 0x1111);
  StateArchive save;
  ata->transfer_state(save);
  const std::vector<u8> bytes = save.take_bytes();
  lba28(30, 1, kWriteSectors);
  for (unsigned i = 0; i < 256; ++i) ports.write(kCmd, 2, 0x2222);
  lba28(31, 1, kWriteSectors);
  for (unsigned i = 0; i < 256; ++i) ports.write(kCmd, 2, 0x3333);
  StateArchive check(StateArchive::Mode::Check, bytes);
  ata->transfer_state(check);
  StateArchive load(StateArchive::Mode::Load, bytes);
  ata->transfer_state(load);
  load.expect_end("ata");
  const std::vector<u8> file = read_file(disk_path);
  EXPECT_EQ(file[30 * 512], 0x11);
  EXPECT_EQ(file[31 * 512], disk_byte(31, 0));
}

TEST_F(AtaTest, SnapshotOfOtherDrivesIsRefused) {
  StateArchive save;
  ata->transfer_state(save);
  const std::vector<u8> bytes = save.take_bytes();
  AtaController other(bus, [](unsigned, bool) {}, AtaController::Drives{disk.get(), nullptr, nullptr, nullptr});
  StateArchive check(StateArchive::Mode::Check, bytes);
  EXPECT_THROW(other.transfer_state(check), StateArchiveError);
}

// ATA-6 8.15: words 54-56 report the translation INITIALIZE DEVICE PARAMETERS set,
// word 59 the multiple setting (bit 8 valid).
TEST_F(AtaTest, IdentifyReportsCurrentTranslationAndMultipleSetting) {
  out(kCmd + kSectorCount, 8);
  out(kCmd + kCommand, kSetMultipleMode);
  out(kCmd + kSectorCount, 17);
  out(kCmd + kDevice, 0xA7);
  out(kCmd + kCommand, kInitializeDeviceParameters);
  const std::array<u16, 256> w = ata->primary().device(0)->identify_data();
  EXPECT_EQ(w[54], kDiskSectors / (8 * 17));
  EXPECT_EQ(w[55], 8);
  EXPECT_EQ(w[56], 17);
  EXPECT_EQ(w[59], 0x0108);
  EXPECT_EQ(w[1], 20);  // the default translation does not change
}

}  // namespace
}  // namespace x86lab
