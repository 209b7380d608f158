// The drive options (--hda..--hdd, --cdrom, --snapshot-disks, --boot): bad images and
// options give one line naming the option and the file, exit status 2, and leave the
// image untouched; --snapshot-disks keeps the file unchanged while the guest writes.
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_x86lab.h"

namespace x86lab::testing {
namespace {

const std::string kKernel = std::string(X86LAB_ROM_DIR) + "/multiboot/timer_kernel.elf";
const std::string kAtaKernel = std::string(X86LAB_ROM_DIR) + "/multiboot/ata_kernel.elf";

std::string temp_file(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "x86lab_disk_cli_" + name;
  std::filesystem::remove_all(path);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Rejected with `message`, and the file's bytes and modification time are as before.
void expect_rejected_untouched(const std::string& arguments, const std::string& path, const std::string& message) {
  struct stat before {};
  ::stat(path.c_str(), &before);
  const std::string content = read_file(path);
  expect_rejected(arguments, message);
  struct stat after {};
  ::stat(path.c_str(), &after);
  EXPECT_EQ(read_file(path), content);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
}

TEST(DiskCli, MissingImage) {
  expect_rejected("run --kernel " + kKernel + " --hda /nonexistent/disk.img",
                  "--hda '/nonexistent/disk.img': No such file or directory");
}

TEST(DiskCli, EmptyImage) {
  const std::string path = temp_file("empty.img", "");
  expect_rejected_untouched("run --kernel " + kKernel + " --hdb " + path, path, "--hdb '" + path + "': is empty");
}

TEST(DiskCli, DirectoryImage) {
  const std::string path = ::testing::TempDir() + "x86lab_disk_cli_dir";
  std::filesystem::create_directories(path);
  expect_rejected("run --kernel " + kKernel + " --hdd " + path, "--hdd '" + path + "': is a directory, not an image file");
}

TEST(DiskCli, TruncatedImageOfNoWholeSector) {
  const std::string path = temp_file("truncated.img", std::string(512 * 3 + 100, '\x11'));
  expect_rejected_untouched("run --kernel " + kKernel + " --hda " + path, path,
                            "--hda '" + path + "': size is no multiple of 512 bytes");
}

TEST(DiskCli, UnreadableImage) {
  const std::string path = temp_file("unreadable.img", std::string(1024, '\0'));
  ::chmod(path.c_str(), 0);
  if (::access(path.c_str(), R_OK) == 0) GTEST_SKIP() << "the test runs with the right to read any file (root)";
  expect_rejected_untouched("run --kernel " + kKernel + " --hda " + path, path, "--hda '" + path + "': Permission denied");
}

TEST(DiskCli, CdromThatIsNotIso9660) {
  const std::string path = temp_file("zeros.iso", std::string(2048 * 20, '\0'));
  expect_rejected_untouched("run --kernel " + kKernel + " --cdrom " + path, path,
                            "--cdrom '" + path + "': is not an ISO 9660 image (no CD001 volume descriptor at byte 8001h)");
}

TEST(DiskCli, CdromOfNoWholeBlock) {
  const std::string path = temp_file("odd.iso", std::string(2048 * 20 + 512, '\0'));
  expect_rejected_untouched("run --kernel " + kKernel + " --cdrom " + path, path,
                            "--cdrom '" + path + "': size is no multiple of 2048 bytes (not an ISO 9660 image)");
}

TEST(DiskCli, CdromAndHdcAreTheSameDrive) {
  expect_rejected("run --kernel " + kKernel + " --cdrom a.iso --hdc b.img",
                  "--cdrom is the secondary master, which --hdc already is");
}

TEST(DiskCli, BootOrderLetters) {
  expect_rejected("run --kernel " + kKernel + " --boot cx",
                  "--boot needs up to three of the letters a, c, d (floppy, disk, CD-ROM), not 'cx'");
  expect_rejected("run --kernel " + kKernel + " --boot cdc", "--boot names 'c' twice in 'cdc'");
}

TEST(DiskCli, ImageLockedBySecondWriter) {
  const std::string path = temp_file("locked.img", std::string(512 * 64, '\0'));
  const int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  expect_rejected_untouched("run --kernel " + kKernel + " --hda " + path, path,
                            "--hda '" + path + "': is in use by another program (locked for writing)");
  ::close(fd);
}

// The ATA kernel writes sectors 200 and 5001; with --snapshot-disks it reads them back
// (PASS) while the file keeps its bytes.
TEST(DiskCli, SnapshotDisksKeepTheFileUnchanged) {
  std::string disk(8192 * 512, '\0');
  for (unsigned n = 0; n < 8192; ++n)
    for (unsigned i = 0; i < 512; i += 4) {
      disk[n * 512 + i] = static_cast<char>(n);
      disk[n * 512 + i + 1] = static_cast<char>(n >> 8);
    }
  const std::string path = temp_file("overlay.img", disk);
  std::string iso(2048 * 20, '\0');
  iso.replace(16 * 2048, 7, "\x01" "CD001\x01");
  iso.replace(16 * 2048 + 40, 10, "X86LAB_ATA");
  const std::string iso_path = temp_file("overlay.iso", iso);
  const Outcome o = run_x86lab("run --kernel " + kAtaKernel + " --serial none --debugcon stdio --hda " + path + " --cdrom " +
                        iso_path + " --snapshot-disks");
  EXPECT_EQ(o.status, 33) << o.output;
  EXPECT_NE(o.output.find("ok sector 200 word 255"), std::string::npos) << o.output;
  EXPECT_EQ(read_file(path), disk);
}

}  // namespace
}  // namespace x86lab::testing
