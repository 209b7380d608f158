// gdb remote protocol commands: queries, registers, memory, breakpoints, resumption
// (gdb_protocol.h). Monitor commands are in gdb_monitor.cpp.
#include "ui/gdb/gdb_protocol.h"

#include <algorithm>
#include <string>
#include <utility>

#include "segmentation/system_segments.h"
#include "ui/gdb/rsp.h"

namespace x86lab::gdb {

namespace {

// The target description (GDB manual, "Target Descriptions", "i386 Features"): gdb's
// i386 core feature (general, segment and x87 registers in gdb's numbering) and
// x86lab's system registers, written from the register runs below. Registers 0-15
// and 24-48 are 32 bits, 16-23 (st0-st7) 80 bits.
struct RegisterRun {
  const char* feature;     // opens this <feature> (nullptr: goes on in the current one)
  std::string_view names;  // space-separated, in register-number order
  unsigned bits;
  const char* type;
  const char* group;  // nullptr: no group attribute
};
constexpr RegisterRun kRegisterRuns[] = {
    {"org.gnu.gdb.i386.core", "eax ecx edx ebx", 32, "int32", nullptr},
    {nullptr, "esp ebp", 32, "data_ptr", nullptr},
    {nullptr, "esi edi", 32, "int32", nullptr},
    {nullptr, "eip", 32, "code_ptr", nullptr},
    {nullptr, "eflags", 32, "i386_eflags", nullptr},
    {nullptr, "cs ss ds es fs gs", 32, "int32", nullptr},
    {nullptr, "st0 st1 st2 st3 st4 st5 st6 st7", 80, "i387_ext", nullptr},
    {nullptr, "fctrl fstat ftag fiseg fioff foseg fooff fop", 32, "int", "float"},
    {"org.x86lab.system",
     "cr0 cr2 cr3 cr4 gdtr_base gdtr_limit idtr_base idtr_limit ldtr tr csbase ssbase dsbase esbase fsbase gsbase cpl",
     32, "int32", "system"},
};

constexpr unsigned register_count() {
  unsigned n = 0;
  for (const RegisterRun& run : kRegisterRuns)
    for (std::size_t at = 0; at != std::string_view::npos; at = run.names.find(' ', at + 1)) ++n;
  return n;
}
static_assert(register_count() == GdbProtocol::kRegisterCount);

// gdb's i386_eflags flags type: the EFLAGS bits by name (bit 1, always set, unnamed).
constexpr std::pair<const char*, unsigned> kEflagsBits[] = {
    {"CF", 0},  {"", 1},    {"PF", 2},  {"AF", 4},  {"ZF", 6},  {"SF", 7},   {"TF", 8},   {"IF", 9},  {"DF", 10},
    {"OF", 11}, {"NT", 14}, {"RF", 16}, {"VM", 17}, {"AC", 18}, {"VIF", 19}, {"VIP", 20}, {"ID", 21}};

std::string make_target_xml() {
  std::string xml =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n"
      "  <architecture>i386</architecture>\n";
  bool first = true;
  for (const RegisterRun& run : kRegisterRuns) {
    if (run.feature) {
      if (!first) xml += "  </feature>\n";
      xml += std::string("  <feature name=\"") + run.feature + "\">\n";
    }
    if (first) {
      xml += "    <flags id=\"i386_eflags\" size=\"4\">\n";
      for (const auto& [name, bit] : kEflagsBits) {
        const std::string b = std::to_string(bit);
        xml += std::string("      <field name=\"") + name + "\" start=\"" + b + "\" end=\"" + b + "\"/>\n";
      }
      xml += "    </flags>\n";
    }
    for (std::size_t at = 0; at < run.names.size();) {
      const std::size_t space = std::min(run.names.find(' ', at), run.names.size());
      xml += "    <reg name=\"" + std::string(run.names.substr(at, space - at)) + "\" bitsize=\"" +
             std::to_string(run.bits) + "\" type=\"" + run.type + "\"";
      if (first) xml += " regnum=\"0\"";
      if (run.group) xml += std::string(" group=\"") + run.group + "\"";
      xml += "/>\n";
      first = false;
      at = space + 1;
    }
  }
  return xml + "  </feature>\n</target>\n";
}

// gdb's order of the segment registers (cs ss ds es fs gs) as SegmentIndex.
constexpr u8 kGdbSegments[6] = {CS, SS, DS, ES, FS, GS};

// Signal numbers of gdb's stop replies (GDB manual, "Signals": the target-independent numbering).
constexpr int kSigint = 2, kSigill = 4, kSigtrap = 5, kSigbus = 7, kSigfpe = 8, kSigsegv = 11;

int signal_for_vector(u32 vector) {
  switch (vector) {
    case 0: case 16: case 19: return kSigfpe;
    case 6: return kSigill;
    case 17: return kSigbus;
    case 8: case 10: case 11: case 12: case 13: case 14: return kSigsegv;
    default: return kSigtrap;
  }
}

std::string hex2(unsigned value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return {kDigits[(value >> 4) & 15], kDigits[value & 15]};
}

std::string hex_text(u32 value) {
  char buffer[12];
  std::snprintf(buffer, sizeof buffer, "%x", value);
  return buffer;
}

// "ADDR,LEN" (hex) at the start of `args`; `rest` gets what follows.
bool parse_range(std::string_view args, u64& address, u64& length, std::string_view* rest = nullptr) {
  const auto comma = args.find(',');
  if (comma == std::string_view::npos) return false;
  auto end = args.find_first_of(":;", comma);
  if (!parse_hex(args.substr(0, comma), address)) return false;
  if (!parse_hex(args.substr(comma + 1, end == std::string_view::npos ? std::string_view::npos : end - comma - 1),
                 length))
    return false;
  if (address > 0xFFFFFFFFu) return false;
  if (rest) *rest = end == std::string_view::npos ? std::string_view{} : args.substr(end + 1);
  return true;
}

}  // namespace

const std::string& GdbProtocol::target_xml() {
  static const std::string xml = make_target_xml();
  return xml;
}

// In real and virtual-8086 mode gdb sees the linear address CS.base + EIP as the PC, so
// that its addresses (symbols, breakpoints, memory) stay linear; in protected mode EIP.
u32 GdbProtocol::pc() const {
  const Cpu& cpu = debugger_.machine().cpu;
  return cpu.protected_mode() ? cpu.state.eip : debugger_.pc_linear();
}

void GdbProtocol::set_pc(u32 value) {
  Cpu& cpu = debugger_.machine().cpu;
  if (cpu.protected_mode()) {
    cpu.state.eip = value;
    return;
  }
  SegmentRegister& cs = cpu.state.segments[CS];
  const u32 offset = value - cs.cache.base;
  if (offset <= 0xFFFF) {
    cpu.state.eip = offset;
    return;
  }
  // Out of reach of the current CS: CS = linear >> 4 and EIP = the low 4 bits (the
  // canonical real-mode split; in V86 mode the same, as a real-mode style load).
  const u16 selector = static_cast<u16>((value >> 4) & 0xFFFF);
  if (cpu.virtual_8086()) load_virtual_8086_segment(cs, selector, true);
  else load_real_mode_segment(cs, selector);
  cpu.state.eip = value - cs.cache.base;
}

std::string GdbProtocol::read_register(unsigned n) const {
  const CpuState& s = debugger_.machine().cpu.state;
  if (n < 8) return hex_le(s.gpr[n], 4);
  if (n == 8) return hex_le(pc(), 4);
  if (n == 9) return hex_le(s.eflags, 4);
  if (n < 16) return hex_le(s.segments[kGdbSegments[n - 10]].selector, 4);
  if (n < 24) {
    const x87::Float80 value = s.fpu.st(n - 16);
    return hex_le(value.significand, 8) + hex_le(value.sign_exponent, 2);
  }
  const FpuState& f = s.fpu;
  const u32 values[] = {f.control, f.status, f.tag, f.fcs, f.fip, f.fds, f.fdp, f.fop,
                        s.cr0, s.cr2, s.cr3, s.cr4, s.gdtr.base, s.gdtr.limit, s.idtr.base, s.idtr.limit,
                        s.ldtr.selector, s.tr.selector,
                        s.segments[CS].cache.base, s.segments[SS].cache.base, s.segments[DS].cache.base,
                        s.segments[ES].cache.base, s.segments[FS].cache.base, s.segments[GS].cache.base, s.cpl};
  return n - 24 < std::size(values) ? hex_le(values[n - 24], 4) : std::string();
}

// Writable: the general registers, EIP (as the PC), EFLAGS, the segment selectors in
// real and virtual-8086 mode (base = selector * 16), the x87 registers. The system
// registers and protected-mode selectors (whose load checks descriptors) are read-only.
bool GdbProtocol::write_register(unsigned n, const std::vector<u8>& bytes) {
  Cpu& cpu = debugger_.machine().cpu;
  CpuState& s = cpu.state;
  u64 value = 0;
  for (std::size_t i = 0; i < std::min<std::size_t>(bytes.size(), 8); ++i) value |= u64{bytes[i]} << (8 * i);
  const u32 v32 = static_cast<u32>(value);
  if (n < 16 && bytes.size() != 4) return false;
  if (n < 8) {
    s.gpr[n] = v32;
  } else if (n == 8) {
    set_pc(v32);
  } else if (n == 9) {
    cpu.write_eflags(v32, flag::kImplemented);
  } else if (n < 16) {
    SegmentRegister& reg = s.segments[kGdbSegments[n - 10]];
    if (cpu.protected_mode()) return v32 == reg.selector;
    const u16 selector = static_cast<u16>(v32);
    if (cpu.virtual_8086()) load_virtual_8086_segment(reg, selector, &reg == &s.segments[CS]);
    else load_real_mode_segment(reg, selector);
  } else if (n < 24) {
    if (bytes.size() != 10) return false;
    x87::Float80& r = s.fpu.registers[s.fpu.physical(n - 16)];
    r.significand = value;
    r.sign_exponent = static_cast<u16>(bytes[8] | bytes[9] << 8);
  } else if (n < 32) {
    if (bytes.size() != 4) return false;
    FpuState& f = s.fpu;
    switch (n) {
      case 24: f.control = static_cast<u16>(v32); break;
      case 25: f.status = static_cast<u16>(v32); break;
      case 26: f.tag = static_cast<u16>(v32); break;
      case 27: f.fcs = static_cast<u16>(v32); break;
      case 28: f.fip = v32; break;
      case 29: f.fds = static_cast<u16>(v32); break;
      case 30: f.fdp = v32; break;
      default: f.fop = static_cast<u16>(v32 & 0x7FF); break;
    }
  } else {
    return bytes.size() == 4 && read_register(n) == hex_le(v32, 4);  // read-only: only the same value
  }
  return true;
}

std::string GdbProtocol::read_memory(std::string_view args) const {
  u64 address = 0, length = 0;
  if (!parse_range(args, address, length)) return "E01";
  std::vector<u8> bytes(std::min<u64>(length, (kMaxPayload - 16) / 2));
  const std::size_t got = debugger_.read_linear(static_cast<u32>(address), bytes);
  if (got == 0 && !bytes.empty()) return "E14";
  return to_hex(std::span(bytes.data(), got));
}

std::string GdbProtocol::write_memory(std::string_view args, bool binary) {
  u64 address = 0, length = 0;
  std::string_view data;
  if (!parse_range(args, address, length, &data)) return "E01";
  std::vector<u8> bytes;
  if (binary) {
    const std::string raw = unescape(data);
    bytes.assign(raw.begin(), raw.end());
  } else if (!from_hex(data, bytes)) {
    return "E01";
  }
  if (bytes.size() != length) return "E01";
  return debugger_.write_linear(static_cast<u32>(address), bytes) == bytes.size() ? "OK" : "E14";
}

std::string GdbProtocol::breakpoint(std::string_view args, bool insert) {
  // "TYPE,ADDR,KIND": 0 software, 1 hardware breakpoint (both on the linear address),
  // 2 write, 3 read, 4 access watchpoint of KIND bytes.
  if (args.size() < 2 || args[1] != ',' || args[0] < '0' || args[0] > '4') return "";
  const char type = args[0];
  u64 address = 0, kind = 0;
  if (!parse_range(args.substr(2), address, kind)) return "E01";
  Breakpoints& breakpoints = debugger_.breakpoints();
  const WatchAccess access = type == '2' ? WatchAccess::Write : type == '3' ? WatchAccess::Read : WatchAccess::Access;
  const bool code = type == '0' || type == '1';
  if (insert) {
    if (!code && (kind == 0 || kind > 0x10000)) return "E01";
    const u32 id = breakpoints.add(code ? Breakpoint::at_linear(static_cast<u32>(address))
                                        : Breakpoint::watch_range(static_cast<u32>(address), static_cast<u32>(kind), access));
    owned_.push_back({id, type});
    return "OK";
  }
  for (auto it = owned_.begin(); it != owned_.end(); ++it) {
    const Breakpoint* b = breakpoints.find(it->id);
    if (it->type != type || !b || b->address != address || (!code && b->length != kind)) continue;
    breakpoints.remove(it->id);
    owned_.erase(it);
    return "OK";
  }
  return "OK";  // already gone: removing twice is harmless
}

std::string GdbProtocol::query_xfer(std::string_view args) const {
  // "features:read:target.xml:OFFSET,LENGTH"
  constexpr std::string_view kPrefix = "features:read:target.xml:";
  if (args.substr(0, kPrefix.size()) != kPrefix) return "";
  u64 offset = 0, length = 0;
  if (!parse_range(args.substr(kPrefix.size()), offset, length)) return "E01";
  const std::string& xml = target_xml();
  if (offset >= xml.size()) return "l";
  const std::size_t count = std::min<u64>(length, kMaxPayload / 2);
  const std::string chunk = xml.substr(offset, count);
  return (offset + chunk.size() >= xml.size() ? "l" : "m") + chunk;
}

void GdbProtocol::forget_breakpoints() {
  for (const Owned& owned : owned_) debugger_.breakpoints().remove(owned.id);
  owned_.clear();
  fault_breakpoint_.reset();
}

void GdbProtocol::reset_session() {
  no_ack_ = false;
  swbreak_ = hwbreak_ = false;
  last_stop_ = "T05";  // a new connection stops the machine: SIGTRAP, as after a step
}

std::vector<std::string> GdbProtocol::stop_packets(const StopInfo& stop) {
  std::vector<std::string> packets;
  std::string reply = packet('T', hex2(kSigtrap));
  switch (stop.kind) {
    case StopKind::MachineEnded:
      packets.push_back(packet('O', to_hex("x86lab: " + stop.describe() + "\n")));
      reply = packet('W', hex2(static_cast<unsigned>(stop.end ? stop.end->exit_status : 0) & 0xFF));
      break;
    case StopKind::Paused: reply = packet('T', hex2(kSigint)); break;
    case StopKind::Step: break;
    case StopKind::HistoryBegin: reply += "replaylog:begin;"; break;  // gdb: "No more reverse-execution history."
    case StopKind::Breakpoint: {
      const auto owned = std::find_if(owned_.begin(), owned_.end(), [&](const Owned& o) { return o.id == stop.hit->id; });
      const bool hardware = owned != owned_.end() && owned->type == '1';
      if (hardware && hwbreak_) reply += "hwbreak:;";
      if (!hardware && swbreak_) reply += "swbreak:;";
      break;
    }
    case StopKind::Event: {
      const BreakpointHit& hit = *stop.hit;
      const Breakpoint* b = debugger_.breakpoints().find(hit.id);
      const auto owned = std::find_if(owned_.begin(), owned_.end(), [&](const Owned& o) { return o.id == hit.id; });
      // Only gdb's own watchpoints (Z2-Z4) are reported as watchpoints: gdb looks the
      // address up among its watchpoints and silently resumes when it has none there,
      // so a monitor watchpoint (type 'm', `break-on phys|watch`) is a SIGTRAP with
      // its console line (issue 39: 'm' compared above '2' and it never stopped).
      const bool gdb_watch = owned != owned_.end() && owned->type >= '2' && owned->type <= '4';
      if (b && b->kind == BreakpointKind::Watch && gdb_watch) {
        // gdb looks the address up among its watchpoints: report one inside the range.
        const u32 address = std::clamp(hit.address, b->address, b->address + b->length - 1);
        reply += (owned->type == '2' ? "watch:" : owned->type == '3' ? "rwatch:" : "awatch:") + hex_text(address) + ";";
        break;
      }
      packets.push_back(packet('O', to_hex("x86lab: " + stop.describe() + "\n")));
      if (fault_breakpoint_ && hit.id == *fault_breakpoint_) reply = packet('T', hex2(signal_for_vector(hit.address)));
      break;
    }
  }
  last_stop_ = reply;
  packets.push_back(reply);
  return packets;
}

Reply GdbProtocol::handle(const std::string& payload) {
  Reply reply;
  auto answer = [&](std::string text) {
    reply.packets.push_back(std::move(text));
    return reply;
  };
  if (payload.empty()) return answer("");
  const char command = payload[0];
  const std::string_view args = std::string_view(payload).substr(1);
  switch (command) {
    case '?': return answer(last_stop_);
    case 'g': {
      std::string text;
      for (unsigned n = 0; n < kRegisterCount; ++n) text += read_register(n);
      return answer(text);
    }
    case 'G': {
      std::vector<u8> bytes;
      if (!from_hex(args, bytes)) return answer("E01");
      // The core registers in order; later ones (x87, system) are left as they are.
      for (unsigned n = 0, at = 0; n < 16 && at + 4 <= bytes.size(); ++n, at += 4) {
        const std::string before = read_register(n);
        write_register(n, std::vector<u8>(bytes.begin() + at, bytes.begin() + at + 4));
        if (read_register(n) != before) debugger_.state_changed();
      }
      return answer("OK");
    }
    case 'p': {
      u64 n = 0;
      if (!parse_hex(args, n) || n >= kRegisterCount) return answer("E01");
      return answer(read_register(static_cast<unsigned>(n)));
    }
    case 'P': {
      const auto equals = args.find('=');
      u64 n = 0;
      std::vector<u8> bytes;
      if (equals == std::string_view::npos || !parse_hex(args.substr(0, equals), n) || n >= kRegisterCount ||
          !from_hex(args.substr(equals + 1), bytes))
        return answer("E01");
      const std::string before = read_register(static_cast<unsigned>(n));
      const bool written = write_register(static_cast<unsigned>(n), bytes);
      if (read_register(static_cast<unsigned>(n)) != before) debugger_.state_changed();
      return answer(written ? "OK" : "E01");
    }
    case 'm': return answer(read_memory(args));
    case 'M': return answer(write_memory(args, false));
    case 'X': return answer(write_memory(args, true));
    case 'Z': return answer(breakpoint(args, true));
    case 'z': return answer(breakpoint(args, false));
    case 'c': case 'C': case 's': case 'S': {
      // An address after c/s resumes there (C/S carry a signal first, which is ignored).
      if ((command == 'c' || command == 's') && !args.empty()) {
        u64 address = 0;
        if (!parse_hex(args, address)) return answer("E01");
        set_pc(static_cast<u32>(address));
      }
      reply.resume = command == 'c' || command == 'C' ? Resume::Continue : Resume::Step;
      return reply;
    }
    case 'b':
      // Reverse execution (GDB manual, "Packets": bs, bc), on the snapshot history.
      if (!debugger_.snapshot_history() || (payload != "bs" && payload != "bc")) return answer("");
      reply.resume = payload == "bs" ? Resume::ReverseStep : Resume::ReverseContinue;
      return reply;
    case 'D': reply.resume = Resume::Detach; return answer("OK");
    case 'k': reply.resume = Resume::Kill; return reply;
    case 'H': case 'T': return answer("OK");  // one thread
    case 'v':
      if (payload == "vCont?") return answer("vCont;c;C;s;S");
      if (payload.rfind("vCont;", 0) == 0) {
        // The first action applies to our only thread: s/S steps, c/C continues.
        const char action = payload.size() > 6 ? payload[6] : '?';
        if (action != 's' && action != 'S' && action != 'c' && action != 'C') return answer("E01");
        reply.resume = action == 's' || action == 'S' ? Resume::Step : Resume::Continue;
        return reply;
      }
      if (payload.rfind("vKill", 0) == 0) {
        reply.resume = Resume::Kill;
        return answer("OK");
      }
      return answer("");  // vMustReplyEmpty and everything else unsupported
    case 'q':
      if (payload.rfind("qSupported", 0) == 0) {
        swbreak_ = payload.find("swbreak+") != std::string::npos;
        hwbreak_ = payload.find("hwbreak+") != std::string::npos;
        return answer("PacketSize=" + hex_text(kMaxPayload) +
                      ";qXfer:features:read+;swbreak+;hwbreak+;vContSupported+;QStartNoAckMode+" +
                      (debugger_.snapshot_history() ? ";ReverseStep+;ReverseContinue+" : ""));
      }
      if (payload.rfind("qXfer:", 0) == 0) return answer(query_xfer(std::string_view(payload).substr(6)));
      if (payload.rfind("qRcmd,", 0) == 0) {
        std::vector<u8> text;
        if (!from_hex(std::string_view(payload).substr(6), text)) return answer("E01");
        return monitor(std::string(text.begin(), text.end()));
      }
      if (payload == "qC") return answer("QC1");
      if (payload == "qfThreadInfo") return answer("m1");
      if (payload == "qsThreadInfo") return answer("l");
      if (payload.rfind("qAttached", 0) == 0) return answer("1");
      if (payload == "qSymbol::") return answer("OK");
      return answer("");
    case 'Q':
      if (payload == "QStartNoAckMode") {
        no_ack_ = true;
        return answer("OK");
      }
      return answer("");
    default: return answer("");
  }
}

}  // namespace x86lab::gdb
