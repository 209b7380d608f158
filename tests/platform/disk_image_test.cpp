// DiskImage: the raw image files behind the drives. The expected behaviour is the
// contract of platform/devices/storage/disk_image.h (data safety, one-line errors) and
// ISO 9660 (ECMA-119 8.1: the volume descriptor set starts at logical sector 16, 2048
// bytes each, with the standard identifier "CD001" at byte 1 of a descriptor).
#include "platform/devices/storage/disk_image.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "platform/input_error.h"

namespace x86lab {
namespace {

namespace fs = std::filesystem;

class DiskImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("x86lab_disk_image_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string make(const std::string& name, std::size_t bytes, u8 fill = 0) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << std::string(bytes, static_cast<char>(fill));
    return p.string();
  }
  std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  std::string error_of(const std::string& path, DiskImage::Medium medium, const char* option = "--hda") {
    try {
      DiskImage::open(option, path, medium, false);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(DiskImageTest, BadImagesGiveOneLineNamingTheOptionAndFile) {
  using M = DiskImage::Medium;
  const std::string missing = (dir_ / "missing.img").string();
  EXPECT_EQ(error_of(missing, M::HardDisk), "--hda '" + missing + "': No such file or directory");
  EXPECT_EQ(error_of(dir_.string(), M::HardDisk), "--hda '" + dir_.string() + "': is a directory, not an image file");
  const std::string empty = make("empty.img", 0);
  EXPECT_EQ(error_of(empty, M::HardDisk), "--hda '" + empty + "': is empty");
  const std::string odd = make("odd.img", 1000);
  EXPECT_EQ(error_of(odd, M::HardDisk), "--hda '" + odd + "': size is no multiple of 512 bytes");
  const std::string small_floppy = make("f.img", 512 * 100);
  EXPECT_NE(error_of(small_floppy, M::Floppy, "--fda").find("not a 720 KiB, 1.44 MB or 2.88 MB floppy image (51200 bytes)"),
            std::string::npos);
  const std::string not_iso = make("notiso.iso", 2048 * 20);
  EXPECT_NE(error_of(not_iso, M::Cdrom, "--cdrom").find("not an ISO 9660 image"), std::string::npos);
  for (const std::string& message : {error_of(missing, M::HardDisk), error_of(odd, M::HardDisk)})
    EXPECT_EQ(message.find('\n'), std::string::npos);
  // Opening never writes: the rejected files keep their bytes.
  EXPECT_EQ(fs::file_size(odd), 1000u);
}

TEST_F(DiskImageTest, AcceptsAnIsoWithItsVolumeDescriptor) {
  std::string bytes(2048 * 20, '\0');
  bytes.replace(16 * 2048, 6, "\x01" "CD001");
  const fs::path p = dir_ / "ok.iso";
  std::ofstream(p, std::ios::binary) << bytes;
  auto image = DiskImage::open("--cdrom", p.string(), DiskImage::Medium::Cdrom, false);
  EXPECT_TRUE(image->read_only());
  EXPECT_EQ(image->sectors(), 80u);
  std::vector<u8> sector(512);
  EXPECT_FALSE(image->write(0, sector)) << "a CD-ROM is never written";
}

TEST_F(DiskImageTest, WritesReachTheFileInPlaceAndReadBack) {
  const std::string path = make("disk.img", 512 * 8, 0xAA);
  {
    auto image = DiskImage::open("--hda", path, DiskImage::Medium::HardDisk, false);
    EXPECT_FALSE(image->read_only());
    std::vector<u8> out(1024, 0x5C);
    ASSERT_TRUE(image->write(3, out));
    EXPECT_TRUE(image->flush());
    std::vector<u8> in(512 * 8);
    ASSERT_TRUE(image->read(0, in));
    EXPECT_EQ(in[512 * 3 - 1], 0xAA);
    EXPECT_EQ(in[512 * 3], 0x5C);
    EXPECT_EQ(in[512 * 5 - 1], 0x5C);
    EXPECT_EQ(in[512 * 5], 0xAA);
    EXPECT_FALSE(image->read(7, out)) << "sector 8 is beyond the end";
    EXPECT_FALSE(image->write(8, std::span<const u8>(out).first(512)));
  }
  const std::string bytes = file_bytes(path);
  EXPECT_EQ(static_cast<u8>(bytes[512 * 3]), 0x5C);
  EXPECT_EQ(static_cast<u8>(bytes[512 * 5]), 0xAA);
}

TEST_F(DiskImageTest, AFileWithoutWritePermissionIsReadOnlyEvenForRoot) {
  const std::string path = make("ro.img", 512 * 4, 0x11);
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  auto image = DiskImage::open("--hda", path, DiskImage::Medium::HardDisk, false);
  EXPECT_TRUE(image->read_only());
  std::vector<u8> sector(512, 0x22);
  EXPECT_FALSE(image->write(0, sector));
  EXPECT_EQ(static_cast<u8>(file_bytes(path)[0]), 0x11);
}

TEST_F(DiskImageTest, ASecondWriterIsRefused) {
  const std::string path = make("locked.img", 512 * 4);
  auto first = DiskImage::open("--hda", path, DiskImage::Medium::HardDisk, false);
  EXPECT_EQ(error_of(path, DiskImage::Medium::HardDisk, "--hdb"),
            "--hdb '" + path + "': is in use by another program (locked for writing)");
  // The overlay never writes, so it needs no lock.
  EXPECT_NO_THROW(DiskImage::open("--hdb", path, DiskImage::Medium::HardDisk, true));
}

TEST_F(DiskImageTest, TheOverlayLeavesTheFileUntouched) {
  const std::string path = make("base.img", 512 * 4, 0x33);
  auto image = DiskImage::open("--hda", path, DiskImage::Medium::HardDisk, true);
  EXPECT_FALSE(image->read_only());
  std::vector<u8> sector(512, 0x44), back(512);
  ASSERT_TRUE(image->write(1, sector));
  ASSERT_TRUE(image->read(1, back));
  EXPECT_EQ(back[0], 0x44);
  EXPECT_EQ(file_bytes(path), std::string(512 * 4, '\x33'));
}

TEST_F(DiskImageTest, LoadingASnapshotPutsTheDiskBackAsItWas) {
  const std::string path = make("snap.img", 512 * 4, 0x00);
  auto image = DiskImage::open("--hda", path, DiskImage::Medium::HardDisk, false);
  std::vector<u8> a(512, 0xA1), b(512, 0xB2), back(512);
  ASSERT_TRUE(image->write(0, a));
  StateArchive save;
  image->transfer_state(save);
  const std::vector<u8> saved = save.bytes();
  ASSERT_TRUE(image->write(0, b));  // changed again after the snapshot
  ASSERT_TRUE(image->write(2, b));  // and a sector the snapshot never saw changed
  StateArchive check(StateArchive::Mode::Check, saved);
  EXPECT_NO_THROW(image->transfer_state(check));
  StateArchive load(StateArchive::Mode::Load, saved);
  image->transfer_state(load);
  ASSERT_TRUE(image->read(0, back));
  EXPECT_EQ(back[0], 0xA1);
  ASSERT_TRUE(image->read(2, back));
  EXPECT_EQ(back[0], 0x00) << "sector 2 gets its content from before the snapshot";
  const std::string bytes = file_bytes(path);
  EXPECT_EQ(static_cast<u8>(bytes[0]), 0xA1) << "the file follows";
  EXPECT_EQ(static_cast<u8>(bytes[1024]), 0x00);
}

TEST_F(DiskImageTest, ASnapshotLoadsInALaterRunOnTheImageItLeftBehind) {
  const std::string path = make("later.img", 512 * 4, 0x00);
  std::vector<u8> saved;
  {
    auto image = DiskImage::open("--hda", path, DiskImage::Medium::HardDisk, false);
    std::vector<u8> a(512, 0xA1);
    ASSERT_TRUE(image->write(0, a));
    StateArchive save;
    image->transfer_state(save);
    saved = save.bytes();
  }
  auto image = DiskImage::open("--hda", path, DiskImage::Medium::HardDisk, false);
  StateArchive load(StateArchive::Mode::Load, saved);
  EXPECT_NO_THROW(image->transfer_state(load));
  std::vector<u8> back(512);
  ASSERT_TRUE(image->read(0, back));
  EXPECT_EQ(back[0], 0xA1);
}

TEST_F(DiskImageTest, ASnapshotRefusesABaseImageWhoseContentChanged) {
  const std::string path = make("base2.img", 512 * 4, 0x00);
  std::vector<u8> saved;
  {
    auto image = DiskImage::open("--hda", path, DiskImage::Medium::HardDisk, false);
    std::vector<u8> a(512, 0xA1);
    ASSERT_TRUE(image->write(0, a));
    StateArchive save;
    image->transfer_state(save);
    saved = save.bytes();
  }
  {  // Another program changes a sector the snapshot did not save.
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(1536);
    f.put('\x7F');
  }
  auto image = DiskImage::open("--hda", path, DiskImage::Medium::HardDisk, false);
  StateArchive load(StateArchive::Mode::Load, saved);
  try {
    image->transfer_state(load);
    FAIL() << "a changed base image was accepted";
  } catch (const StateArchiveError& e) {
    EXPECT_NE(std::string(e.what()).find("differs from the snapshot's base image"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace x86lab
