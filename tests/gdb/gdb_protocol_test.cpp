// The gdb stub's framing and commands without a socket (ui/gdb/rsp.h, gdb_protocol.h).
// Expected checksums are the modulo-256 byte sums of the GDB manual's framing, computed
// here independently; register images follow the target description's order.
#include <gtest/gtest.h>

#include <numeric>

#include "segmentation/system_segments.h"
#include "tests/gdb/rsp_test_client.h"
#include "ui/gdb/console_monitor.h"
#include "ui/gdb/gdb_protocol.h"
#include "ui/gdb/rsp.h"

namespace x86lab::gdb {
namespace {

std::vector<Incoming> decode(const std::string& bytes) {
  PacketDecoder decoder;
  std::vector<Incoming> out;
  decoder.feed(bytes, out);
  return out;
}

TEST(GdbFraming, PacketsChecksumsAndInterruptsAreSeparated) {
  // 'g' = 67h; "m0,4" = 6Dh + 30h + 2Ch + 34h = FDh.
  const auto items = decode("+$g#67\x03$m0,4#fd-$g#00");
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].kind, Incoming::Kind::Packet);
  EXPECT_EQ(items[0].payload, "g");
  EXPECT_EQ(items[1].kind, Incoming::Kind::Interrupt);
  EXPECT_EQ(items[2].payload, "m0,4");
  EXPECT_EQ(items[3].kind, Incoming::Kind::BadChecksum);
}

TEST(GdbFraming, InterruptByteInsideAPacketIsData) {
  const auto items = decode(std::string("$X0,1:\x03#") + "22");  // 58h+30h+2Ch+31h+3Ah+03h = 122h
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, Incoming::Kind::Packet);
  EXPECT_EQ(items[0].payload, std::string("X0,1:\x03"));
}

TEST(GdbFraming, OversizedPacketsAreDroppedAndADollarRestartsAPacket) {
  auto items = decode(std::string("$") + std::string(kMaxPayload + 1, 'a') + "#00");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kind, Incoming::Kind::Oversized);
  items = decode("$qSupp$?#3f");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].payload, "?");
}

TEST(GdbFraming, PacketsSplitAcrossReadsAreJoined) {
  PacketDecoder decoder;
  std::vector<Incoming> out;
  decoder.feed(std::string("$?"), out);
  decoder.feed(std::string("#3"), out);
  EXPECT_TRUE(out.empty());
  decoder.feed(std::string("f"), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].payload, "?");
}

TEST(GdbFraming, FrameEscapesSpecialCharacters) {
  const std::string framed = frame("a$b");
  EXPECT_EQ(framed.substr(0, 6), std::string("$a}\x04") + "b#");
  const unsigned sum = std::accumulate(framed.begin() + 1, framed.begin() + 5, 0u,
                                       [](unsigned s, char c) { return s + static_cast<u8>(c); });
  char expected[3];
  std::snprintf(expected, sizeof expected, "%02x", sum & 0xFF);
  EXPECT_EQ(framed.substr(6), expected);
  EXPECT_EQ(unescape(std::string("a}\x04") + "b"), "a$b");
}

struct ProtocolFixture {
  MachineConfig config;
  std::unique_ptr<Machine> machine;
  std::unique_ptr<Debugger> debugger;
  std::unique_ptr<GdbProtocol> protocol;
  ProtocolFixture() {
    config.memory_mib = 1;
    machine = std::make_unique<Machine>(config);
    enter_real_mode_at_10000h(*machine, 0x20);
    debugger = std::make_unique<Debugger>(*machine);
    protocol = std::make_unique<GdbProtocol>(*debugger);
  }
  std::string ask(const std::string& payload) {
    const Reply reply = protocol->handle(payload);
    return reply.packets.empty() ? "<none>" : reply.packets.back();
  }
};

