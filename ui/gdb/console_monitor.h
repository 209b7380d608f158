// The monitor on the serial console of `x86lab run` (Ctrl-A c on a raw terminal, as
// QEMU's Ctrl-A c): the gdb monitor's read-only commands at an instruction boundary,
// typed on the same terminal, while the guest waits (docs/gdb.md, "Monitor commands").
#pragma once
#include <optional>
#include <string>

#include "platform/debugger/debugger.h"
#include "platform/serial_host.h"

namespace x86lab {

// The answer of a read-only monitor command shared by gdb's monitor and the console
// (info segments, info gdt|ldt|idt [FIRST [COUNT]], info tss, info lapic, info ioapic,
// info registers, info tlb|mem [ADDR [COUNT]], x/FMT ADDR, xp/FMT ADDR, stats [WORD...],
// phys ADDR LEN), or nothing for any other command. Reads without side effects
// (platform/debugger/inspect.h, apic_inspect.h).
std::optional<std::string> inspection_command(const Debugger& debugger, const std::string& command);

// `snapshot save FILE`, shared by gdb's monitor and the console: saves `machine` (at an
// instruction boundary) and answers with one line (saved, or why not); nothing for
// any other command.
std::optional<std::string> snapshot_command(Machine& machine, const std::string& command);

enum class ConsoleMonitorEnd : u8 { Resume, Quit };

// Serves the console monitor on `console` for the paused `machine`: a prompt, one
// command a line (echoed, with backspace), until an empty line or `continue` (Resume),
// `quit` (Quit), or the end of the input or a signal (Resume: the run then ends as
// it would have).
ConsoleMonitorEnd serve_console_monitor(Machine& machine, StreamSerialHost& console);

}  // namespace x86lab
