// The VGA's registers and memory as the IBM VGA Technical Reference describes them
// ("Graphics Controller Registers": write modes 0-3, read modes 0-1, set/reset, data
// rotate, bit mask; "Sequencer Registers": map mask, memory mode; "Attribute
// Controller Registers"; "Video DAC"; "CRT Controller Registers": the protect bit),
// the mode 3 timings of its BIOS mode table, the Bochs VBE interface, and the text
// renderer against a reference built here from the font and the 16 text colours.
#include "platform/devices/vga/vga.h"

#include <gtest/gtest.h>

#include "platform/devices/vga/vga_pci.h"
#include "platform/machine.h"

namespace x86lab {
namespace {

struct VgaTest : ::testing::Test {
  MachineConfig config;
  Machine machine{config};
  Vga& vga = machine.devices->vga;

  void out(u16 port, u8 value) { machine.ports.write(port, 1, value); }
  u8 in(u16 port) { return static_cast<u8>(machine.ports.read(port, 1)); }
  void sequencer(u8 index, u8 value) { out(0x3C4, index), out(0x3C5, value); }
  void graphics(u8 index, u8 value) { out(0x3CE, index), out(0x3CF, value); }
  void mem_write(u32 address, u8 value) { machine.bus.write<u8>(address, value, AccessKind::Data); }
  u8 mem_read(u32 address) { return machine.bus.read<u8>(address, AccessKind::Data); }
  // Planar graphics addressing: A0000h 64K, no chain-4, no odd/even, all planes.
  void planar() {
    graphics(6, 0x05);
    graphics(5, 0x00);
    sequencer(4, 0x06);
    sequencer(2, 0x0F);
  }
  // Fills plane p at plane address `address` with values[p] (through the map mask).
  void fill(u32 address, std::array<u8, 4> values) {
    for (unsigned p = 0; p < 4; ++p) {
      sequencer(2, static_cast<u8>(1u << p));
      mem_write(0xA0000 + address, values[p]);
    }
    sequencer(2, 0x0F);
  }
  std::array<u8, 4> planes(u32 address) {
    return {vga.plane_byte(0, address), vga.plane_byte(1, address), vga.plane_byte(2, address), vga.plane_byte(3, address)};
  }
};

TEST_F(VgaTest, PowerUpIsMode3ColourText) {
  EXPECT_EQ(in(0x3CC), 0x67) << "misc output: colour addressing, 28 MHz clock, RAM enabled";
  out(0x3D4, 0x01);
  EXPECT_EQ(in(0x3D5), 0x4F) << "80 characters";
  out(0x3CE, 0x06);
  EXPECT_EQ(in(0x3CF), 0x0E) << "text, chain odd/even, B8000h 32K";
  EXPECT_EQ(in(0x3B5), 0xFF) << "the monochrome CRTC ports are not decoded while colour is selected";
  const VgaScreen screen = vga.render();
  EXPECT_EQ(screen.width, 720u);
  EXPECT_EQ(screen.height, 400u);
}

TEST_F(VgaTest, WriteMode0AppliesSetResetAndTheBitMaskAgainstTheLatches) {
  planar();
  fill(0, {0x3C, 0x3C, 0x3C, 0x3C});
  mem_read(0xA0000);  // loads the latches
  graphics(0, 0x05);  // set/reset: planes 0 and 2 ones
  graphics(1, 0x0F);  // enable set/reset on every plane
  graphics(8, 0xF0);  // bit mask: the high nibble from the data, the low from the latches
  mem_write(0xA0000, 0x00);
  EXPECT_EQ(planes(0), (std::array<u8, 4>{0xFC, 0x0C, 0xFC, 0x0C}));
}

TEST_F(VgaTest, WriteMode0RotatesAndCombinesWithXor) {
  planar();
  fill(1, {0x3C, 0x3C, 0x3C, 0x3C});
  mem_read(0xA0001);
  graphics(3, 0x18 | 4);  // XOR, rotate right by 4
  mem_write(0xA0001, 0x0F);  // rotated: F0h; F0h XOR 3Ch = CCh
  EXPECT_EQ(planes(1), (std::array<u8, 4>{0xCC, 0xCC, 0xCC, 0xCC}));
}

TEST_F(VgaTest, WriteMode1CopiesTheLatches) {
  planar();
  fill(2, {0x11, 0x22, 0x33, 0x44});
  mem_read(0xA0002);
  graphics(5, 0x01);
  graphics(8, 0x00);  // the bit mask does not apply in write mode 1
  mem_write(0xA0040, 0xAA);  // the data is ignored
  EXPECT_EQ(planes(0x40), (std::array<u8, 4>{0x11, 0x22, 0x33, 0x44}));
}

TEST_F(VgaTest, WriteMode2ExpandsTheDataBitsToPlanes) {
  planar();
  fill(3, {0x00, 0xFF, 0x00, 0xFF});
  mem_read(0xA0003);
  graphics(5, 0x02);
  graphics(8, 0x81);
  mem_write(0xA0003, 0x09);  // colour 9: planes 0 and 3
  EXPECT_EQ(planes(3), (std::array<u8, 4>{0x81, 0x7E, 0x00, 0xFF}));
}

TEST_F(VgaTest, WriteMode3UsesTheRotatedDataAsABitMask) {
  planar();
  fill(4, {0x00, 0x00, 0xFF, 0xFF});
  mem_read(0xA0004);
  graphics(5, 0x03);
  graphics(0, 0x06);  // set/reset colour 6: planes 1 and 2
  graphics(8, 0xF0);
  mem_write(0xA0004, 0x3C);  // mask = 3Ch AND F0h = 30h
  EXPECT_EQ(planes(4), (std::array<u8, 4>{0x00, 0x30, 0xFF, 0xCF}));
}

TEST_F(VgaTest, ReadMode0ReturnsTheReadMapSelectPlane) {
  planar();
  fill(5, {0x12, 0x34, 0x56, 0x78});
  graphics(4, 2);
  EXPECT_EQ(mem_read(0xA0005), 0x56);
  EXPECT_EQ(vga.latch(3), 0x78) << "the read loaded all four latches";
}

TEST_F(VgaTest, ReadMode1ComparesColoursWhereDontCareIncludesThePlane) {
  planar();
  fill(6, {0xF0, 0xCC, 0xAA, 0x00});
  graphics(5, 0x08);
  graphics(2, 0x05);  // colour 5
  graphics(7, 0x0F);
  EXPECT_EQ(mem_read(0xA0006), 0x20) << "F0h AND NOT CCh AND AAh AND NOT 00h";
  graphics(7, 0x01);  // only plane 0 compared
  EXPECT_EQ(mem_read(0xA0006), 0xF0);
  graphics(7, 0x00);
  EXPECT_EQ(mem_read(0xA0006), 0xFF) << "nothing compared: every bit matches";
}

TEST_F(VgaTest, Chain4SelectsThePlaneByTheLowAddressBits) {
  graphics(6, 0x05);
  graphics(5, 0x40);
  sequencer(4, 0x0E);  // chain-4, sequential
  sequencer(2, 0x0F);  // every plane enabled (mode 3 left 03h)
  for (u8 i = 0; i < 5; ++i) mem_write(0xA0000 + i, static_cast<u8>(0x11 * (i + 1)));
  EXPECT_EQ(planes(0), (std::array<u8, 4>{0x11, 0x22, 0x33, 0x44}));
  EXPECT_EQ(vga.plane_byte(0, 4), 0x55) << "byte 4 is plane 0 again, plane address 4";
  EXPECT_EQ(mem_read(0xA0002), 0x33);
}

TEST_F(VgaTest, OddEvenPutsCharactersInPlane0AndAttributesInPlane1) {
  mem_write(0xB8000, 'A');
  mem_write(0xB8001, 0x1F);
  mem_write(0xB8002, 'B');
  EXPECT_EQ(vga.plane_byte(0, 0), 'A');
  EXPECT_EQ(vga.plane_byte(1, 0), 0x1F);
  EXPECT_EQ(vga.plane_byte(0, 2), 'B');
  EXPECT_EQ(mem_read(0xB8001), 0x1F);
  EXPECT_EQ(machine.bus.peek(0xB8002), 'B') << "the debugger sees the text";
}

TEST_F(VgaTest, MemoryMapSelectDecidesWhatTheWindowDecodes) {
  graphics(6, 0x0C);  // B8000h 32K
  EXPECT_EQ(mem_read(0xA0000), 0xFF);
  mem_write(0xA0000, 0x12);
  graphics(6, 0x04);  // A0000h 64K
  sequencer(4, 0x06);
  graphics(5, 0x00);
  graphics(4, 0);
  EXPECT_EQ(mem_read(0xA0000), 0x00) << "the write while unmapped was dropped";
  EXPECT_EQ(mem_read(0xB8000), 0xFF);
  graphics(6, 0x00);  // A0000h 128K
  mem_write(0xB0010, 0x5A);
  EXPECT_EQ(vga.plane_byte(0, 0x10010 % Vga::kPlaneBytes), 0x5A);
}

TEST_F(VgaTest, DacIndexAdvancesAfterEveryThirdComponent) {
  out(0x3C8, 5);
  for (u8 v : {1, 2, 3, 4, 5, 0x7F}) out(0x3C9, v);
  EXPECT_EQ(in(0x3C8), 7);
  EXPECT_EQ(vga.dac(6, 2), 0x3F) << "six-bit components";
  EXPECT_EQ(in(0x3C7) & 3, 0) << "DAC state: write mode";
  out(0x3C7, 5);
  EXPECT_EQ(in(0x3C7) & 3, 3) << "DAC state: read mode";
  std::array<u8, 6> read{};
  for (u8& v : read) v = in(0x3C9);
  EXPECT_EQ(read, (std::array<u8, 6>{1, 2, 3, 4, 5, 0x3F}));
}

TEST_F(VgaTest, DacWriteTakesEffectAfterBlue) {
  out(0x3C8, 0x38);
  out(0x3C9, 0x3F);
  out(0x3C9, 0x3F);
  EXPECT_EQ(vga.dac(0x38, 0), 0x15) << "entry 38h (dark grey) unchanged until its blue arrives";
  out(0x3C9, 0x3F);
  EXPECT_EQ(vga.dac(0x38, 0), 0x3F);
}

TEST_F(VgaTest, ReadingInputStatus1ResetsTheAttributeFlipFlop) {
  in(0x3DA);
  out(0x3C0, 0x10);  // index: mode control (palette address source clear)
  out(0x3C0, 0x01);  // data
  EXPECT_EQ(vga.attribute(0x10), 0x01);
  out(0x3C0, 0x31);  // index again: overscan, palette address source set
  in(0x3DA);         // back to index
  out(0x3C0, 0x32);  // index: colour plane enable
  out(0x3C0, 0x07);
  EXPECT_EQ(vga.attribute(0x12), 0x07);
  EXPECT_EQ(vga.attribute(0x11), 0x00) << "the overscan register was never given data";
  EXPECT_EQ(in(0x3C0), 0x32);
}

TEST_F(VgaTest, CrtcProtectBitGuardsRegisters0To7ExceptLineCompareBit8) {
  out(0x3D4, 0x00);
  out(0x3D5, 0x12);
  EXPECT_EQ(vga.crtc(0x00), 0x5F) << "protected at power-up (11h = 8Eh)";
  out(0x3D4, 0x07);
  out(0x3D5, 0x00);
  EXPECT_EQ(vga.crtc(0x07), 0x0F) << "1Fh with only bit 4 written";
  out(0x3D4, 0x11);
  out(0x3D5, 0x0E);
  out(0x3D4, 0x00);
  out(0x3D5, 0x12);
  EXPECT_EQ(vga.crtc(0x00), 0x12);
}

TEST_F(VgaTest, VerticalRetraceFollowsTheMode3Timing) {
  // Mode 3: 28.322 MHz dot clock, 900 dots a line (31.47 kHz), 449 lines a frame
  // (70.09 Hz); vertical retrace on lines 412-413, display on lines 0-399.
  EXPECT_EQ(in(0x3DA) & 0x09, 0x00) << "line 0, dot 0: display enabled";
  machine.clock.advance_to(machine.clock.cycle_of_tick(412 * 900 + 10, 28'322'000));
  EXPECT_EQ(in(0x3DA) & 0x09, 0x09);
  machine.clock.advance_to(machine.clock.cycle_of_tick(449 * 900 + 10, 28'322'000));
  EXPECT_EQ(in(0x3DA) & 0x09, 0x00) << "the next frame's first line";
  EXPECT_EQ(vga.frame_count(), 1u);
  machine.clock.advance_to(machine.clock.cycle_of_tick(449 * 900 + 800, 28'322'000));
  EXPECT_EQ(in(0x3DA) & 0x09, 0x01) << "horizontal blanking";
}

TEST_F(VgaTest, DispiIdentifiesAndReportsItsCapabilities) {
  machine.ports.write(0x1CE, 2, Vga::kDispiId);
  machine.ports.write(0x1CF, 2, 0xB0C0);
  EXPECT_EQ(machine.ports.read(0x1CF, 2), 0xB0C0u);
  machine.ports.write(0x1CF, 2, 0x1234);
  EXPECT_EQ(machine.ports.read(0x1CF, 2), 0xB0C0u) << "not an interface version";
  machine.ports.write(0x1CE, 2, Vga::kDispiVideoMemory64k);
  EXPECT_EQ(machine.ports.read(0x1CF, 2), 256u) << "16 MiB";
  machine.ports.write(0x1CE, 2, Vga::kDispiEnable);
  machine.ports.write(0x1CF, 2, Vga::kDispiGetCaps);
  machine.ports.write(0x1CE, 2, Vga::kDispiBpp);
  EXPECT_EQ(machine.ports.read(0x1CF, 2), 32u);
}

TEST_F(VgaTest, DispiModeDrawsTheBankedWindowAndTheLinearFrameBuffer) {
  const auto dispi = [&](u16 index, u16 value) {
    machine.ports.write(0x1CE, 2, index);
    machine.ports.write(0x1CF, 2, value);
  };
  dispi(Vga::kDispiXres, 64);
  dispi(Vga::kDispiYres, 48);
  dispi(Vga::kDispiBpp, 32);
  dispi(Vga::kDispiEnable, Vga::kDispiEnabled | Vga::kDispiLfbEnabled);
  EXPECT_EQ(vga.dispi(Vga::kDispiVirtWidth), 64);
  dispi(Vga::kDispiBank, 0);
  mem_write(0xA0000 + 4 * 3, 0x30);      // pixel (3, 0): blue
  mem_write(0xA0000 + 4 * 3 + 2, 0xC0);  // red
  vga.linear_frame_buffer().write(4 * (64 * 2 + 1) + 1, 1, 0x7F);  // pixel (1, 2): green
  const VgaScreen screen = vga.render();
  ASSERT_EQ(screen.width, 64u);
  ASSERT_EQ(screen.height, 48u);
  EXPECT_EQ(screen.rgb[3 * 3 + 0], 0xC0);
  EXPECT_EQ(screen.rgb[3 * 3 + 2], 0x30);
  EXPECT_EQ(screen.rgb[(2 * 64 + 1) * 3 + 1], 0x7F);
}

// The text renderer against a reference computed here: each cell's glyph row from the
// font in plane 2 (32 bytes a character), foreground where a bit is set, the ninth dot
// a copy of the eighth for C0h-DFh, and the 16 colours of the IBM text palette.
TEST_F(VgaTest, TextScreenRendersAsTheFontAndTheTextPalette) {
  constexpr u8 kTextColours[16][3] = {{0, 0, 0},     {0, 0, 170},    {0, 170, 0},    {0, 170, 170},
                                      {170, 0, 0},   {170, 0, 170},  {170, 85, 0},   {170, 170, 170},
                                      {85, 85, 85},  {85, 85, 255},  {85, 255, 85},  {85, 255, 255},
                                      {255, 85, 85}, {255, 85, 255}, {255, 255, 85}, {255, 255, 255}};
  out(0x3D4, 0x0A);
  out(0x3D5, 0x20);  // cursor off
  for (unsigned cell = 0; cell < 80 * 25; ++cell) {
    mem_write(0xB8000 + 2 * cell, static_cast<u8>(cell * 7));
    mem_write(0xB8001 + 2 * cell, static_cast<u8>((cell * 13) & 0x7F));
  }
  const VgaScreen screen = vga.render();
  ASSERT_EQ(screen.width, 720u);
  ASSERT_EQ(screen.height, 400u);
  u64 mismatches = 0, lit = 0;
  for (unsigned y = 0; y < 400; ++y)
    for (unsigned x = 0; x < 720; ++x) {
      const unsigned cell = (y / 16) * 80 + x / 9, dot = x % 9, line = y % 16;
      const u8 character = static_cast<u8>(cell * 7), attribute = static_cast<u8>((cell * 13) & 0x7F);
      const u8 glyph = vga.plane_byte(2, character * 32u + line);
      const bool on = dot < 8 ? (glyph >> (7 - dot)) & 1 : character >= 0xC0 && character <= 0xDF && (glyph & 1);
      lit += on;
      const u8* expected = kTextColours[on ? attribute & 15 : attribute >> 4];
      const u8* got = &screen.rgb[(y * 720 + x) * 3];
      mismatches += got[0] != expected[0] || got[1] != expected[1] || got[2] != expected[2];
    }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(lit, 20'000u) << "the power-up font is in plane 2";
  // An FNV-1a hash of the pixels, so that a change of the picture shows in one number.
  u64 hash = 0xCBF29CE484222325ull;
  for (u8 byte : screen.rgb) hash = (hash ^ byte) * 0x100000001B3ull;
  RecordProperty("pixel_hash", std::to_string(hash));
}

TEST_F(VgaTest, SnapshotKeepsRegistersAndVideoMemory) {
  mem_write(0xB8000, 'Z');
  out(0x3C8, 1);
  for (u8 v : {9, 8, 7}) out(0x3C9, v);
  StateArchive save;
  vga.transfer_state(save);
  mem_write(0xB8000, 'Q');
  out(0x3C8, 1);
  for (u8 v : {1, 1, 1}) out(0x3C9, v);
  StateArchive load(StateArchive::Mode::Load, save.bytes());
  vga.transfer_state(load);
  load.expect_end("vga");
  EXPECT_EQ(vga.plane_byte(0, 0), 'Z');
  EXPECT_EQ(vga.dac(1, 0), 9);
}

TEST(VgaPci, HeaderBarAndExpansionRom) {
  MachineConfig config;
  Machine machine(config);
  std::vector<u8> rom(0x9000, 0);
  rom[0] = 0x55;
  rom[1] = 0xAA;
  rom[0x8FFF] = 0x42;
  VgaPciFunction function(machine.devices->vga, rom);
  EXPECT_EQ(function.config_dword(0x00), 0x11111234u);
  EXPECT_EQ(function.config_dword(0x08) >> 8, 0x030000u);
  function.config_write(0x10, 4, 0xFFFFFFFF);
  EXPECT_EQ(function.config_dword(0x10), 0xFF000008u) << "16 MiB, prefetchable 32-bit memory";
  function.config_write(0x30, 4, 0xFFFFFFFF);
  EXPECT_EQ(function.config_dword(0x30), 0xFFFF0001u) << "a 64 KiB ROM (36 KiB image rounded up), enable bit";
  function.plug(machine.ports, machine.bus, nullptr);
  function.config_write(0x10, 4, 0xE0000000);
  function.config_write(0x30, 4, 0xFEB00001);
  function.config_write(0x04, 2, pci::kCommandMemory);
  EXPECT_EQ(function.bar_decoded_base(0), 0xE0000000u);
  EXPECT_EQ(function.expansion_rom_decoded_base(), 0xFEB00000u);
  EXPECT_EQ(machine.bus.read<u8>(0xFEB00001, AccessKind::Data), 0xAA);
  EXPECT_EQ(machine.bus.read<u8>(0xFEB08FFF, AccessKind::Data), 0x42);
  machine.bus.write<u32>(0xE0000000, 0x00112233, AccessKind::Data);
  EXPECT_EQ(machine.devices->vga.vram()[1], 0x22);
  function.config_write(0x30, 4, 0xFEB00000);  // enable bit clear
  EXPECT_EQ(function.expansion_rom_decoded_base(), 0u);
  EXPECT_EQ(machine.bus.read<u8>(0xFEB00001, AccessKind::Data), 0xFF) << "open bus again";
}

}  // namespace
}  // namespace x86lab