TEST(GdbProtocol, TargetDescriptionNamesEveryRegisterOfTheGPacket) {
  const std::string& xml = GdbProtocol::target_xml();
  std::size_t regs = 0;
  for (std::size_t at = xml.find("<reg "); at != std::string::npos; at = xml.find("<reg ", at + 1)) ++regs;
  EXPECT_EQ(regs, GdbProtocol::kRegisterCount);
  ProtocolFixture f;
  // 16 general/segment + 8 x87 data (10 bytes) + 8 x87 control + 17 system registers.
  EXPECT_EQ(f.ask("g").size(), 2u * (16 * 4 + 8 * 10 + 8 * 4 + 17 * 4));
  EXPECT_NE(f.ask("qSupported:swbreak+;hwbreak+").find("PacketSize=4000"), std::string::npos);
  const std::string first = f.ask("qXfer:features:read:target.xml:0,10");
  EXPECT_EQ(first, std::string("m") + xml.substr(0, 16));
  EXPECT_EQ(f.ask("qXfer:features:read:target.xml:" + [&] {
              char offset[16];
              std::snprintf(offset, sizeof offset, "%zx", xml.size() - 4);
              return std::string(offset);
            }() + ",100"),
            std::string("l") + xml.substr(xml.size() - 4));
}

TEST(GdbProtocol, RealModePcIsLinearAndWritesMapBack) {
  ProtocolFixture f;
  EXPECT_EQ(f.ask("p8"), "20000100");  // 10000h + 20h
  EXPECT_EQ(f.ask("P8=40000100"), "OK");
  EXPECT_EQ(f.machine->cpu.state.eip, 0x40u);
  EXPECT_EQ(f.machine->cpu.state.segments[CS].selector, 0x1000);
  EXPECT_EQ(f.ask("P8=35000200"), "OK");  // 20035h: out of reach of CS 1000h
  EXPECT_EQ(f.machine->cpu.state.segments[CS].selector, 0x2003);
  EXPECT_EQ(f.machine->cpu.state.eip, 5u);
  EXPECT_EQ(f.ask("pa"), "03200000");  // cs
  EXPECT_EQ(f.ask("P0=78563412"), "OK");
  EXPECT_EQ(f.machine->cpu.state.gpr[EAX], 0x12345678u);
  EXPECT_EQ(f.ask("P20=10000060"), "OK");   // cr0 is read-only: its own value is accepted
  EXPECT_EQ(f.ask("P20=ffffffff"), "E01");  // ... a change is refused
}

// Virtual-8086 mode: CS.base = selector * 16 (Intel SDM Vol. 3, 20.1.1), so the PC gdb
// sees is the linear selector * 16 + EIP, and a PC write maps back as in real mode.
TEST(GdbProtocol, Virtual8086PcIsLinearAndWritesMapBack) {
  ProtocolFixture f;
  Cpu& cpu = f.machine->cpu;
  cpu.state.cr0 |= cr0::PE;
  cpu.state.eflags |= flag::VM;
  load_virtual_8086_segment(cpu.state.segments[CS], 0x1234, true);
  cpu.state.eip = 0x10;
  ASSERT_TRUE(cpu.virtual_8086());
  EXPECT_EQ(f.ask("p8"), "50230100");  // 12340h + 10h
  EXPECT_EQ(f.ask("P8=60230100"), "OK");
  EXPECT_EQ(cpu.state.eip, 0x20u);
  EXPECT_EQ(f.ask("P8=05000300"), "OK");  // 30005h: out of reach of CS 1234h
  EXPECT_EQ(cpu.state.segments[CS].selector, 0x3000);
  EXPECT_EQ(cpu.state.segments[CS].cache.base, 0x30000u);
  EXPECT_EQ(cpu.state.eip, 5u);
  EXPECT_EQ(f.ask("pa"), "00300000");  // cs
  EXPECT_EQ(f.ask("p2a"), "00000300");  // csbase (register 42)
}

