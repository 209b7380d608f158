// The gdb remote stub's transport and serving logic: a TCP listener (Boost.Asio) on its
// own network thread, one gdb connection at a time (another waits until it ends), and
// the packets handed to the thread that owns the machine, which answers them through
// GdbProtocol and starts, steps and stops the machine through a GdbTarget. Two owners
// share that logic: `x86lab run --gdb` (serve(): the machine runs on the calling
// thread) and `x86lab gui --gdb` (poll() once per frame, gdb_inspector.h). Ctrl-C and a
// new connection call Debugger::pause(), so a running machine stops within
// Debugger::kSliceSteps steps; a new connection stops the machine, detach or a lost
// connection hands it back to its owner.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
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
  std::function<void()> notify;     // called on the network thread after each item it queues (may be empty)
};

// Parses "--gdb" text: "PORT" or "HOST:PORT" (HOST an IPv4/IPv6 address or
// "localhost"). Throws InputError with one line naming the option.
ServerOptions parse_gdb_address(const std::string& text);

// The owner of the machine as the stub drives it. Every call comes from the machine's
// thread (the one that calls GdbServer::poll or serve).
class GdbTarget {
 public:
  virtual ~GdbTarget() = default;
  virtual void run() = 0;             // let the machine run (gdb's continue)
  virtual void halt() = 0;            // stop it where it is (Ctrl-C, a new connection); no-op when stopped
  virtual void step() = 0;            // execute one instruction now (Debugger::step_into)
  virtual void release() = 0;         // gdb left (detach, lost connection): the owner decides what runs
  virtual bool running() const = 0;   // the machine is running, or a step of the owner's is under way
  virtual StopInfo last_stop() const = 0;  // why it last stopped: what a waiting gdb is told
};

class GdbServer {
 public:
  // Binds and listens; throws InputError (one line naming the address) when it cannot.
  GdbServer(Debugger& debugger, const ServerOptions& options);
  ~GdbServer();
  GdbServer(const GdbServer&) = delete;
  GdbServer& operator=(const GdbServer&) = delete;

  u16 port() const { return port_; }
  bool wait_for_gdb() const { return options_.wait_for_gdb; }
  // Runs the machine under gdb's control on the calling thread until the machine's run
  // ends, gdb kills it (then RunResult::Reason::Stopped, status 1 and killed() true) or
  // SIGINT/SIGTERM interrupts it, also while it waits for gdb (Reason::Interrupted).
  // Every packet that arrives pauses the machine so that it is answered at once.
  RunResult serve();
  // Handles everything gdb sent so far, on the machine's thread: answers packets, and
  // runs, steps or halts `target`; when gdb waits for a stop and `target` no longer
  // runs, sends the stop reply for target.last_stop(). With `wait`, first blocks until
  // something arrives. Only Ctrl-C and a new connection pause the debugger here, so
  // the caller must poll regularly (the inspector: once per frame) and never while
  // another thread runs the machine.
  void poll(GdbTarget& target, bool wait = false);
  bool attached() const { return attached_; }
  // A gdb session has come and gone (--wait-gdb: the inspector's script runs after it).
  bool session_ended() const { return session_ended_; }
  bool killed() const { return killed_; }

 private:
  struct Item {
    enum class Kind : u8 { Connected, Packet, BadChecksum, Oversized, Interrupt, Disconnected } kind;
    std::string payload;
    u64 session = 0;
  };
  class Network;

  // The next item; with `wait` blocks until there is one or a signal interrupted the
  // machine (Machine::interrupted_by), which it notices within kSignalCheck.
  std::optional<Item> take_item(bool wait);
  static constexpr std::chrono::milliseconds kSignalCheck{20};
  void handle(const Item& item, GdbTarget& target);
  void report_stop(GdbTarget& target);    // the stop reply when gdb waits and the target stopped
  void leave(GdbTarget& target);          // detach or disconnect
  void send(std::string_view payload);    // one framed packet to the current session
  void send_raw(std::string text);
  void flush();                           // waits (briefly) until sent data left the stub

  Debugger& debugger_;
  GdbProtocol protocol_;
  ServerOptions options_;
  u16 port_ = 0;
  bool killed_ = false;
  bool attached_ = false;
  bool waiting_ = false;        // gdb resumed the machine and waits for a stop reply
  bool session_ended_ = false;
  u64 session_ = 0;  // the session the machine thread talks to
  std::unique_ptr<Network> network_;
};

}  // namespace x86lab::gdb
