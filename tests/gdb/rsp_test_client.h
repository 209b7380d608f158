// Helpers of the stub's in-process tests: a real-mode machine state, and a minimal gdb
// remote protocol client (a loopback TCP connection, framed packets out, and a reader
// that waits, bounded, for a reply).
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "platform/machine.h"
#include "ui/gdb/rsp.h"

namespace x86lab::gdb {

// Real mode with every data segment at 0 and CS = 1000h (base 10000h), EIP = `eip`.
inline void enter_real_mode_at_10000h(Machine& machine, u32 eip) {
  CpuState& s = machine.cpu.state;
  for (auto& segment : s.segments) {
    segment.selector = 0;
    segment.cache.set_real_mode(0);
  }
  s.segments[CS].selector = 0x1000;
  s.segments[CS].cache.set_real_mode(0x10000);
  s.eip = eip;
}

class RspTestClient {
 public:
  explicit RspTestClient(u16 port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~RspTestClient() { close(fd_); }
  RspTestClient(const RspTestClient&) = delete;
  RspTestClient& operator=(const RspTestClient&) = delete;

  bool connected() const { return connected_; }
  void send_raw(const std::string& bytes) { ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }
  void send_packet(const std::string& payload) { send_raw(frame(payload)); }
  // Waits until `needle` arrives after what earlier calls consumed (at most 1000 rounds
  // of `between` and a 10 ms wait); returns what arrived up to and including it, or ""
  // when it did not come.
  std::string expect(const std::string& needle, const std::function<void()>& between = {}) {
    for (int i = 0; i < 1000 && received_.find(needle, cursor_) == std::string::npos; ++i) {
      if (between) between();
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 10) <= 0) continue;
      char buffer[4096];
      const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      received_.append(buffer, static_cast<std::size_t>(n));
    }
    const auto at = received_.find(needle, cursor_);
    if (at == std::string::npos) return "";
    std::string text = received_.substr(cursor_, at + needle.size() - cursor_);
    cursor_ = at + needle.size();
    return text;
  }

 private:
  int fd_;
  bool connected_ = false;
  std::string received_;
  std::size_t cursor_ = 0;
};

}  // namespace x86lab::gdb