// Protected mode: the PC is EIP itself, also with a CS base other than 0; the base is
// register csbase, and memory stays linear (docs/gdb.md).
TEST(GdbProtocol, ProtectedModePcIsEipWhateverTheCsBase) {
  ProtocolFixture f;
  Cpu& cpu = f.machine->cpu;
  cpu.state.cr0 |= cr0::PE;
  cpu.state.segments[CS].selector = 0x08;
  cpu.state.segments[CS].cache.base = 0x10000;
  cpu.state.segments[CS].cache.limit = 0xFFFFF;
  cpu.state.segments[CS].cache.db = true;
  cpu.state.eip = 0x20;
  ASSERT_TRUE(cpu.protected_mode());
  EXPECT_EQ(f.ask("p8"), "20000000");
  EXPECT_EQ(f.ask("p2a"), "00000100");  // csbase 10000h
  EXPECT_EQ(f.ask("P8=40000000"), "OK");
  EXPECT_EQ(cpu.state.eip, 0x40u);
  EXPECT_EQ(cpu.state.segments[CS].selector, 0x08);
  EXPECT_EQ(f.ask("Pa=10000000"), "E01");  // a selector load checks descriptors: read-only
}

TEST(GdbProtocol, MemoryReadsAndWritesAreLinear) {
  ProtocolFixture f;
  EXPECT_EQ(f.ask("M2000,3:0a0b0c"), "OK");
  EXPECT_EQ(f.machine->bus.peek(0x2001), 0x0B);
  EXPECT_EQ(f.ask("m2000,3"), "0a0b0c");
  EXPECT_EQ(f.ask(std::string("X2004,2:}\x04}]")), "OK");  // escaped '$' and '}'
  EXPECT_EQ(f.machine->bus.peek(0x2004), '$');
  EXPECT_EQ(f.machine->bus.peek(0x2005), '}');
  EXPECT_EQ(f.ask("M2000,2:00"), "E01");  // length mismatch
}

TEST(GdbProtocol, BreakpointsAndWatchpointsMapToTheDebugger) {
  ProtocolFixture f;
  EXPECT_EQ(f.ask("qSupported:swbreak+;hwbreak+").find("swbreak+") != std::string::npos, true);
  EXPECT_EQ(f.ask("Z0,10024,1"), "OK");
  ASSERT_EQ(f.debugger->breakpoints().all().size(), 1u);
  EXPECT_EQ(f.debugger->breakpoints().all()[0].address, 0x10024u);
  const u8 nops[] = {0x90, 0x90, 0x90, 0x90, 0x90};
  f.machine->bus.load(0x10020, nops);
  const StopInfo stop = f.debugger->run();
  EXPECT_EQ(f.protocol->stop_packets(stop).back(), "T05swbreak:;");
  EXPECT_EQ(f.ask("?"), "T05swbreak:;");
  EXPECT_EQ(f.ask("z0,10024,1"), "OK");
  EXPECT_TRUE(f.debugger->breakpoints().all().empty());

  EXPECT_EQ(f.ask("Z2,2002,2"), "OK");
  StopInfo watch;
  watch.kind = StopKind::Event;
  BreakpointHit hit;
  hit.id = f.debugger->breakpoints().all()[0].id;
  hit.kind = BreakpointKind::Watch;
  hit.address = 0x2000;  // a 4-byte write at 2000h overlapping the watched 2002h-2003h
  watch.hit = hit;
  EXPECT_EQ(f.protocol->stop_packets(watch).back(), "T05watch:2002;");
  f.protocol->forget_breakpoints();
  EXPECT_TRUE(f.debugger->breakpoints().all().empty());
}

TEST(GdbProtocol, ResumePacketsAndMonitorCommands) {
  ProtocolFixture f;
  EXPECT_EQ(f.protocol->handle("vCont;s:1;c").resume, Resume::Step);
  EXPECT_EQ(f.ask("vCont;"), "E01");  // no action: no resumption (found by the hostile client)
  EXPECT_EQ(f.protocol->handle("vCont;").resume, Resume::None);
  EXPECT_EQ(f.protocol->handle("c").resume, Resume::Continue);
  EXPECT_EQ(f.protocol->handle("k").resume, Resume::Kill);
  EXPECT_EQ(f.protocol->handle("D").resume, Resume::Detach);
  const Reply reply = f.protocol->handle(std::string("qRcmd,") + to_hex("info segments"));
  ASSERT_EQ(reply.packets.size(), 2u);
  EXPECT_EQ(reply.packets[1], "OK");
  std::vector<u8> text;
  ASSERT_TRUE(from_hex(std::string_view(reply.packets[0]).substr(1), text));
  EXPECT_EQ(std::string(text.begin(), text.end()).rfind("es   0000 base=00000000 limit=0000FFFF", 0), 0u);
  f.protocol->handle(std::string("qRcmd,") + to_hex("break-on lock accessed-bit"));
  ASSERT_EQ(f.debugger->breakpoints().all().size(), 1u);
  EXPECT_EQ(f.debugger->breakpoints().all()[0].access, AccessKind::DescriptorAccessedBit);
  f.protocol->handle(std::string("qRcmd,") + to_hex("break-on lock data"));
  EXPECT_EQ(f.debugger->breakpoints().all().size(), 1u);  // data is no locked kind
}

