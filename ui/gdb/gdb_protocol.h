// The gdb remote protocol's commands on top of the Debugger (GDB manual, "Packets",
// "Stop Reply Packets", "General Query Packets", "Target Descriptions"): registers of an
// i386 target description with the segment registers and the x87 and system registers,
// memory on linear addresses through paging (reads without side effects), software and
// hardware breakpoints, watchpoints, resumption and monitor commands (qRcmd). No
// sockets here: GdbServer (gdb_server.h) moves the packets.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "platform/debugger/debugger.h"

namespace x86lab::gdb {

// What the server must do after sending a reply.
// ReverseStep/ReverseContinue: gdb's bs/bc (Debugger::reverse_step/reverse_continue).
enum class Resume : u8 { None, Continue, Step, ReverseStep, ReverseContinue, Detach, Kill };

struct Reply {
  std::vector<std::string> packets;  // payloads to send in order (none for a packet that has no reply)
  Resume resume = Resume::None;
};

class GdbProtocol {
 public:
  explicit GdbProtocol(Debugger& debugger) : debugger_(debugger) {}
  ~GdbProtocol() { forget_breakpoints(); }

  // Handles one packet payload (escapes still in place).
  Reply handle(const std::string& payload);
  // The stop reply for a stop of the debugger (T05 with swbreak/hwbreak or
  // watch/rwatch/awatch:ADDR, T02 for a pause, a fault's signal with break-on fault,
  // W for the end of the machine's run), preceded by an "O" console packet saying what
  // hit for event breakpoints. Remembered for '?'.
  std::vector<std::string> stop_packets(const StopInfo& stop);
  // Removes the breakpoints and watchpoints gdb and monitor commands created (detach,
  // disconnect).
  void forget_breakpoints();
  // A new connection: acknowledgements on, no stop reasons announced, '?' answers T05.
  void reset_session();
  bool no_ack() const { return no_ack_; }

  // Register numbers of the target description (target_xml()).
  static constexpr unsigned kRegisterCount = 49;
  static const std::string& target_xml();

 private:
  struct Owned {
    u32 id;
    char type;  // '0'-'4' for Z packets, 'm' for a monitor command
  };
  std::string read_register(unsigned n) const;
  bool write_register(unsigned n, const std::vector<u8>& bytes);
  std::string read_memory(std::string_view args) const;
  std::string write_memory(std::string_view args, bool binary);
  std::string breakpoint(std::string_view args, bool insert);
  std::string query_xfer(std::string_view args) const;
  Reply monitor(const std::string& command);
  std::string monitor_break_on(const std::vector<std::string>& words);
  u32 pc() const;
  void set_pc(u32 value);

  Debugger& debugger_;
  std::vector<Owned> owned_;
  std::optional<u32> fault_breakpoint_;  // the break-on fault breakpoint
  std::string last_stop_ = "T05";
  bool no_ack_ = false;
  bool swbreak_ = false, hwbreak_ = false;  // gdb announced the stop reasons
};

}  // namespace x86lab::gdb
