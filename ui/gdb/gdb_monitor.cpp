// gdb "monitor" commands (qRcmd): views of the segment registers and descriptor
// tables, event breakpoints of the debugger, counters and physical memory
// (docs/gdb.md lists them).
#include <algorithm>
#include <sstream>

#include "platform/debugger/breakpoint_spec.h"
#include "platform/debugger/inspect.h"
#include "platform/debugger/inspect_memory.h"
#include "ui/gdb/apic_monitor.h"
#include "ui/gdb/console_monitor.h"
#include "ui/gdb/screendump.h"
#include "ui/gdb/gdb_protocol.h"
#include "ui/gdb/rsp.h"

namespace x86lab::gdb {

namespace {

constexpr const char* kHelp =
    "x86lab monitor commands:\n"
    "  info segments              selectors with their descriptor caches, GDTR, IDTR, CPL\n"
    "  info gdt|ldt|idt [FIRST [COUNT]]  descriptor table entries (default 0, 64)\n"
    "  info tss                   the current TSS\n"
    "  info lapic                 the local APIC: ID, IA32_APIC_BASE, SVR, priorities, IRR/ISR/TMR, LVT, timer\n"
    "  info ioapic                the I/O APIC: ID, version, IOREGSEL, the 24 redirection entries\n"
    "  info registers             general, segment and control registers, EFLAGS with its flags\n"
    "  info tlb | info mem [ADDR [COUNT]]  the page mappings, one a page | ranges by rights\n"
    "  x/FMT ADDR | xp/FMT ADDR   linear | physical memory, QEMU's FMT: count, x d u o c, b h w g\n"
    "  break-on vector N [M]      stop at the delivery of vectors N..M (any source)\n"
    "  break-on fault on|off      stop at exceptions 0-31 with the signal of the fault\n"
    "  break-on lock KIND         stop after a locked access: accessed-bit, tss-busy-bit,\n"
    "                             page-directory-ad, page-table-ad, xchg-memory, inta, lock-prefix\n"
    "  break-on load REG          stop after a load of es|cs|ss|ds|fs|gs|ldtr|tr\n"
    "  break-on selector SEL      stop after a load of selector SEL (RPL ignored)\n"
    "  break-on write gdt|ldt|idt [ENTRY]  stop after a write into a descriptor table\n"
    "  break-on io PORT [LAST]    stop after IN/OUT to the ports\n"
    "  break-on phys ADDR LEN [r|w|a]  watch physical memory\n"
    "  break-on list | delete ID | clear\n"
    "  condition ID EXPR          e.g. condition 3 eax==5 && cs!=8 (empty EXPR: none)\n"
    "  stats [WORD...]            the counters (only the lines with one of the WORDs)\n"
    "  phys ADDR LEN              hex dump of physical memory (at most 4096 bytes)\n"
    "  history on|off|N           instruction history: record, or show the last N\n"
    "  history snapshots          the snapshot history of reverse execution: span, count, MiB\n"
    "  goto STEP                  go to step STEP (back or forward; breakpoints do not stop it)\n"
    "  reset                      reset the CPU\n"
    "  snapshot save FILE         write the whole machine to FILE (docs/snapshots.md)\n"
    "  screendump FILE.png        write the VGA's screen (whatever mode is set) as a PNG\n";

std::vector<std::string> split(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// A number in C notation (0x prefix for hex, else decimal) or a throw with the word.
u32 number(const std::string& word) { return parse_number(word); }

// A step count: decimal digits (up to 2^64 - 1) or a throw with the word.
u64 parse_count(const std::string& word) {
  u64 value = 0;
  bool ok = !word.empty() && word.size() <= 19;
  for (char c : word) {
    if (c < '0' || c > '9') ok = false;
    else value = value * 10 + static_cast<u64>(c - '0');
  }
  if (!ok) throw std::invalid_argument("not a step count: '" + word + "'");
  return value;
}

std::optional<DescriptorTable> table_named(const std::string& name) {
  if (name == "gdt") return DescriptorTable::Gdt;
  if (name == "ldt") return DescriptorTable::Ldt;
  if (name == "idt") return DescriptorTable::Idt;
  return std::nullopt;
}

}  // namespace

std::string GdbProtocol::monitor_break_on(const std::vector<std::string>& w) {
  Breakpoints& breakpoints = debugger_.breakpoints();
  const std::string what = w.size() > 1 ? w[1] : "";
  if (what == "list") {
    std::string text;
    for (const Breakpoint& b : breakpoints.all()) text += b.describe() + "\n";
    return text.empty() ? "no breakpoints\n" : text;
  }
  if (what == "delete" && w.size() == 3) {
    const u32 id = number(w[2]);
    if (!breakpoints.remove(id)) return "no breakpoint " + w[2] + "\n";
    std::erase_if(owned_, [id](const Owned& o) { return o.id == id; });
    if (fault_breakpoint_ == id) fault_breakpoint_.reset();
    return "deleted " + w[2] + "\n";
  }
  if (what == "clear") {
    for (const Owned& o : owned_)
      if (o.type == 'm') breakpoints.remove(o.id);
    std::erase_if(owned_, [](const Owned& o) { return o.type == 'm'; });
    fault_breakpoint_.reset();
    return "monitor breakpoints cleared\n";
  }
  if (what == "fault" && w.size() == 3 && (w[2] == "on" || w[2] == "off")) {
    if (fault_breakpoint_) {
      breakpoints.remove(*fault_breakpoint_);
      std::erase_if(owned_, [this](const Owned& o) { return o.id == *fault_breakpoint_; });
      fault_breakpoint_.reset();
    }
    if (w[2] == "off") return "break-on fault off\n";
    fault_breakpoint_ = breakpoints.add(Breakpoint::on_vector(0, 31, kSourceException));
    owned_.push_back({*fault_breakpoint_, 'm'});
    return "break-on fault on (breakpoint " + std::to_string(*fault_breakpoint_) + ")\n";
  }
  Breakpoint b;
  try {
    b = parse_breakpoint(std::vector<std::string>(w.begin() + 1, w.end()));  // platform/debugger/breakpoint_spec.h
  } catch (const std::invalid_argument& problem) {
    const std::string text = problem.what();
    if (text.rfind("usage:", 0) == 0)
      return "usage: break-on vector|fault|lock|load|selector|write|io|phys|list|delete|clear (monitor help)\n";
    return text + "\n";
  }
  const u32 id = breakpoints.add(b);
  owned_.push_back({id, 'm'});
  return breakpoints.find(id)->describe() + "\n";
}

}  // namespace x86lab::gdb

namespace x86lab {

std::optional<std::string> inspection_command(const Debugger& debugger, const std::string& command) {
  const std::vector<std::string> w = gdb::split(command);
  if (w.empty()) return std::nullopt;
  try {
    if (w[0] == "info" && w.size() >= 2 && w[1] == "segments") return describe_segments(debugger.machine().cpu.state);
    if (w[0] == "info" && w.size() >= 2 && gdb::table_named(w[1]))
      return describe_table(debugger, *gdb::table_named(w[1]), w.size() > 2 ? gdb::number(w[2]) : 0,
                            w.size() > 3 ? std::min<u32>(gdb::number(w[3]), 1024) : 64);
    if (w[0] == "info" && w.size() >= 2 && w[1] == "tss") return describe_tss(debugger);
    if (w[0] == "info" && w.size() == 2 && w[1] == "lapic")
      return describe_local_apic(inspect_local_apic(debugger.machine()));
    if (w[0] == "info" && w.size() == 2 && w[1] == "ioapic") return describe_io_apic(inspect_io_apic(debugger.machine()));
    if (w[0] == "info" && w.size() == 2 && (w[1] == "registers" || w[1] == "r"))
      return describe_registers(debugger.machine().cpu.state);
    if (w[0] == "info" && w.size() >= 2 && w.size() <= 4 && (w[1] == "tlb" || w[1] == "mem"))
      return describe_page_mappings(debugger, w[1] == "mem", w.size() > 2 ? gdb::number(w[2]) : 0,
                                    w.size() > 3 ? std::clamp<u32>(gdb::number(w[3]), 1, 65536) : 4096);
    // QEMU's x/FMT ADDR and xp/FMT ADDR (the format may also stand apart: "x /4xb ADDR").
    if (const auto slash = w[0].find('/'); w[0].substr(0, slash) == "x" || w[0].substr(0, slash) == "xp") {
      const bool physical = w[0].substr(0, slash) == "xp";
      std::vector<std::string> rest(w.begin() + 1, w.end());
      std::string format_text = slash == std::string::npos ? "" : w[0].substr(slash);
      if (format_text.empty() && !rest.empty() && rest[0].starts_with("/")) {
        format_text = rest[0];
        rest.erase(rest.begin());
      }
      if (rest.size() != 1) return std::string("usage: ") + (physical ? "xp" : "x") + "/FMT ADDR (e.g. x/8xw 0x1000)\n";
      return describe_memory(debugger, gdb::number(rest[0]), parse_memory_format(format_text), physical);
    }
    if (w[0] == "stats") {
      std::ostringstream out;
      debugger.machine().counters.print(out, debugger.machine().cpu.clock().cycles());
      if (w.size() == 1) return out.str();
      // Only the lines with one of the words (the counters' names: "tlb", "opcode.0f").
      std::istringstream lines(out.str());
      std::string text;
      for (std::string line; std::getline(lines, line);)
        if (std::any_of(w.begin() + 1, w.end(), [&](const std::string& word) { return line.find(word) != std::string::npos; }))
          text += line + "\n";
      return text.empty() ? "no counter line has '" + command.substr(command.find(w[1])) + "'\n" : text;
    }
    if (w[0] == "phys" && w.size() == 3) return describe_physical(debugger, gdb::number(w[1]), gdb::number(w[2]));
  } catch (const std::invalid_argument& error) {
    return std::string(error.what()) + "\n";
  }
  return std::nullopt;
}

}  // namespace x86lab

namespace x86lab::gdb {

Reply GdbProtocol::monitor(const std::string& command) {
  std::string text;
  const std::vector<std::string> w = split(command);
  const std::string first = w.empty() ? "help" : w[0];
  try {
    if (first == "help") {
      text = kHelp;
    } else if (const std::optional<std::string> inspection = inspection_command(debugger_, command)) {
      text = *inspection;
    } else if (const std::optional<std::string> saved = snapshot_command(debugger_.machine(), command)) {
      text = *saved;
    } else if (const std::optional<std::string> dumped = screendump_command(debugger_.machine(), command)) {
      text = *dumped;
    } else if (first == "break-on") {
      text = monitor_break_on(w);
    } else if (first == "condition" && w.size() >= 2) {
      const std::size_t at = command.find(w[1]) + w[1].size();
      const std::string expression = command.substr(at);
      const bool blank = expression.find_first_not_of(" \t") == std::string::npos;
      text = debugger_.breakpoints().set_condition(number(w[1]), blank ? std::vector<RegisterCondition>{}
                                                                       : parse_condition(expression))
                 ? "condition set\n"
                 : "no breakpoint " + w[1] + "\n";
    } else if (first == "history" && w.size() == 2 && (w[1] == "on" || w[1] == "off")) {
      debugger_.enable_history(w[1] == "on");
      text = "history " + w[1] + "\n";
    } else if (first == "history" && w.size() == 2 && w[1] == "snapshots") {
      const SnapshotHistory* snapshots = debugger_.snapshot_history();
      text = snapshots ? snapshots->describe() + ", now at step " + std::to_string(debugger_.position()) + "\n"
                       : "no snapshot history (reverse execution is off)\n";
    } else if (first == "goto" && w.size() == 2) {
      const u64 target = parse_count(w[1]);
      text = debugger_.go_to_step(target) ? "at step " + std::to_string(debugger_.position()) + "\n"
                                          : "step " + w[1] + " lies before the recorded history\n";
    } else if (first == "history") {
      const auto& history = debugger_.history();
      const std::size_t count = std::min<std::size_t>(w.size() == 2 ? number(w[1]) : 20, history.size());
      if (!debugger_.history_enabled()) text = "history is off (monitor history on)\n";
      for (std::size_t i = history.size() - count; i < history.size(); ++i) {
        const HistoryEntry& e = history[i];
        char line[96];
        std::snprintf(line, sizeof line, "%10llu %04X:%08X %08X %s", static_cast<unsigned long long>(e.instruction),
                      e.cs, e.eip, e.linear, std::string(e.mnemonic).c_str());
        text += line;
        if (e.vector >= 0) text += ' ' + std::to_string(e.vector);
        text += '\n';
      }
    } else if (first == "reset") {
      debugger_.reset();
      text = "CPU reset\n";
    } else {
      text = "unknown monitor command '" + command + "' (monitor help)\n";
    }
  } catch (const std::invalid_argument& error) {
    text = std::string(error.what()) + "\n";
  }
  // Long output goes in console packets of at most kMaxPayload / 4 characters, then OK.
  Reply reply;
  constexpr std::size_t kChunk = kMaxPayload / 4;
  for (std::size_t at = 0; at < text.size(); at += kChunk) reply.packets.push_back(packet('O', to_hex(text.substr(at, kChunk))));
  reply.packets.push_back("OK");
  return reply;
}

}  // namespace x86lab::gdb
