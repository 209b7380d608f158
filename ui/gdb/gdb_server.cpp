// The gdb stub's TCP transport and its serve loop (gdb_server.h).
#include "ui/gdb/gdb_server.h"

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <chrono>

#include "platform/input_error.h"
#include "ui/gdb/rsp.h"

namespace x86lab::gdb {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

ServerOptions parse_gdb_address(const std::string& text) {
  ServerOptions options;
  std::string port_text = text;
  const auto colon = text.rfind(':');
  if (colon != std::string::npos) {
    options.host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (options.host.size() >= 2 && options.host.front() == '[' && options.host.back() == ']')
      options.host = options.host.substr(1, options.host.size() - 2);
    if (options.host.empty()) throw InputError("--gdb needs [HOST:]PORT, not '" + text + "'");
  }
  if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(port_text) > 65535)
    throw InputError("--gdb needs [HOST:]PORT with a port from 0 to 65535, not '" + text + "'");
  options.port = static_cast<u16>(std::stoul(port_text));
  return options;
}

// Everything on the network thread: the acceptor, the one session's socket, the packet
// decoder and the queue of data to write. Items for the machine thread go to the inbox.
class GdbServer::Network {
 public:
  Network(Debugger& debugger, const ServerOptions& options)
      : notify(options.notify), debugger_(debugger), acceptor_(io_) {
    boost::system::error_code error;
    const std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
    const auto address = asio::ip::make_address(host, error);
    const std::string where = options.host + ":" + std::to_string(options.port);
    if (error) throw InputError("--gdb: '" + options.host + "' is not an IP address (" + error.message() + ")");
    const tcp::endpoint endpoint(address, options.port);
    acceptor_.open(endpoint.protocol(), error);
    if (!error) acceptor_.set_option(tcp::acceptor::reuse_address(true), error);
    if (!error) acceptor_.bind(endpoint, error);
    if (!error) acceptor_.listen(4, error);
    if (error) throw InputError("cannot listen for gdb on " + where + ": " + error.message());
    port = acceptor_.local_endpoint().port();
    start_accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~Network() {
    io_.stop();
    thread_.join();
  }

  u16 port = 0;
  std::atomic<bool> pause_on_packets{false};  // serve(): every item pauses; poll(): Ctrl-C and connections only
  const std::function<void()> notify;         // after each queued item (ServerOptions::notify)
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Item> inbox;
  std::atomic<int> in_flight{0};  // writes posted and not yet completed or dropped

  void send(u64 session, std::string data) {
    ++in_flight;
    asio::post(io_, [this, session, data = std::move(data)]() mutable {
      if (session != session_ || !socket_) {
        --in_flight;
        return;
      }
      outgoing_.push_back(std::move(data));
      if (!writing_) write_next();
    });
  }

 private:
  // At most this many items wait for the machine thread; a client flooding packets
  // while the machine runs loses the excess (gdb never sends packets then).
  static constexpr std::size_t kInboxLimit = 1024;

  // Queues an item and, for Ctrl-C, a new connection and (under serve()) any item,
  // pauses the machine so that the machine thread looks at it. The pause is asked for
  // under the lock: the machine thread drops pauses only when it empties the inbox
  // (take_item), so an item is never left behind a running machine and a pause never
  // outlives its items.
  void push(Item item) {
    {
      std::lock_guard lock(mutex);
      const bool repeat = !inbox.empty() && item.kind == Item::Kind::Interrupt && inbox.back().kind == item.kind &&
                          inbox.back().session == item.session;
      const bool full = inbox.size() >= kInboxLimit && item.kind != Item::Kind::Disconnected;
      if (repeat || full) return;
      const bool pause = pause_on_packets || item.kind == Item::Kind::Interrupt || item.kind == Item::Kind::Connected;
      inbox.push_back(std::move(item));
      if (pause) debugger_.pause();
    }
    ready.notify_one();
    if (notify) notify();
  }

  // One connection at a time: the next accept is armed when the session ends, so a
  // second gdb waits in the listen backlog until then.
  void start_accept() {
    auto socket = std::make_shared<tcp::socket>(io_);
    acceptor_.async_accept(*socket, [this, socket](const boost::system::error_code& error) {
      if (error == asio::error::operation_aborted) return;
      if (error) return start_accept();
      boost::system::error_code ignored;
      socket->set_option(tcp::no_delay(true), ignored);
      socket_ = std::make_unique<tcp::socket>(std::move(*socket));
      ++session_;
      decoder_ = PacketDecoder{};
      push({Item::Kind::Connected, {}, session_});
      start_read();
    });
  }

  void start_read() {
    socket_->async_read_some(asio::buffer(buffer_), [this, session = session_](const boost::system::error_code& error,
                                                                              std::size_t size) {
      if (session != session_ || !socket_) return;
      if (error) return close_session();
      std::vector<Incoming> items;
      decoder_.feed(std::span(buffer_.data(), size), items);
      for (Incoming& incoming : items) {
        Item item{Item::Kind::Packet, std::move(incoming.payload), session_};
        switch (incoming.kind) {
          case Incoming::Kind::Packet: break;
          case Incoming::Kind::BadChecksum: item.kind = Item::Kind::BadChecksum; break;
          case Incoming::Kind::Oversized: item.kind = Item::Kind::Oversized; break;
          case Incoming::Kind::Interrupt: item.kind = Item::Kind::Interrupt; break;
        }
        push(std::move(item));
      }
      start_read();
    });
  }

  void write_next() {
    if (outgoing_.empty()) {
      writing_ = false;
      return;
    }
    writing_ = true;
    asio::async_write(*socket_, asio::buffer(outgoing_.front()),
                      [this, session = session_](const boost::system::error_code& error, std::size_t) {
                        if (session != session_ || !socket_) return;
                        outgoing_.pop_front();
                        --in_flight;
                        if (error) return close_session();
                        write_next();
                      });
  }

  void close_session() {
    boost::system::error_code ignored;
    socket_->close(ignored);
    socket_.reset();
    in_flight -= static_cast<int>(outgoing_.size());
    outgoing_.clear();
    writing_ = false;
    push({Item::Kind::Disconnected, {}, session_});
    start_accept();
  }

  Debugger& debugger_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::unique_ptr<tcp::socket> socket_;
  u64 session_ = 0;
  PacketDecoder decoder_;
  std::array<char, 4096> buffer_{};
  std::deque<std::string> outgoing_;
  bool writing_ = false;
  std::thread thread_;
};

GdbServer::GdbServer(Debugger& debugger, const ServerOptions& options)
    : debugger_(debugger), protocol_(debugger), options_(options),
      network_(std::make_unique<Network>(debugger, options)) {
  port_ = network_->port;
}

GdbServer::~GdbServer() = default;

std::optional<GdbServer::Item> GdbServer::take_item(bool wait) {
  std::unique_lock lock(network_->mutex);
  // A SIGINT or SIGTERM while the machine waits for gdb (--wait-gdb, or stopped at a
  // breakpoint) must end the wait, but a signal handler cannot notify a condition
  // variable (not async-signal-safe): the wait looks at the machine's signal every
  // kSignalCheck instead, and serve() then ends the run as Reason::Interrupted.
  if (wait)
    while (network_->inbox.empty() && !debugger_.machine().interrupted_by())
      network_->ready.wait_for(lock, kSignalCheck);
  if (network_->inbox.empty()) return std::nullopt;
  Item item = std::move(network_->inbox.front());
  network_->inbox.pop_front();
  if (network_->inbox.empty()) debugger_.clear_pause();  // every item's pause is answered
  return item;
}

void GdbServer::send_raw(std::string text) { network_->send(session_, std::move(text)); }

void GdbServer::send(std::string_view payload) { send_raw(frame(payload)); }

void GdbServer::flush() {
  // Bounded so that a client that stopped reading cannot hold the exit forever.
  for (int i = 0; i < 2000 && network_->in_flight > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void GdbServer::report_stop(GdbTarget& target) {
  if (!waiting_ || target.running()) return;
  waiting_ = false;
  for (const std::string& packet : protocol_.stop_packets(target.last_stop())) send(packet);
}

void GdbServer::leave(GdbTarget& target) {
  protocol_.forget_breakpoints();
  attached_ = false;
  waiting_ = false;
  session_ended_ = true;
  target.release();
}

void GdbServer::handle(const Item& item, GdbTarget& target) {
  if (item.kind != Item::Kind::Connected && (!attached_ || item.session != session_)) return;  // stale
  switch (item.kind) {
    case Item::Kind::Connected:
      session_ = item.session;
      attached_ = true;
      waiting_ = false;
      protocol_.reset_session();
      target.halt();
      break;
    case Item::Kind::Disconnected: leave(target); break;
    case Item::Kind::Interrupt: target.halt(); break;  // a stopped machine stays as it is
    case Item::Kind::BadChecksum:
      if (!protocol_.no_ack()) send_raw("-");
      break;
    case Item::Kind::Oversized:
      if (!protocol_.no_ack()) send_raw("+");
      send("E01");
      break;
    case Item::Kind::Packet: {
      if (!protocol_.no_ack()) send_raw("+");
      const Reply reply = protocol_.handle(item.payload);
      for (const std::string& packet : reply.packets) send(packet);
      switch (reply.resume) {
        case Resume::None: break;
        case Resume::Continue:
          waiting_ = true;
          target.run();
          break;
        case Resume::Step:
          waiting_ = true;
          target.step();
          break;
        case Resume::ReverseStep:
        case Resume::ReverseContinue:
          // Only while the machine is stopped (gdb sends them then): done here, on the
          // machine's thread, and reported by report_stop from the debugger's last stop.
          waiting_ = true;
          target.halt();
          if (reply.resume == Resume::ReverseStep) debugger_.reverse_step();
          else debugger_.reverse_continue();
          break;
        case Resume::Detach:
          flush();
          leave(target);
          break;
        case Resume::Kill:
          flush();
          killed_ = true;
          break;
      }
      break;
    }
  }
}

void GdbServer::poll(GdbTarget& target, bool wait) {
  report_stop(target);
  while (!killed_) {
    const std::optional<Item> item = take_item(wait);
    if (!item) break;
    wait = false;
    handle(*item, target);
    report_stop(target);
  }
}

namespace {
// `x86lab run`: the machine runs on serve()'s thread whenever gdb lets it, and runs on
// when gdb leaves (nobody else can resume it).
class RunTarget final : public GdbTarget {
 public:
  RunTarget(Debugger& debugger, bool running) : debugger_(debugger), running_(running) {}
  void run() override { running_ = true; }
  void halt() override { running_ = false; }
  void step() override { debugger_.step_into(); }
  void release() override { running_ = true; }
  bool running() const override { return running_; }
  StopInfo last_stop() const override { return debugger_.last_stop(); }

 private:
  Debugger& debugger_;
  bool running_;
};
}  // namespace

RunResult GdbServer::serve() {
  RunTarget target(debugger_, !options_.wait_for_gdb);
  network_->pause_on_packets = true;
  for (;;) {
    poll(target, !target.running() && !debugger_.ended());
    if (const int signal = debugger_.machine().interrupted_by()) {
      flush();
      return {RunResult::Reason::Interrupted, 128 + signal};
    }
    if (killed_) {
      flush();
      return {RunResult::Reason::Stopped, 1};
    }
    if (debugger_.ended()) {
      flush();
      return *debugger_.last_stop().end;
    }
    // A pause means an item arrived: poll() takes it and decides whether to go on.
    if (target.running() && debugger_.run().kind != StopKind::Paused) target.halt();
  }
}

}  // namespace x86lab::gdb