// A selector, descriptor entry or port wider than 16 bits was truncated (0x10000
// became selector 0).
TEST(GdbProtocol, MonitorBreakOnRefusesNumbersWiderThanTheirField) {
  ProtocolFixture f;
  const auto monitor = [&](const std::string& command) {
    const Reply reply = f.protocol->handle(std::string("qRcmd,") + to_hex(command));
    std::vector<u8> text;
    if (reply.packets.empty() || !from_hex(std::string_view(reply.packets[0]).substr(1), text)) return std::string();
    return std::string(text.begin(), text.end());
  };
  EXPECT_EQ(monitor("break-on selector 0x10000"), "selectors are 0-0xffff\n");
  EXPECT_EQ(monitor("break-on write gdt 0x10000"), "descriptor entries are 0-0xffff\n");
  EXPECT_EQ(monitor("break-on io 0x60 0x10000"), "ports are 0-0xffff\n");
  EXPECT_EQ(monitor("break-on io 0x64 0x60"), "LAST port is below PORT\n");
  EXPECT_TRUE(f.debugger->breakpoints().all().empty());
}


// The whole text of a monitor command's reply (all its console packets).
std::string monitor_text(ProtocolFixture& f, const std::string& command) {
  const Reply reply = f.protocol->handle(std::string("qRcmd,") + to_hex(command));
  std::string text;
  for (const std::string& packet : reply.packets) {
    if (packet.empty() || packet[0] != 'O') continue;
    std::vector<u8> bytes;
    if (from_hex(std::string_view(packet).substr(1), bytes)) text.append(bytes.begin(), bytes.end());
  }
  return text;
}

