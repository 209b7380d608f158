// Raw image files behind the guest's drives: opening with one-line errors, sector I/O
// in guest order, flush, the writer lock, the --snapshot-disks overlay and the undo
// store that lets snapshots restore a disk.
#include "platform/devices/storage/disk_image.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "platform/input_error.h"

namespace x86lab {

namespace {
std::string quoted(const std::string& option, const std::string& path) { return option + " '" + path + "': "; }

bool full_pread(int fd, u8* out, std::size_t bytes, u64 offset) {
  while (bytes) {
    const ssize_t n = ::pread(fd, out, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    bytes -= static_cast<std::size_t>(n);
    offset += static_cast<u64>(n);
  }
  return true;
}

bool full_pwrite(int fd, const u8* in, std::size_t bytes, u64 offset) {
  while (bytes) {
    const ssize_t n = ::pwrite(fd, in, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    in += n;
    bytes -= static_cast<std::size_t>(n);
    offset += static_cast<u64>(n);
  }
  return true;
}

// FNV-1a, 64-bit, over 8-byte words (the image sizes are multiples of 512).
u64 fnv1a(u64 hash, const u8* bytes, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 0x100000001B3ull;
  return hash;
}
constexpr u64 kFnvBasis = 0xCBF29CE484222325ull;
}  // namespace

std::unique_ptr<DiskImage> DiskImage::open(const std::string& option, const std::string& path, Medium medium,
                                           bool overlay) {
  const std::string where = quoted(option, path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(where + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(where + "is a directory, not an image file");
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) throw InputError(where + "is not a regular file");
  std::unique_ptr<DiskImage> image(new DiskImage);
  image->option_ = option;
  image->path_ = path;
  image->medium_ = medium;
  image->overlay_ = overlay;
  // A file with no write permission bit is offered read-only even to root, who could
  // open it for writing: the user's intent, as the permission says it.
  const bool want_write = medium != Medium::Cdrom && !overlay && (st.st_mode & 0222) != 0;
  int fd = want_write ? ::open(path.c_str(), O_RDWR | O_CLOEXEC) : -1;
  if (fd < 0) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(where + std::strerror(errno));
    image->read_only_ = medium == Medium::Cdrom || !overlay;
  }
  image->fd_ = fd;
  const off_t end = ::lseek(fd, 0, SEEK_END);
  if (end < 0) throw InputError(where + std::strerror(errno));
  image->size_ = static_cast<u64>(end);
  if (image->size_ == 0) throw InputError(where + "is empty");
  if (medium == Medium::Cdrom) {
    if (image->size_ % 2048 != 0) throw InputError(where + "size is no multiple of 2048 bytes (not an ISO 9660 image)");
    u8 id[5] = {};
    if (image->size_ < 0x8006 || !full_pread(fd, id, 5, 0x8001) || std::memcmp(id, "CD001", 5) != 0)
      throw InputError(where + "is not an ISO 9660 image (no CD001 volume descriptor at byte 8001h)");
  } else if (image->size_ % kSectorBytes != 0) {
    throw InputError(where + "size is no multiple of 512 bytes");
  }
  if (medium == Medium::Floppy && image->size_ != 737280 && image->size_ != 1474560 && image->size_ != 2949120)
    throw InputError(where + "is not a 720 KiB, 1.44 MB or 2.88 MB floppy image (" + std::to_string(image->size_) +
                     " bytes)");
  if (!image->read_only_ && !overlay && ::flock(fd, LOCK_EX | LOCK_NB) != 0)
    throw InputError(where + "is in use by another program (locked for writing)");
  return image;
}

DiskImage::~DiskImage() {
  if (fd_ >= 0) ::close(fd_);
}

bool DiskImage::read_base(u64 offset, u8* out, std::size_t bytes) { return full_pread(fd_, out, bytes, offset); }

bool DiskImage::read(u64 first, std::span<u8> bytes) {
  const u64 count = bytes.size() / kSectorBytes;
  if (first > sectors() || count > sectors() - first) return false;
  for (u64 i = 0; i < count; ++i) {
    u8* out = bytes.data() + i * kSectorBytes;
    if (auto it = overlay_sectors_.find(first + i); it != overlay_sectors_.end())
      std::memcpy(out, it->second.data(), kSectorBytes);
    else if (!read_base((first + i) * kSectorBytes, out, kSectorBytes))
      return false;
  }
  sectors_read_ += count;
  return true;
}

void DiskImage::remember_original(u64 sector) {
  if (originals_.count(sector)) return;
  std::vector<u8> original(kSectorBytes);
  if (auto it = overlay_sectors_.find(sector); it != overlay_sectors_.end())
    original = it->second;
  else
    read_base(sector * kSectorBytes, original.data(), kSectorBytes);
  originals_.emplace(sector, std::move(original));
}

bool DiskImage::write_sector(u64 sector, const u8* bytes) {
  if (overlay_) {
    overlay_sectors_[sector].assign(bytes, bytes + kSectorBytes);
    return true;
  }
  return full_pwrite(fd_, bytes, kSectorBytes, sector * kSectorBytes);
}

bool DiskImage::write(u64 first, std::span<const u8> bytes) {
  const u64 count = bytes.size() / kSectorBytes;
  if (read_only_ || first > sectors() || count > sectors() - first) return false;
  for (u64 i = 0; i < count; ++i) {
    remember_original(first + i);
    if (!write_sector(first + i, bytes.data() + i * kSectorBytes)) return false;
  }
  sectors_written_ += count;
  return true;
}

bool DiskImage::flush() { return overlay_ || read_only_ || ::fsync(fd_) == 0; }

void DiskImage::transfer_state(StateArchive& a) {
  u64 size = size_;
  a.local(size, "disk size");
  if (!a.saving() && size != size_) throw StateArchiveError(option_ + " '" + path_ + "': another size than the snapshot's disk");
  // The sectors changed since open, then a hash of every other sector's content as it
  // was at open (the undo store substitutes the originals of sectors changed since): the
  // part of the disk the snapshot does not hold, which must be the same when it loads.
  std::vector<u64> changed;
  for (const auto& [s, original] : originals_) changed.push_back(s);
  a.local_sequence(changed, "disk changed sectors", sectors());
  std::set<u64> in_snapshot(changed.begin(), changed.end());
  u64 hash = kFnvBasis;
  std::vector<u8> sector(kSectorBytes);
  for (u64 s = 0; s < sectors(); ++s) {
    if (in_snapshot.count(s)) continue;
    const u8* bytes = sector.data();
    if (auto it = originals_.find(s); it != originals_.end())
      bytes = it->second.data();
    else if (auto ov = overlay_sectors_.find(s); ov != overlay_sectors_.end())
      bytes = ov->second.data();
    else if (!read_base(s * kSectorBytes, sector.data(), kSectorBytes))
      throw StateArchiveError(option_ + " '" + path_ + "': cannot read sector " + std::to_string(s));
    hash = fnv1a(hash, bytes, kSectorBytes);
  }
  u64 saved_hash = hash;
  a.local(saved_hash, "disk base hash");
  if (!a.saving() && saved_hash != hash)
    throw StateArchiveError(option_ + " '" + path_ + "': the image's content differs from the snapshot's base image " +
                            "(sectors the snapshot does not hold were changed after it was saved)");
  std::map<u64, std::vector<u8>> contents;
  for (u64 s : changed) {
    std::vector<u8> bytes(kSectorBytes);
    if (a.saving() && !read(s, bytes)) throw StateArchiveError(option_ + " '" + path_ + "': cannot read sector " + std::to_string(s));
    a.raw(bytes.data(), kSectorBytes, "disk sector");
    contents.emplace(s, std::move(bytes));
  }
  if (!a.loading()) return;
  // Put back the originals of sectors changed since, then the snapshot's content.
  std::vector<u64> now_changed;
  for (const auto& [s, original] : originals_) now_changed.push_back(s);
  for (u64 s : now_changed)
    if (!contents.count(s)) write_sector(s, originals_[s].data());
  for (const auto& [s, bytes] : contents) {
    remember_original(s);
    write_sector(s, bytes.data());
  }
}

}  // namespace x86lab
