// The gdb remote stub's transport: a TCP listener (Boost.Asio) on its own network
// thread, one gdb connection at a time (another waits until it ends), packets handed
// to the thread that runs the machine, Ctrl-C turned into Debugger::pause(). A new
// connection while the machine runs pauses it; detach or disconnect lets it run on.
// GdbServer takes the Debugger, so `x86lab run --gdb` and the GUI can both serve it.
#pragma once
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "platform/debugger/debugger.h"
#include "ui/gdb/gdb_protocol.h"

namespace x86lab::gdb {

struct ServerOptions {
  std::string host = "127.0.0.1";  // the address to listen on (loopback unless given)
  u16 port = 1234;                  // 0: any free port (port() tells which)
  bool wait_for_gdb = false;        // stay paused until gdb connects and resumes
};

// Parses "--gdb" text: "PORT" or "HOST:PORT" (HOST an IPv4/IPv6 address or
// "localhost"). Throws InputError with one line naming the option.
ServerOptions parse_gdb_address(const std::string& text);

class GdbServer {
 public:
  // Binds and listens; throws InputError (one line naming the address) when it cannot.
  GdbServer(Debugger& debugger, const ServerOptions& options);
  ~GdbServer();
  GdbServer(const GdbServer&) = delete;
  GdbServer& operator=(const GdbServer&) = delete;

  u16 port() const { return port_; }
  // Runs the machine under gdb's control on the calling thread until the machine's run
  // ends or gdb kills it (then RunResult::Reason::Stopped, status 1 and killed() true).
  RunResult serve();
  bool killed() const { return killed_; }

 private:
  struct Item {
    enum class Kind : u8 { Connected, Packet, BadChecksum, Oversized, Interrupt, Disconnected } kind;
    std::string payload;
    u64 session = 0;
  };
  class Network;

  Item next_item();                       // blocks until the network thread delivers one
  bool inbox_empty();
  void send(std::string_view payload);    // one framed packet to the current session
  void send_raw(std::string text);
  void flush();                           // waits (briefly) until sent data left the stub
  // Answers one packet while stopped; returns the resumption it asks for.
  Resume serve_packet(const std::string& payload);
  std::optional<RunResult> resume(Resume how);

  Debugger& debugger_;
  GdbProtocol protocol_;
  ServerOptions options_;
  u16 port_ = 0;
  bool killed_ = false;
  bool attached_ = false;
  u64 session_ = 0;  // the session the machine thread talks to
  std::unique_ptr<Network> network_;
};

}  // namespace x86lab::gdb
