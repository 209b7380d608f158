// Reading user-named input files: the type and size checks come first, on the opened
// descriptor (O_NONBLOCK, so opening a FIFO without a writer does not wait).
#include "trace/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace x86lab {
namespace {

std::string named(const std::string& what, const std::string& path) { return what + " '" + path + "'"; }

// Opens `path` and checks it; on success returns "" with `fd` open and `size` set.
std::string open_checked(const std::string& path, const std::string& what, const InputFileLimit& limit, int& fd,
                         u64& size) {
  fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "cannot open " + named(what, path) + ": " + std::strerror(errno);
  struct stat status;
  std::string problem;
  if (fstat(fd, &status) != 0)
    problem = "cannot read " + named(what, path) + ": " + std::strerror(errno);
  else if (S_ISDIR(status.st_mode))
    problem = named(what, path) + " is a directory";
  else if (!S_ISREG(status.st_mode))
    problem = named(what, path) + " is not a regular file (a FIFO, socket or device)";
  else if (static_cast<u64>(status.st_size) > limit.max_bytes)
    problem = named(what, path) + " is " + std::to_string(status.st_size) + " bytes; " + limit.note;
  if (!problem.empty()) {
    close(fd);
    fd = -1;
    return problem;
  }
  size = static_cast<u64>(status.st_size);
  return {};
}

}  // namespace

std::string check_input_file(const std::string& path, const std::string& what) {
  int fd;
  u64 size = 0;
  std::string problem = open_checked(path, what, kAnyInputSize, fd, size);
  if (problem.empty()) close(fd);
  return problem;
}

namespace {

template <class Buffer>
std::string read_whole(const std::string& path, const std::string& what, const InputFileLimit& limit, Buffer& bytes) {
  int fd;
  u64 size = 0;
  if (std::string problem = open_checked(path, what, limit, fd, size); !problem.empty()) return problem;
  std::string problem;
  if (size == 0) {
    // A regular file that says it is empty may be a generated one (/proc/cpuinfo):
    // read it to its end, within the limit.
    char chunk[4096];
    for (;;) {
      const ssize_t n = read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) problem = "cannot read " + named(what, path) + ": " + std::strerror(errno);
      if (n <= 0) break;
      if (bytes.size() + static_cast<std::size_t>(n) > limit.max_bytes) {
        problem = named(what, path) + " is more than " + std::to_string(limit.max_bytes) + " bytes; " + limit.note;
        break;
      }
      bytes.insert(bytes.end(), chunk, chunk + n);
    }
    close(fd);
    if (!problem.empty()) bytes.clear();
    return problem;
  }
  bytes.resize(static_cast<std::size_t>(size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // an error, or the file shrank while it was read
      problem = "cannot read " + named(what, path) + ": " +
                (n < 0 ? std::strerror(errno) : "the file shrank while it was read");
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  close(fd);
  if (!problem.empty()) bytes.clear();
  return problem;
}

}  // namespace

std::string read_input_file(const std::string& path, const std::string& what, const InputFileLimit& limit,
                            std::vector<u8>& bytes) {
  return read_whole(path, what, limit, bytes);
}

std::string read_input_file(const std::string& path, const std::string& what, const InputFileLimit& limit,
                            std::string& text) {
  return read_whole(path, what, limit, text);
}

}  // namespace x86lab