bool has_line(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

// `info lapic` after the APIC is programmed through its page (values from the SDM's
// register layouts): SVR 1FFh (software-enabled, spurious FFh), TPR 50h, LVT timer
// 00020040h (periodic, vector 40h), DCR 0011b (divide by 16), initial count 10000h;
// a fixed interrupt 61h in service and 72h requested. PPR = 60h (ISRV class 6 above TPR
// class 5), APR = 70h (the IRRV class 7 is the largest). An illegal register read (010h)
// then an ESR write latch ESR = 80h; another illegal read leaves a pending error that the
// monitor must not latch. The timer's 10000h counts of 16 bus ticks at 100 MHz are
// 5242880 cycles of the 500 MHz clock. Reading the view twice gives the same text and
// changes neither ESR, the current count, ISR, IRR nor the pending error.
TEST(GdbProtocol, MonitorInfoLapicShowsTheProgrammedApicAndChangesNothing) {
  ProtocolFixture f;
  LocalApic& apic = *f.machine->local_apic;
  const auto set = [&](u32 offset, u32 value) { apic.write(offset, 4, value); };
  set(lapic::kSvr, 0x1FF);
  set(lapic::kTpr, 0x50);
  set(lapic::kDivideConfiguration, 0x3);
  set(lapic::kLvtTimer, 0x20040);
  set(lapic::kInitialCount, 0x10000);
  f.machine->devices->apic_bus.send(ApicMessage{.vector = 0x61, .destination = 0});
  ASSERT_EQ(apic.acknowledge(), 0x61);
  f.machine->devices->apic_bus.send(ApicMessage{.vector = 0x72, .destination = 0});
  apic.read(0x010, 4);  // reserved offset: ESR bit 7
  set(lapic::kEsr, 0);
  apic.read(0x010, 4);  // pending until the next ESR write
  const u32 count = apic.current_count();

  const std::string text = monitor_text(f, "info lapic");
  EXPECT_TRUE(has_line(text, "local APIC id=00 version=00040011 (version 11, max LVT entry 4)")) << text;
  EXPECT_TRUE(has_line(text, "IA32_APIC_BASE=FEE00900 base=FEE00000 enabled bsp")) << text;
  EXPECT_TRUE(has_line(text, "SVR=000001FF software-enabled spurious-vector=FF focus-checking=on")) << text;
  EXPECT_TRUE(has_line(text, "TPR=50 APR=70 PPR=60")) << text;
  EXPECT_TRUE(has_line(text, "LDR=00000000 DFR=FFFFFFFF (flat)")) << text;
  EXPECT_TRUE(has_line(text, "IRR: 72")) << text;
  EXPECT_TRUE(has_line(text, "ISR: 61")) << text;
  EXPECT_TRUE(has_line(text, "TMR: none")) << text;
  EXPECT_TRUE(has_line(text, "ESR=00000080")) << text;
  EXPECT_TRUE(has_line(text, "LVT timer   00020040 vector=40 unmasked periodic")) << text;
  EXPECT_TRUE(has_line(text, "LVT lint0   00010000 vector=00 mode=fixed masked edge remote-irr=0 polarity=high")) << text;
  EXPECT_TRUE(has_line(text, "timer periodic divide=16 (DCR=3) initial=00010000 current=00010000 next-expiry=cycle " +
                                 std::to_string(f.machine->clock.now() + 5242880) + " (in 5242880)"))
      << text;

  EXPECT_EQ(monitor_text(f, "info lapic"), text);
  EXPECT_EQ(*inspection_command(*f.debugger, "info lapic"), text);  // the console monitor's answer
  EXPECT_EQ(apic.register_value(lapic::kEsr), 0x80u);
  EXPECT_EQ(apic.current_count(), count);
  EXPECT_TRUE(apic.isr(0x61));
  EXPECT_TRUE(apic.irr(0x72));
  set(lapic::kEsr, 0);  // the pending error is still there to latch
  EXPECT_EQ(apic.register_value(lapic::kEsr), 0x80u);
  set(lapic::kEsr, 0);
  EXPECT_EQ(apic.register_value(lapic::kEsr), 0u);
}

// `info ioapic`: ID 2 (IOAPICID 02000000h), IOAPICVER 00170011h (82093AA: 24 entries,
// version 11h), entry 2 = vector 30h, fixed, logical destination 03h, level,
// active-low (low dword 0000A830h, high 03000000h) with INTIN2 high (not asserted),
// the other entries masked as after reset; IOREGSEL left at 15h. The view reads no
// register through IOWIN: IOREGSEL stays 15h.
TEST(GdbProtocol, MonitorInfoIoapicDecodesTheRedirectionEntries) {
  ProtocolFixture f;
  IoApic& io_apic = f.machine->devices->io_apic;
  io_apic.write_register(IoApic::kIoApicId, 0x02000000);
  io_apic.set_input(2, true);
  io_apic.write_register(0x15, 0x03000000);
  io_apic.write_register(0x14, 0x0000A830);
  io_apic.write(IoApic::kIoRegSel, 4, 0x15);
  const std::string text = monitor_text(f, "info ioapic");
  EXPECT_TRUE(has_line(text, "I/O APIC id=2 (IOAPICID=02000000) IOAPICVER=00170011 (version 11, max entry 23) "
                             "IOAPICARB=02000000"))
      << text;
  EXPECT_TRUE(has_line(text, "IOREGSEL=15")) << text;
  EXPECT_TRUE(has_line(text, "pin  2 030000000000A830 vector=30 mode=fixed dest=logical:03 active-low level "
                             "remote-irr=0 unmasked input=high"))
      << text;
  EXPECT_TRUE(has_line(text, "pin 23 0000000000010000 vector=00 mode=fixed dest=physical:00 active-high edge "
                             "remote-irr=0 masked input=low"))
      << text;
  EXPECT_EQ(io_apic.io_register_select(), 0x15);
  EXPECT_EQ(monitor_text(f, "info ioapic"), text);
  EXPECT_NE(monitor_text(f, "help").find("info ioapic"), std::string::npos);
}

}  // namespace
}  // namespace x86lab::gdb
