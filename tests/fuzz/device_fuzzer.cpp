// Fuzz target: the PC devices of issue 35 driven from the host side, with no guest
// code: PCI configuration mechanism #1 (CF8h/CFCh) and the functions behind it (i440FX
// with PAM and SMRAM, PIIX3 ISA bridge with PIRQ routing and ELCR, PIIX3 IDE with its
// bus master), the ATA disk and ATAPI CD-ROM, the 8237A pair, the 82077AA with a
// 1.44 MB floppy, the 8042's PS/2 mouse, the VGA (registers, planes, DISPI, the legacy
// window, the linear frame buffer and expansion ROM BARs). Arbitrary register values
// must never crash or hang the host: an escaping exception, a sanitizer report or a
// broken invariant (below) is a bug.
//
// Input: a sequence of 8-byte operations (a short tail is padded with zeros); some
// operations consume further bytes after their 8 (the burst, the PACKET, the FIFO):
//   [0] operation (modulo kOperations)   [1] selector   [2] offset / auxiliary byte
//   [3] bits 1:0 width (1, 2, 4, 4 bytes); other bits per operation   [4..7] value (LE)
// Operations:
//   port out / in       a port of the device ranges (kPortRanges[selector % n], offset
//                       [2] modulo the range's size; the bus master range is wherever
//                       the IDE function's BAR4 decodes), at the width
//   port repeated in    the same port read value & FFFh times (draining data blocks)
//   port burst out      [2] & 15 values of the width, from the bytes that follow
//   raw port out / in   any port [1] | [2] << 8
//   MMIO write / read   region [1] & 3: the A0000h window (128 KiB), the VGA's linear
//                       frame buffer (BAR0: its first 256 KiB, or with [3] bit 7 its
//                       last 64 KiB: video memory written high makes every snapshot of
//                       the input copy that much), its expansion ROM BAR (when decoded),
//                       C0000h-FFFFFh (PAM); offset [2] | [4] << 8 | [5] << 16, value
//                       [6] | [7] << 8 repeated
//   RAM write           dword value at ([1] | [2] << 8) * 4 (PRD tables, DMA buffers)
//   clock               advance (value & FFFFFh) << ([3] & 15) cycles, running events
//   INTA                when the 8259A pair's INT is asserted, an acknowledge cycle
//   PCI config          CONFIG_ADDRESS = device [1] & 3 (0-2: i440FX, PIIX3, VGA; 3:
//                       device [1] >> 2), function [3] >> 5, register [2] & FCh; then a
//                       CONFIG_DATA write (or, [3] bit 4, read) at + [2] & 3
//   ATA command         channel [1] & 1, DEV [1] bit 4, LBA [1] bit 6: Features [2],
//                       Sector Count, LBA low/mid/high [4..7]... command [3]
//   ATAPI PACKET        channel [1] & 1: Features [2] & 3, byte count [4..5], then
//                       PACKET (A0h) and the 12-byte command packet that follows
//   FDC FIFO            [1] & 15 bytes that follow, each written to the FIFO (3F5h)
//   media               floppy drive [1] & 1: eject ([2] bit 0) or insert its image
//   snapshot            a round trip of every device's state: save, check, load, save
//                       again; both saves must be the same bytes (the first of an
//                       input's snapshot operations; the others do nothing)
// Invariants after every operation: the PCI functions' read-only identification
// (vendor, device, class) and the reserved or fixed bits their data sheets give (BARs,
// PAM, SMRAM, PIRQRC). The snapshot operation's round trip is one too: the fuzzer
// puts it anywhere in an input (once, not after each operation or input: with the
// video memory the VGA holds, a round trip costs more than most inputs).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include "platform/devices/storage/ata_registers.h"
#include "platform/machine.h"
#include "platform/snapshot/machine_state.h"
#include "tests/fuzz/fuzz_bus.h"

