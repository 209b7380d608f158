// The serial console's monitor (Ctrl-A c): a line editor on the raw terminal and the
// shared read-only monitor commands.
#include "ui/gdb/console_monitor.h"

#include "ui/gdb/screendump.h"

#include <sstream>

#include "platform/snapshot/snapshot_file.h"
#include "trace/output_file.h"

namespace x86lab {

namespace {

constexpr const char* kConsoleHelp =
    "x86lab console monitor (the guest waits):\n"
    "  info segments              selectors with their descriptor caches, GDTR, IDTR, CPL\n"
    "  info gdt|ldt|idt [FIRST [COUNT]]  descriptor table entries (default 0, 64)\n"
    "  info tss                   the current TSS\n"
    "  info lapic                 the local APIC: ID, IA32_APIC_BASE, SVR, priorities, IRR/ISR/TMR, LVT, timer\n"
    "  info ioapic                the I/O APIC: ID, version, IOREGSEL, the 24 redirection entries\n"
    "  info registers             general, segment and control registers, EFLAGS with its flags\n"
    "  info tlb | info mem [ADDR [COUNT]]  the page mappings, one a page | ranges by rights\n"
    "  x/FMT ADDR | xp/FMT ADDR   linear | physical memory, QEMU's FMT: count, x d u o c, b h w g\n"
    "  stats [WORD...]            the counters (only the lines with one of the WORDs)\n"
    "  phys ADDR LEN              hex dump of physical memory (at most 4096 bytes)\n"
    "  continue (or Enter)        resume the guest\n"
    "  snapshot save FILE         write the whole machine to FILE (docs/snapshots.md)\n"
    "  screendump FILE.png        write the VGA's screen (whatever mode is set) as a PNG\n"
    "  quit                       stop x86lab (as Ctrl-A x)\n"
    "Ctrl-A keys here: Ctrl-A c resumes the guest, Ctrl-A x stops x86lab, Ctrl-A h this help.\n"
    "Breakpoints and stepping: x86lab run --gdb PORT (docs/gdb.md).\n";

// One line typed on the raw terminal, echoed; nothing at the end of the input. Tab
// types a space; the escape sequences of cursor and function keys (ESC [ ... final
// byte, ESC O x) are dropped whole. The serial console's Ctrl-A keys keep their
// meaning: Ctrl-A c ends the line as `continue`, Ctrl-A x as `quit`, Ctrl-A h prints
// the help; any other key after Ctrl-A (Ctrl-A again: there is no guest to send it
// to here) is dropped with it.
std::optional<std::string> read_line(StreamSerialHost& console) {
  std::string line;
  enum class Escape : u8 { None, Started, Csi, Ss3 } escape = Escape::None;
  bool ctrl_a = false;
  for (;;) {
    std::optional<u8> byte = console.read_console_byte();
    if (!byte) return std::nullopt;
    if (ctrl_a) {
      ctrl_a = false;
      const char key = static_cast<char>(*byte | 0x20);  // (lower case)
      if (key == 'c' || key == 'x') {
        console.print_to_console("\n");
        return std::string(key == 'c' ? "continue" : "quit");
      }
      if (key == 'h' || *byte == '?') console.print_to_console(std::string("\n") + kConsoleHelp + "(x86lab) " + line);
      continue;
    }
    if (*byte == 0x01) {
      ctrl_a = true;
      continue;
    }
    if (escape == Escape::Started) {
      escape = *byte == '[' ? Escape::Csi : *byte == 'O' ? Escape::Ss3 : Escape::None;
      continue;
    }
    if (escape == Escape::Csi) {
      if (*byte >= 0x40 && *byte <= 0x7E) escape = Escape::None;  // the final byte
      continue;
    }
    if (escape == Escape::Ss3) {
      escape = Escape::None;
      continue;
    }
    if (*byte == 0x1B) {
      escape = Escape::Started;
      continue;
    }
    if (*byte == '\t') byte = ' ';
    if (*byte == '\r' || *byte == '\n') {
      console.print_to_console("\n");
      return line;
    }
    if ((*byte == 0x7F || *byte == 0x08) && !line.empty()) {
      line.pop_back();
      console.print_to_console("\b \b");
    } else if (*byte == 0x03) {  // Ctrl-C: drop the line
      console.print_to_console("^C\n");
      return std::string();
    } else if (*byte >= 0x20 && *byte < 0x7F) {
      line.push_back(static_cast<char>(*byte));
      console.print_to_console(std::string(1, static_cast<char>(*byte)));
    }
  }
}

}  // namespace

std::optional<std::string> snapshot_command(Machine& machine, const std::string& command) {
  std::istringstream words(command);
  std::string first, second, path, extra;
  words >> first >> second >> path;
  if (first != "snapshot") return std::nullopt;
  if (second != "save" || path.empty() || (words >> extra))
    return std::string("usage: snapshot save FILE\n");
  try {
    const SavedSnapshot saved = save_machine_snapshot(machine, path);
    return "snapshot '" + saved.path + "' saved after " + std::to_string(saved.steps) + " steps (" +
           std::to_string(saved.file_bytes) + " bytes)\n";
  } catch (const OutputError& error) {
    return std::string(error.what()) + "\n";
  }
}

ConsoleMonitorEnd serve_console_monitor(Machine& machine, StreamSerialHost& console) {
  const Debugger debugger(machine, 0);  // the views need one; it arms nothing
  console.print_to_console("\nx86lab monitor: help lists the commands, Enter resumes the guest\n");
  for (;;) {
    console.print_to_console("(x86lab) ");
    const std::optional<std::string> line = read_line(console);
    if (!line) return ConsoleMonitorEnd::Resume;
    const std::size_t start = line->find_first_not_of(' ');
    const std::string command = start == std::string::npos ? "" : line->substr(start);
    if (command.empty() || command == "continue" || command == "c") return ConsoleMonitorEnd::Resume;
    if (command == "quit" || command == "q") return ConsoleMonitorEnd::Quit;
    if (command == "help") {
      console.print_to_console(kConsoleHelp);
    } else if (const std::optional<std::string> answer = inspection_command(debugger, command)) {
      console.print_to_console(*answer);
    } else if (const std::optional<std::string> saved = snapshot_command(machine, command)) {
      console.print_to_console(*saved);
    } else if (const std::optional<std::string> dumped = screendump_command(machine, command)) {
      console.print_to_console(*dumped);
    } else {
      console.print_to_console("unknown command '" + command + "' (help lists them)\n");
    }
  }
}

}  // namespace x86lab
