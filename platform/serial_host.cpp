// Host stream I/O for the serial console (POSIX poll/read, termios raw mode).
#include "platform/serial_host.h"

#include "platform/input_error.h"

#include <poll.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

namespace x86lab {

struct StreamSerialHost::SavedTerminal {
  termios attributes;
};

const char* const StreamSerialHost::kKeysHelp =
    "\nx86lab serial console keys:\n"
    "  Ctrl-A x        stop x86lab\n"
    "  Ctrl-A c        the monitor: info segments|gdt|ldt|idt|tss, stats, phys ADDR LEN\n"
    "                  (help lists them; Enter on an empty line resumes the guest)\n"
    "  Ctrl-A s        save a snapshot of the machine to x86lab-STEPS.snap (docs/snapshots.md)\n"
    "  Ctrl-A h        this help\n"
    "  Ctrl-A Ctrl-A   send Ctrl-A to the guest\n";

StreamSerialHost::StreamSerialHost(std::FILE* output, int input_fd, std::function<void()> quit,
                                   std::function<void()> monitor)
    : output_(output), input_fd_(input_fd), quit_(std::move(quit)), monitor_(std::move(monitor)) {
  struct stat status;
  regular_file_ = input_fd_ >= 0 && fstat(input_fd_, &status) == 0 && S_ISREG(status.st_mode);
  // Every byte reaches the terminal or file at once: a guest's prompt ("# ", no newline)
  // must be visible to whoever watches the file (tests/images/boot_image.sh, bench/
  // bios_boot.sh), as QEMU's -serial file: makes it. A Linux boot prints about 60 KB.
  if (output_) flush_each_byte_ = true;
}

StreamSerialHost::~StreamSerialHost() {
  if (output_) std::fflush(output_);
  if (saved_) {
    tcsetattr(terminal_fd_, TCSANOW, &saved_->attributes);
    delete saved_;
  }
}

void StreamSerialHost::make_terminal_raw() {
  if (input_fd_ < 0 || !isatty(input_fd_)) return;
  termios attributes;
  if (tcgetattr(input_fd_, &attributes) != 0) return;
  saved_ = new SavedTerminal{attributes};
  terminal_fd_ = input_fd_;
  cfmakeraw(&attributes);
  attributes.c_oflag |= OPOST | ONLCR;  // keep "\n" -> "\r\n" for the host's other output
  tcsetattr(input_fd_, TCSANOW, &attributes);
  raw_ = true;
  if (!output_ || !isatty(fileno(output_))) console_fd_ = terminal_fd_;
}

void StreamSerialHost::transmit(u8 byte) {
  if (!prompt_.empty() && !prompt_seen_) {
    output_tail_.push_back(static_cast<char>(byte));
    if (output_tail_.size() > prompt_.size()) output_tail_.erase(0, output_tail_.size() - prompt_.size());
    if (output_tail_ == prompt_) {
      prompt_seen_ = true;
      output_tail_.clear();
    }
  }
  if (!output_) return;
  if (on_output_) on_output_(byte);
  std::fputc(byte, output_);
  if (flush_each_byte_ || byte == '\n') std::fflush(output_);
}

void StreamSerialHost::print_to_console(const std::string& text) {
  if (console_fd_ >= 0) {
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = write(console_fd_, text.data() + done, text.size() - done);
      if (n <= 0) return;  // (a terminal gone: nobody to read it)
      done += static_cast<std::size_t>(n);
    }
    return;
  }
  if (!output_) return;
  std::fputs(text.c_str(), output_);
  std::fflush(output_);
}

std::optional<u8> StreamSerialHost::read_console_byte() {
  while (monitor_input_.empty()) {
    if (input_fd_ < 0) return std::nullopt;
    pollfd descriptor{input_fd_, POLLIN, 0};
    if (poll(&descriptor, 1, -1) < 0) return std::nullopt;  // EINTR: a signal, which ends the monitor
    u8 chunk[256];
    const ssize_t n = read(input_fd_, chunk, sizeof chunk);
    if (n <= 0) {
      input_fd_ = -1;
      return std::nullopt;
    }
    read_bytes_ += static_cast<u64>(n);
    monitor_input_.insert(monitor_input_.end(), chunk, chunk + n);
  }
  const u8 byte = monitor_input_.front();
  monitor_input_.erase(monitor_input_.begin());
  return byte;
}

