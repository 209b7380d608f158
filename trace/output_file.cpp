// Output files that are emptied only when the run starts and checked when closed.
#include "trace/output_file.h"

#include <fcntl.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace x86lab {

namespace {
// The stream's functions over the file descriptor (glibc fopencookie): a write error's
// errno is kept in the OutputFile, so that finish() can name it.
struct Cookie {
  int fd;
  int* error;
};

ssize_t cookie_write(void* cookie, const char* data, std::size_t size) {
  const Cookie& c = *static_cast<Cookie*>(cookie);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(c.fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (!*c.error) *c.error = n < 0 ? errno : ENOSPC;
      return done ? static_cast<ssize_t>(done) : -1;
    }
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

int cookie_seek(void* cookie, off64_t* offset, int whence) {
  const off64_t result = lseek64(static_cast<Cookie*>(cookie)->fd, *offset, whence);
  if (result < 0) return -1;
  *offset = result;
  return 0;
}

int cookie_close(void* cookie) {
  const Cookie* c = static_cast<Cookie*>(cookie);
  const int result = ::close(c->fd);
  if (result != 0 && !*c->error) *c->error = errno;
  delete c;
  return result;
}
// The descriptor N that /dev/stdout (1), /dev/stderr (2), /dev/fd/N or /proc/self/fd/N
// names, or -1.
int inherited_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string_view p(prefix);
    if (!path.starts_with(p) || path.size() == p.size() || path.size() > p.size() + 9) continue;
    const std::string digits = path.substr(p.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    return std::stoi(digits);
  }
  return -1;
}
}  // namespace

OutputFile::OutputFile(std::string path, std::string role) : path_(std::move(path)), role_(std::move(role)) {
  auto fail = [&](int error) {
    std::string reason = std::strerror(error);
    if (error == ENXIO) reason += " (a FIFO with no reader)";
    throw OutputError("cannot open " + role_ + " '" + path_ + "': " + reason);
  };
  // /dev/stdout, /dev/stderr, /dev/fd/N, /proc/...: an existing stream, often a file the
  // shell opened (maybe for appending): written as it is, never emptied or removed.
  const bool stream = path_.starts_with("/dev/") || path_.starts_with("/proc/");
  int fd = -1;
  if (const int inherited = inherited_descriptor(path_); inherited >= 0) {
    // This process's own descriptor: share it (its offset and O_APPEND) rather than
    // open the file again at offset 0.
    fd = fcntl(inherited, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) fail(errno);
  } else if (!stream) {
    fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  }
  if (fd >= 0) {
    created_ = !stream;
  } else if (stream || errno == EEXIST) {
    // O_NONBLOCK: a FIFO with no reader fails (ENXIO) instead of blocking the run.
    fd = open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT && !stream) {
      // A symbolic link to a file that does not exist yet: create the file it names.
      fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
      created_ = fd >= 0;
    }
    if (fd < 0) fail(errno);
    const int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  } else {
    fail(errno);
  }
  struct stat status;
  if (!stream && fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
    // The file itself, not a symbolic link to it, is what a failed run removes.
    if (char* resolved = realpath(path_.c_str(), nullptr)) {
      removal_path_ = resolved;
      std::free(resolved);
    } else {
      removal_path_ = path_;
    }
  }
  fd_ = fd;
  Cookie* cookie = new Cookie{fd, &write_error_};
  file_ = fopencookie(cookie, "wb", {nullptr, cookie_write, cookie_seek, cookie_close});
  if (!file_) {
    const int error = errno;
    delete cookie;
    close(fd);
    if (created_ && regular()) unlink(removal_path_.c_str());
    fail(error);
  }
}

OutputFile::~OutputFile() {
  if (!file_) return;
  if (!started_) __fpurge(file_);  // nothing of a run that never started reaches the file
  std::fclose(file_);
  if (!started_ && created_ && regular()) unlink(removal_path_.c_str());
}

void OutputFile::start() {
  if (started_ || !file_) return;
  started_ = true;
  if (regular() && ftruncate(fd_, 0) != 0) {
    const int error = errno;
    std::fclose(file_);
    file_ = nullptr;
    throw OutputError("cannot write " + role_ + " '" + path_ + "': " + std::strerror(error));
  }
}

void OutputFile::finish() {
  if (!file_) return;
  // ferror: a write that failed earlier (write_error_ holds its reason).
  bool failed = std::fflush(file_) != 0 || std::ferror(file_);
  // Never started: what was written replaces the old contents, which end there.
  if (!failed && !started_ && regular() && ftruncate(fd_, ftello(file_)) != 0) {
    failed = true;
    if (!write_error_) write_error_ = errno;
  }
  started_ = true;
  failed = std::fclose(file_) != 0 || failed;
  file_ = nullptr;
  if (!failed && !write_error_) return;
  if (regular()) unlink(removal_path_.c_str());
  throw OutputError("cannot write " + role_ + " '" + path_ + "': " +
                    (write_error_ ? std::strerror(write_error_) : "write error"));
}

void write_whole_file(const std::string& path, std::string_view bytes, const std::string& role) {
  OutputFile output(path, role);
  output.start();
  std::fwrite(bytes.data(), 1, bytes.size(), output.stream());
  output.finish();
}

}  // namespace x86lab
