// A guest's disk, CD-ROM or floppy backed by a raw image file on the host: the one
// storage layer under the ATA, ATAPI and floppy controllers (issue 35, docs/booting.md).
//
// Data safety: guest writes go to the file in the order the guest issues them
// (pwrite, no host-side write cache of our own); flush() makes them durable (fsync),
// as FLUSH CACHE must. A writable image is locked against a second writer (an
// exclusive flock; a second x86lab, or QEMU, on the same file is refused). A file the
// host user cannot write, or with no write permission bit at all (also for root), is
// offered read-only: writes fail, and the controller reports
// a write-protected medium. With `overlay` (--snapshot-disks) guest writes go to a
// sector map in memory and the file is opened read-only and never changed.
//
// Machine state: every sector written since the image was opened is remembered with
// its content before the first write (the undo store), so that a snapshot can hold
// the changed sectors and loading one puts the disk back as it was (transfer_state).
#pragma once
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trace/state_archive.h"
#include "trace/types.h"

namespace x86lab {

class DiskImage {
 public:
  enum class Medium : u8 { HardDisk, Cdrom, Floppy };
  static constexpr u32 kSectorBytes = 512;

  // Opens `path` for the device `option` names ("--hda", "--cdrom", "--fda"), which is
  // also the start of every error message. Throws InputError (platform/input_error.h)
  // with one line for: a missing, unreadable, empty, directory or non-regular file; a
  // hard disk or floppy whose size is no multiple of 512 bytes; a floppy whose size is
  // not 720 KiB, 1.44 MB or 2.88 MB; a CD-ROM image that is not ISO 9660 ("CD001" at
  // byte 8001h) or whose size is no multiple of 2048; a writable image another process
  // holds locked. Nothing is written to the file while opening.
  static std::unique_ptr<DiskImage> open(const std::string& option, const std::string& path, Medium medium,
                                         bool overlay);
  ~DiskImage();
  DiskImage(const DiskImage&) = delete;
  DiskImage& operator=(const DiskImage&) = delete;

  const std::string& path() const { return path_; }
  Medium medium() const { return medium_; }
  u64 size_bytes() const { return size_; }
  u64 sectors() const { return size_ / kSectorBytes; }
  // Writes fail (a CD-ROM, or a file the user cannot write).
  bool read_only() const { return read_only_; }

  // Reads or writes whole 512-byte sectors from `first` (a sector number); false when a
  // sector lies beyond the end, or (write) the image is read-only, or the host file
  // failed (the controller then reports a media error). `bytes.size()` is a multiple of
  // 512.
  bool read(u64 first, std::span<u8> bytes);
  bool write(u64 first, std::span<const u8> bytes);
  // Makes written sectors durable (fsync; nothing to do with an overlay). False on a
  // host error.
  bool flush();

  // Counts for --stats and tests.
  u64 sectors_read() const { return sectors_read_; }
  u64 sectors_written() const { return sectors_written_; }

  // Saves, checks or loads the disk's changes since it was opened: the size, the
  // numbers of the changed sectors, a hash of every other sector's content as it was at
  // open, and the changed sectors' current content. Loading refuses (StateArchiveError)
  // an image of another size, or one whose sectors outside the snapshot's set differ
  // from what they were when it was saved (the image was changed elsewhere, or written
  // after the snapshot by a run that has since ended); then it rewrites the disk to the
  // saved content: sectors changed in this run but not in the snapshot get their
  // original content back from the undo store. So a snapshot loads in the run that
  // took it (reverse execution), and in a later run on the image as it was left right
  // after the snapshot or on the image it was taken from.
  void transfer_state(StateArchive& archive);

 private:
  DiskImage() = default;
  bool read_base(u64 offset, u8* out, std::size_t bytes);
  bool write_sector(u64 sector, const u8* bytes);
  void remember_original(u64 sector);

  std::string option_, path_;
  Medium medium_ = Medium::HardDisk;
  int fd_ = -1;
  u64 size_ = 0;
  bool read_only_ = false;
  bool overlay_ = false;
  u64 base_hash_ = 0;
  std::map<u64, std::vector<u8>> overlay_sectors_;  // --snapshot-disks: sector -> 512 bytes
  std::map<u64, std::vector<u8>> originals_;        // undo store: sector -> content at open
  u64 sectors_read_ = 0, sectors_written_ = 0;
};

}  // namespace x86lab