void StreamSerialHost::monitor_done() {
  monitor_wanted_ = false;
  const std::vector<u8> rest = std::move(monitor_input_);
  monitor_input_.clear();
  take_input(rest.data(), rest.size());
}

void StreamSerialHost::service_keys() {
  if (raw_) fill();
}

void StreamSerialHost::fill() {
  if (input_fd_ < 0) return;
  if (!regular_file_) {
    // A terminal, pipe or FIFO: poll() at most once per kPollInterval of wall time
    // while it has nothing, since a guest polling the UART's line status would
    // otherwise make a system call per read. (A regular file is always readable.)
    const auto now = std::chrono::steady_clock::now();
    if (now - last_empty_poll_ < kPollInterval) return;
    pollfd descriptor{input_fd_, POLLIN, 0};
    if (poll(&descriptor, 1, 0) <= 0) {
      last_empty_poll_ = now;
      return;
    }
  }
  u8 chunk[256];
  const ssize_t n = read(input_fd_, chunk, sizeof chunk);
  if (n <= 0) {
    input_fd_ = -1;  // end of input (or an error): stop polling
    return;
  }
  read_bytes_ += static_cast<u64>(n);
  take_input(chunk, static_cast<std::size_t>(n));
}

void StreamSerialHost::take_input(const u8* bytes, std::size_t count) {
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(next_));
  next_ = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const u8 byte = bytes[i];
    if (!raw_) {
      buffer_.push_back(byte);
    } else if (monitor_wanted_) {
      monitor_input_.push_back(byte);  // typed for the monitor (Ctrl-A c came first)
    } else if (escape_) {
      escape_ = false;
      if (byte == 'x' || byte == 'X') {
        if (quit_) quit_();
      } else if ((byte == 'c' || byte == 'C') && monitor_) {
        monitor_wanted_ = true;
        monitor_();
      } else if ((byte == 's' || byte == 'S') && snapshot_) {
        snapshot_();
      } else if (byte == 'h' || byte == 'H' || byte == '?') {
        print_to_console(kKeysHelp);
      } else if (byte == 0x01) {
        buffer_.push_back(byte);
      }
    } else if (byte == 0x01) {
      escape_ = true;
    } else {
      buffer_.push_back(byte);
    }
  }
}

std::optional<u8> StreamSerialHost::receive() {
  if (next_ >= buffer_.size()) fill();
  if (!prompt_seen_ || next_ >= buffer_.size()) return std::nullopt;  // a line waits for the prompt
  const u8 byte = buffer_[next_++];
  if (byte == '\n' && !prompt_.empty()) prompt_seen_ = false;  // the next line waits again
  return byte;
}

// The bytes read and the end of the input are kept for a regular file only, which a
// later run given the same file goes on reading (resume_input seeks); a terminal, pipe
// or FIFO cannot be read again, so after one (a snapshot saved at an interactive shell)
// the next run's input starts at its first byte, even a file's (issue 39: it skipped as
// many bytes as the terminal had given).
SerialHost::InputPosition StreamSerialHost::input_position() const {
  return {std::vector<u8>(buffer_.begin() + static_cast<std::ptrdiff_t>(next_), buffer_.end()),
          regular_file_ ? read_bytes_ : 0, regular_file_ && input_fd_ < 0};
}

void StreamSerialHost::resume_input(const InputPosition& position) {
  buffer_ = position.pending;
  next_ = 0;
  if (input_fd_ < 0) return;
  if (position.ended) {
    input_fd_ = -1;  // the saving run's input had ended: so has this one's
  } else if (regular_file_ && position.read) {
    if (lseek(input_fd_, static_cast<off_t>(position.read), SEEK_SET) < 0)
      throw InputError("the serial input cannot go on at byte " + std::to_string(position.read) + " of the snapshot");
    read_bytes_ = position.read;
  }
}

}  // namespace x86lab