namespace x86lab {
namespace {

constexpr unsigned kOperationBytes = 8, kMaxOperations = 512;
enum Operation : u8 {
  kPortOut, kPortIn, kPortRepeatIn, kPortBurst, kRawPortOut, kRawPortIn, kMmioWrite, kMmioRead, kRamWrite, kClock,
  kAcknowledge, kPciConfig, kAtaCommand, kAtapiPacket, kFdcFifo, kMedia, kSnapshot, kOperations
};

[[noreturn]] void fail(const char* what, unsigned value) {
  std::fprintf(stderr, "device_fuzzer: invariant broken: %s (%Xh)\n", what, value);
  std::abort();
}
void check(bool ok, const char* what, unsigned value = 0) {
  if (!ok) fail(what, value);
}

unsigned width(u8 code) {
  static constexpr unsigned kWidths[] = {1, 2, 4, 4};
  return kWidths[code & 3];
}

using fuzz::bus_read;
using fuzz::bus_write;

// The device port ranges (base, count). kBusMaster: the IDE function's BAR4.
struct PortRange {
  u16 base, count;
};
constexpr u16 kBusMaster = 0xFFFF;
constexpr PortRange kPortRanges[] = {
    {0x00, 16},         // 8237A DMA1 (channels 0-3)
    {0xC0, 32},         // 8237A DMA2 (channels 4-7)
    {0x80, 16},         // DMA page registers 81h-8Fh
    {0x1F0, 8},         // ATA primary command block
    {0x3F6, 1},         // ATA primary Alternate Status / Device Control
    {0x170, 8},         // ATA secondary command block
    {0x376, 1},         // ATA secondary Alternate Status / Device Control
    {kBusMaster, 16},   // PIIX3 IDE bus master (BMIBA)
    {0x3F0, 8},         // 82077AA (3F6h is the ATA's, the 82077AA ignores it)
    {0xCF8, 8},         // PCI CONFIG_ADDRESS, CF9h reset control, CONFIG_DATA
    {0x3C0, 32},        // VGA colour and attribute/sequencer/graphics/DAC
    {0x3B0, 16},        // VGA monochrome addressing
    {0x1CE, 4},         // VBE DISPI index and data
    {0x60, 5},          // 8042 data, port 61h, 8042 status/command (PS/2 mouse)
    {0x4D0, 2},         // PIIX3 ELCR1/ELCR2
    {0x20, 2},          // 8259A master
    {0xA0, 2},          // 8259A slave
};

u16 port_of(Machine& m, u8 selector, u8 offset) {
  const PortRange& range = kPortRanges[selector % std::size(kPortRanges)];
  u16 base = range.base;
  if (base == kBusMaster) {
    const PciFunction& ide = m.devices->ata.pci_function();
    base = static_cast<u16>(ide.bar_decoded_base(4) ? ide.bar_decoded_base(4) : ide.bar_base(4));
  }
  return static_cast<u16>(base + offset % range.count);
}

// PCI identification registers the data sheets fix: vendor/device (00h) and class
// code/revision (08h) of i440FX 00:00.0 (8086:1237, host bridge 060000h), PIIX3
// 00:01.0 (8086:7000, ISA bridge 060100h), PIIX3 IDE 00:01.1 (8086:7010, 010180h), and
// the VGA 00:02.0 (1234:1111, 030000h, the Bochs/QEMU standard VGA's IDs).
void check_invariants(Machine& m) {
  struct Id {
    pci::Address address;
    u32 ids, class_code;
  };
  static constexpr Id kIds[] = {{{0, 0}, 0x12378086, 0x060000},
                                {{1, 0}, 0x70008086, 0x060100},
                                {{1, 1}, 0x70108086, 0x010180},
                                {{2, 0}, 0x11111234, 0x030000}};
  for (const Id& id : kIds) {
    const PciFunction* f = m.devices->pci.function(id.address);
    check(f != nullptr, "the chipset's PCI functions stay plugged", id.address.device);
    check(f->config_dword(0) == id.ids, "PCI vendor and device ID are read-only", f->config_dword(0));
    check((f->config_dword(8) >> 8) == id.class_code, "PCI class code is read-only", f->config_dword(8));
  }
  check((m.devices->pci.config_address() & 0x7F000003u) == 0, "CONFIG_ADDRESS reserved bits 30:24, 1:0 read 0",
        m.devices->pci.config_address());
  // Header Type (0Eh): the PIIX3 is a multi-function device (80h), the others single.
  check(m.devices->isa_bridge.config_byte(0x0E) == 0x80, "PIIX3 header type 80h", m.devices->isa_bridge.config_byte(0x0E));
  // PCI Local Bus Specification 2.1, 6.2.5.1: an I/O BAR reads bit 0 = 1, the bits
  // below its size 0 (BMIBA, 16 bytes: bits 3:1); a memory BAR its type bits (3:0 =
  // 1000b: 32-bit prefetchable) and 0 below its size (16 MiB: bits 23:4). 6.2.5.2: the
  // expansion ROM BAR's bits 10:1 are reserved (0).
  const u32 bmiba = m.devices->ata.pci_function().config_dword(0x20);
  check((bmiba & 0xF) == 1, "PIIX3 IDE BMIBA bit 0 = 1, bits 3:1 = 0", bmiba);
  const u32 lfb = m.devices->vga_pci.config_dword(0x10);
  check((lfb & 0xFFFFFF) == 0x8, "VGA BAR0: prefetchable 32-bit memory, 16 MiB aligned", lfb);
  check((m.devices->vga_pci.config_dword(0x30) & 0x7FE) == 0, "expansion ROM BAR bits 10:1 read 0",
        m.devices->vga_pci.config_dword(0x30));
  // 82441FX data sheet 3.2 "PAM": PAM0 bits 3:0 and 7:6, PAM1-6 bits 3:2 and 7:6 are
  // reserved; "SMRAM" (72h): C_BASE_SEG (2:0) reads 010b, and with D_LCK set D_OPEN
  // reads 0.
  const I440fx& host = m.devices->host_bridge;
  check((host.config_byte(I440fx::kPam0) & 0xCF) == 0, "PAM0 reserved bits read 0", host.config_byte(I440fx::kPam0));
  for (u8 pam = 1; pam < 7; ++pam)
    check((host.config_byte(static_cast<u8>(I440fx::kPam0 + pam)) & 0xCC) == 0, "PAM1-6 reserved bits read 0", pam);
  const u8 smram = host.config_byte(I440fx::kSmram);
  check((smram & 0x87) == 0x02, "SMRAM C_BASE_SEG 010b, bit 7 reserved", smram);
  check(!(smram & I440fx::kSmramLock) || !(smram & I440fx::kSmramOpen), "SMRAM D_LCK forces D_OPEN to 0", smram);
  // 82371SB data sheet "PIRQRC[A:D]": bits 6:4 reserved (read 0).
  for (u8 pirq = 0; pirq < 4; ++pirq)
    check((m.devices->isa_bridge.config_byte(static_cast<u8>(0x60 + pirq)) & 0x70) == 0, "PIRQRC bits 6:4 read 0", pirq);
}

// Moves the clock forward by `cycles`, running the device events on their deadlines.
void advance(Machine& m, u64 cycles) {
  const u64 target = m.clock.now() + cycles;
  for (unsigned i = 0; i < 256; ++i) {
    const u64 next = std::min(target, m.clock.next_deadline());
    m.clock.advance_to(next);
    m.clock.run_due();
    if (m.clock.now() >= target) break;
  }
}

std::vector<u8> save_devices(Machine& m) {
  StateArchive save;
  m.devices->transfer_state(save);
  m.clock.transfer_state(save);
  return save.bytes();
}

// Save, check, load, save again: the device state must come back byte for byte.
void snapshot_round_trip(Machine& m) {
  const std::vector<u8> before = save_devices(m);
  for (const StateArchive::Mode mode : {StateArchive::Mode::Check, StateArchive::Mode::Load}) {
    StateArchive load(mode, before);
    m.devices->transfer_state(load);
    m.clock.transfer_state(load);
    load.expect_end("device state");
  }
  const std::vector<u8> after = save_devices(m);
  if (after != before) {
    std::size_t i = 0;
    while (i < std::min(before.size(), after.size()) && before[i] == after[i]) ++i;
    // Which device's section holds the byte: PcDevices::transfer_state's order.
    PcDevices& d = *m.devices;
    const std::pair<const char*, std::function<void(StateArchive&)>> parts[] = {
        {"pic", [&](StateArchive& a) { d.pic.transfer_state(a); }},
        {"pit", [&](StateArchive& a) { d.pit.transfer_state(a); }},
        {"port61", [&](StateArchive& a) { d.port61.transfer_state(a); }},
        {"rtc", [&](StateArchive& a) { d.rtc.transfer_state(a); }},
        {"com1", [&](StateArchive& a) { d.com1.transfer_state(a); }},
        {"com2", [&](StateArchive& a) { d.com2.transfer_state(a); }},
        {"8042", [&](StateArchive& a) { d.keyboard_controller.transfer_state(a); }},
        {"vga", [&](StateArchive& a) { d.vga.transfer_state(a); }},
        {"fpu_error", [&](StateArchive& a) { d.fpu_error.transfer_state(a); }},
        {"io_apic", [&](StateArchive& a) { d.io_apic.transfer_state(a); }},
        {"pm", [&](StateArchive& a) { d.pm.transfer_state(a); }},
        {"irq sources", [&](StateArchive& a) { std::array<u8, 16> s{}; a.array(s, "IRQ line sources", 0x1F); }},
        {"pci", [&](StateArchive& a) { d.pci.transfer_state(a); }},
        {"ata", [&](StateArchive& a) { d.ata.transfer_state(a); }},
        {"dma", [&](StateArchive& a) { d.dma.transfer_state(a); }},
        {"fdc", [&](StateArchive& a) { d.fdc.transfer_state(a); }},
    };
    std::size_t start = 0;
    for (const auto& [name, transfer] : parts) {
      StateArchive part;
      transfer(part);
      if (i < start + part.bytes().size()) {
        std::fprintf(stderr, "device_fuzzer: the first differing byte is %zu bytes into %s's state\n", i - start, name);
        break;
      }
      start += part.bytes().size();
    }
    fail("a snapshot round trip keeps every device's state (first differing byte)", static_cast<unsigned>(i));
  }
}

// The media: a 64 KiB ATA disk (hda), an ISO 9660 CD-ROM of 32 blocks (hdc) and a
// 1.44 MB floppy (A:), in a folder of their own under the host's temporary folder,
// opened with an overlay (MachineConfig::snapshot_disks) so the files never change,
// and removed once the machine holds them open.
struct Media {
  std::filesystem::path folder;
  Media() {
    folder = std::filesystem::temp_directory_path() / ("x86lab-device-fuzzer-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    write("disk.img", 64 * 1024, false);
    write("cd.iso", 32 * 2048, true);
    write("floppy.img", 1'474'560, false);
  }
  void remove() const {
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }
  std::string path(const char* name) const { return (folder / name).string(); }
  void write(const char* name, std::size_t bytes, bool iso) const {
    std::vector<u8> content(bytes);
    for (std::size_t i = 0; i < bytes; ++i) content[i] = static_cast<u8>(i / 512 * 7 + i);
    if (iso) {  // the primary volume descriptor's identifier (ISO 9660 8.4.2: "CD001" at 8001h)
      content[0x8000] = 1;
      for (int i = 0; i < 5; ++i) content[0x8001 + i] = static_cast<u8>("CD001"[i]);
    }
    std::ofstream(folder / name, std::ios::binary).write(reinterpret_cast<const char*>(content.data()),
                                                         static_cast<std::streamsize>(content.size()));
  }
};

// What a BIOS leaves before an input starts (the state the power-up snapshot holds), so
// an input reaches the data paths without first finding the set-up: the VGA's frame
// buffer BAR at E0000000h with memory decode on, the IDE bus master at C000h with I/O
// and bus mastering on, and DMA2 channel 4 in cascade mode and unmasked (8237A data
// sheet, "Cascade Mode": DMA1's channels 0-3 reach the bus through it).
void firmware_set_up(Machine& m) {
  const auto config = [&](unsigned device, unsigned function, u8 offset, unsigned bytes, u32 value) {
    m.ports.write(0xCF8, 4, 0x80000000u | device << 11 | function << 8 | (offset & 0xFCu));
    m.ports.write(static_cast<u16>(0xCFC + (offset & 3)), bytes, value);
  };
  config(2, 0, 0x10, 4, 0xE0000000u);
  config(2, 0, 0x04, 2, 0x0003);
  config(1, 1, 0x20, 4, 0xC001);
  config(1, 1, 0x04, 2, 0x0005);
  m.ports.write(0xCF8, 4, 0);
  m.ports.write(0xD6, 1, 0xC0);  // DMA2 mode: channel 4 cascade
  m.ports.write(0xD4, 1, 0x00);  // DMA2 single mask: unmask channel 4
}

struct Fixture {
  Media media;
  Machine* machine = nullptr;
  DiskImage* floppy = nullptr;
  std::vector<u8> power_up_devices, power_up_machine, power_up_clock;
};

// One machine for every input, its devices, clock and RAM put back into their power-up
// state (the snapshot sections taken after construction and firmware_set_up) before
// each: building a Machine (opening its images) costs far more than an input.
Machine& fresh_machine() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    MachineConfig config;
    config.memory_mib = 1;
    config.drives[0] = {f->media.path("disk.img"), false, "--hda"};
    config.drives[2] = {f->media.path("cd.iso"), true, "--cdrom"};
    config.floppy_paths[0] = f->media.path("floppy.img");
    config.floppy_types[0] = 4;
    config.snapshot_disks = true;
    f->machine = new Machine(config);
    f->floppy = f->machine->devices->fdc.image(0);
    firmware_set_up(*f->machine);
    const MachineState state = capture_machine_state(*f->machine);
    f->power_up_devices = state.devices;
    f->power_up_machine = state.machine;
    f->power_up_clock = state.clock;
    f->media.remove();
    return f;
  }();
  Machine& m = *fixture->machine;
  m.devices->fdc.insert(0, fixture->floppy);
  const auto load = [](const std::vector<u8>& bytes, auto transfer) {
    StateArchive archive(StateArchive::Mode::Load, bytes);
    transfer(archive);
    archive.expect_end("power-up state");
  };
  load(fixture->power_up_machine, [&](StateArchive& a) { m.transfer_state(a); });
  load(fixture->power_up_devices, [&](StateArchive& a) { m.devices->transfer_state(a); });
  load(fixture->power_up_clock, [&](StateArchive& a) { m.clock.transfer_state(a); });
  std::fill(m.bus.ram().begin(), m.bus.ram().end(), u8{0});
  return m;
}

// The floppy image the machine opened for drive A: (the media operation's insert).
DiskImage* floppy_image(Machine& m) {
  static DiskImage* const image = m.devices->fdc.image(0);
  return image;
}

// The operation's bytes after its 8 (burst values, a command packet): taken from the
// input, zeros past its end.
struct Input {
  const u8* data;
  std::size_t size, position = 0;
  u8 next() { return position < size ? data[position++] : (position++, u8{0}); }
  bool done() const { return position >= size; }
};

// X86LAB_FUZZ_TRACE set in the environment: every operation and what reads returned
// go to stderr (for reading a crashing input).
bool tracing() {
  static const bool on = std::getenv("X86LAB_FUZZ_TRACE") != nullptr;
  return on;
}
u32 traced_in(Machine& m, u16 port, unsigned bytes) {
  const u32 v = m.ports.read(port, bytes);
  if (tracing()) std::fprintf(stderr, "  in  %04Xh/%u -> %0*Xh\n", port, bytes, static_cast<int>(2 * bytes), v);
  return v;
}

void run(const u8* data, std::size_t size) {
  Machine& m = fresh_machine();
  DiskImage* const floppy = floppy_image(m);
  Input in{data, size};
  bool snapshot_taken = false;
  for (unsigned n = 0; n < kMaxOperations && !in.done(); ++n) {
    u8 op[kOperationBytes];
    for (u8& byte : op) byte = in.next();
    const unsigned bytes = width(op[3]);
    const u32 value = op[4] | u32{op[5]} << 8 | u32{op[6]} << 16 | u32{op[7]} << 24;
    if (tracing())
      std::fprintf(stderr, "op %u: %02X %02X %02X %02X value %08Xh\n", n, op[0] % kOperations, op[1], op[2], op[3], value);
    switch (static_cast<Operation>(op[0] % kOperations)) {
      case kPortOut: m.ports.write(port_of(m, op[1], op[2]), bytes, value); break;
      case kPortIn: (void)traced_in(m, port_of(m, op[1], op[2]), bytes); break;
      case kPortRepeatIn: {
        const u16 port = port_of(m, op[1], op[2]);
        u32 last = 0;
        for (u32 i = 0; i < (value & 0xFFF); ++i) last = m.ports.read(port, bytes);
        if (tracing()) std::fprintf(stderr, "  %u reads of %04Xh, the last %Xh\n", value & 0xFFF, port, last);
        break;
      }
      case kPortBurst: {
        const u16 port = port_of(m, op[1], op[2]);
        for (unsigned i = 0; i < (op[2] & 15u); ++i) {
          u32 v = 0;
          for (unsigned b = 0; b < bytes; ++b) v |= u32{in.next()} << 8 * b;
          m.ports.write(port, bytes, v);
        }
        break;
      }
      case kRawPortOut: m.ports.write(static_cast<u16>(op[1] | op[2] << 8), bytes, value); break;
      case kRawPortIn: (void)traced_in(m, static_cast<u16>(op[1] | op[2] << 8), bytes); break;
      case kMmioWrite:
      case kMmioRead: {
        const u32 offset = op[2] | u32{op[4]} << 8 | u32{op[5]} << 16;
        const PciFunction& vga = m.devices->vga_pci;
        u32 address = 0;
        switch (op[1] & 3) {
          case 0: address = Vga::kWindowBase + offset % Vga::kWindowBytes; break;
          case 1: {  // the first 256 KiB, or ([3] bit 7) the last 64 KiB of the 16 MiB
            const u32 lfb = vga.bar_decoded_base(0) ? vga.bar_decoded_base(0) : vga.bar_base(0);
            address = lfb + (op[3] & 0x80 ? Vga::kVramBytes - 0x10000 + (offset & 0xFFFF) : offset % 0x40000);
            break;
          }
          case 2: address = vga.expansion_rom_decoded_base() + (offset & 0xFFFF); break;
          default: address = 0xC0000 + offset % 0x40000; break;
        }
        const u32 v = op[6] | u32{op[7]} << 8;
        if (op[0] % kOperations == kMmioWrite) bus_write(m, address, bytes, v | v << 16);
        else if (const u32 v = bus_read(m, address, bytes); tracing())
          std::fprintf(stderr, "  read %08Xh -> %Xh\n", address, v);
        break;
      }
      case kRamWrite: {
        const u32 address = (op[1] | u32{op[2]} << 8) * 4 % m.bus.ram_bytes();
        m.bus.write<u32>(address, value, AccessKind::Data);
        break;
      }
      case kClock: advance(m, u64{value & 0xFFFFF} << (op[3] & 15)); break;
      case kAcknowledge:
        if (m.devices->pic.interrupt_pending()) (void)m.devices->pic.acknowledge();
        break;
      case kPciConfig: {
        const u32 device = (op[1] & 3) == 3 ? op[1] >> 2 & 31 : op[1] & 3;
        m.ports.write(0xCF8, 4, 0x80000000u | device << 11 | (u32{op[3]} >> 5) << 8 | (op[2] & 0xFCu));
        const u16 port = static_cast<u16>(0xCFC + (op[2] & 3));
        if (op[3] & 0x10) (void)traced_in(m, port, bytes);
        else m.ports.write(port, bytes, value);
        break;
      }
      case kAtaCommand: {
        const u16 base = op[1] & 1 ? 0x170 : 0x1F0;
        m.ports.write(base + 6, 1, 0xA0u | (op[1] & 0x50u) | (op[7] >> 4));
        m.ports.write(base + 1, 1, op[2]);
        for (unsigned r = 0; r < 4; ++r) m.ports.write(base + 2 + r, 1, op[4 + r]);
        m.ports.write(base + 7, 1, op[3]);
        break;
      }
      case kAtapiPacket: {
        const u16 base = op[1] & 1 ? 0x170 : 0x1F0;
        m.ports.write(base + 1, 1, op[2] & 3u);
        m.ports.write(base + 4, 1, op[4]);
        m.ports.write(base + 5, 1, op[5]);
        m.ports.write(base + 7, 1, 0xA0);
        for (unsigned w = 0; w < 6; ++w) {
          const u8 low = in.next();
          m.ports.write(base, 2, low | u32{in.next()} << 8);
        }
        break;
      }
      case kFdcFifo:
        for (unsigned i = 0; i < (op[1] & 15u); ++i) m.ports.write(0x3F5, 1, in.next());
        break;
      case kMedia: m.devices->fdc.insert(op[1] & 1, op[2] & 1 || (op[1] & 1) ? nullptr : floppy); break;
      case kSnapshot:  // once per input: with the video memory in it, a round trip costs more than most inputs
        if (!snapshot_taken) snapshot_round_trip(m);
        snapshot_taken = true;
        break;
      case kOperations: break;
    }
    check_invariants(m);
  }
}

}  // namespace
}  // namespace x86lab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  x86lab::run(data, size);
  return 0;
}
