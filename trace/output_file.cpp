// Output files that are emptied only when the run starts and checked when closed.
#include "trace/output_file.h"

#include <fcntl.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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
}  // namespace

OutputFile::OutputFile(std::string path, std::string role) : path_(std::move(path)), role_(std::move(role)) {
  auto fail = [&](int error) {
    throw OutputError("cannot open " + role_ + " '" + path_ + "': " + std::strerror(error));
  };
  int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd >= 0) {
    created_ = true;
  } else if (errno == EEXIST) {
    // O_NONBLOCK: a FIFO with no reader fails (ENXIO) instead of blocking the run.
    fd = open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) fail(errno);
    const int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  } else {
    fail(errno);
  }
  struct stat status;
  regular_ = fstat(fd, &status) == 0 && S_ISREG(status.st_mode);
  fd_ = fd;
  Cookie* cookie = new Cookie{fd, &write_error_};
  file_ = fopencookie(cookie, "wb", {nullptr, cookie_write, cookie_seek, cookie_close});
  if (!file_) {
    const int error = errno;
    delete cookie;
    close(fd);
    if (created_) unlink(path_.c_str());
    fail(error);
  }
}

OutputFile::~OutputFile() {
  if (!file_) return;
  if (!started_) __fpurge(file_);  // nothing of a run that never started reaches the file
  std::fclose(file_);
  if (!started_ && created_ && regular_) unlink(path_.c_str());
}

void OutputFile::start() {
  if (started_ || !file_) return;
  started_ = true;
  if (regular_ && ftruncate(fd_, 0) != 0) {
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
  if (!failed && !started_ && regular_ && ftruncate(fd_, ftello(file_)) != 0) {
    failed = true;
    if (!write_error_) write_error_ = errno;
  }
  started_ = true;
  failed = std::fclose(file_) != 0 || failed;
  file_ = nullptr;
  if (!failed && !write_error_) return;
  if (regular_) unlink(path_.c_str());
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
