// A hostile gdb remote protocol client for tests/gdb/malformed_packets.sh: bad
// checksums, oversized packets, garbage, broken commands, early disconnects, a second
// connection that must wait, Ctrl-C storms while the machine runs, then a kill. Every wait has a
// time bound; prints one line per check and exits 1 at the first failure.
// usage: rsp_abuse_client PORT
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

int port = 0;

[[noreturn]] void fail(const std::string& what) {
  std::printf("FAIL: %s\n", what.c_str());
  std::exit(1);
}

void pass(const std::string& what) { std::printf("ok: %s\n", what.c_str()); }

int connect_stub() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<unsigned short>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) fail("connect");
  return fd;
}

void send_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) fail("send");
    sent += static_cast<std::size_t>(n);
  }
}

std::string packet(const std::string& payload) {
  unsigned sum = 0;
  for (const char c : payload) sum += static_cast<unsigned char>(c);
  char tail[4];
  std::snprintf(tail, sizeof tail, "#%02x", sum & 0xFF);
  return std::string("$") + payload + tail;
}

// Reads what arrives within `ms` milliseconds of silence (at most 1 MiB); "" on EOF
// with nothing read. `eof` tells whether the peer closed.
std::string drain(int fd, int ms, bool* eof = nullptr) {
  std::string data;
  if (eof) *eof = false;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0) return data;
    char buffer[65536];
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      if (eof) *eof = true;
      return data;
    }
    data.append(buffer, static_cast<std::size_t>(n));
    if (data.size() > (1u << 20)) return data;
  }
}

// Waits (at most 10 s) until `needle` has arrived; returns everything read.
std::string expect(int fd, const std::string& needle, const std::string& what) {
  std::string data;
  for (int i = 0; i < 100 && data.find(needle) == std::string::npos; ++i) {
    bool eof = false;
    data += drain(fd, 100, &eof);
    if (eof) break;
  }
  if (data.find(needle) == std::string::npos) fail(what + std::string(": expected '") + needle + std::string("', got '") + data.substr(0, 200) + "'");
  pass(what);
  return data;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: rsp_abuse_client PORT\n");
    return 2;
  }
  port = std::atoi(argv[1]);

  int a = connect_stub();
  send_all(a, "$g#00");
  expect(a, "-", "a bad checksum is answered with '-'");
  send_all(a, std::string("$") + std::string(20000, 'a') + "#00");
  expect(a, packet("E01"), "an oversized packet is answered with an error");
  // 64 KiB of deterministic garbage without '$' (03h, '#', '}', '+', '-' included),
  // then a packet start that never ends, then a good packet.
  std::string garbage;
  unsigned state = 12345;
  for (int i = 0; i < 65536; ++i) {
    state = state * 1103515245u + 12345u;
    char c = static_cast<char>(state >> 16);
    garbage += c == '$' ? '#' : c;
  }
  send_all(a, garbage + "$qSupported:xmlRegisters=i3");
  send_all(a, packet("?"));
  expect(a, "$T05", "after garbage and a broken packet the stub answers '?'");
  const char* broken[] = {"m", "mzz,4", "m0", "M0,1:zz", "M0,2:00", "P=", "P99=00", "p", "pfffff", "G0",
                          "Z9,0,0", "Z2,0,0", "Z0", "z2,100000", "vCont;x", "vCont;", "X0,4:ab", "qRcmd,zz",
                          "qXfer:features:read:target.xml:ffffffff,ffff", "qXfer:features:read:other.xml:0,10",
                          "c zz", "s1000000000000000000", "\x01\x02\xff", ""};
  for (const char* payload : broken) {
    send_all(a, packet(payload));
    drain(a, 20);
  }
  send_all(a, packet("qRcmd,70687973207a7a2031"));  // "phys zz 1"
  drain(a, 50);
  send_all(a, packet("mffffffff,4000"));
  expect(a, "#", "a read across the end of the address space is answered");
  send_all(a, packet("?"));
  expect(a, "$T05", "the stub still answers after malformed commands");
  // Early disconnect in the middle of a packet.
  send_all(a, "$qSupported:multiprocess+;swbre");
  close(a);
  int b = connect_stub();
  send_all(b, packet("?"));
  expect(b, "$T05", "a reconnect after an early disconnect is served");
  // A second connection waits while one is attached.
  const int waiting = connect_stub();
  send_all(waiting, packet("?"));
  if (!drain(waiting, 500).empty()) fail("a second connection was served while the first was attached");
  pass("a second connection waits");
  // Ctrl-C storms while the machine runs: one stop reply each.
  for (int round = 0; round < 2; ++round) {
    send_all(b, packet("c"));
    expect(b, "+", "continue is acknowledged");
    send_all(b, std::string(1000, '\x03'));
    const std::string reply = expect(b, packet("T02"), "a Ctrl-C storm stops the machine once");
    const std::string more = reply + drain(b, 300);
    if (more.find("$T02", more.find("$T02") + 1) != std::string::npos) fail("more than one stop reply for one storm");
  }
  // Disconnect while running: the waiting connection is served and stops the machine.
  send_all(b, packet("c"));
  expect(b, "+", "continue before a disconnect is acknowledged");
  close(b);
  const int c = waiting;
  expect(c, "$T05", "the waiting connection is served when the first ends, and stops the machine");
  send_all(c, packet("k"));
  expect(c, "+", "kill is acknowledged");
  bool eof = false;
  drain(c, 2000, &eof);
  if (!eof) fail("the stub did not close the connection after kill");
  pass("kill ends the session");
  close(c);
  return 0;
}
