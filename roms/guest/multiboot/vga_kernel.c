/* A Multiboot kernel that draws one screen, chosen by its command line, by programming
 * the VGA's registers itself (no BIOS call), then prints "vga_kernel: ready" on the
 * debug console (port E9h) and leaves through the exit port with 10h. The peer test
 * (tests/boot/vga_peer.sh) boots it under x86lab and qemu-system-i386 -vga std and
 * compares the two screendumps pixel for pixel.
 *   screen=text  80x25 text in the mode the machine starts in (a BIOS's mode 3)
 *   screen=12    mode 12h, 640x480 16 colours: write modes 0, 2 and 3
 *   screen=13    mode 13h, 320x200 256 colours through chain-4
 *   screen=vbe   a Bochs VBE (DISPI) mode, 320x240 32 bpp through the banked window
 *   screen=lfb   a Bochs VBE (DISPI) mode, 640x480 8 bpp through the DAC, drawn through
 *                the linear frame buffer at the PCI function's BAR0 (what a VESA BIOS's
 *                mode with the LFB bit gives)
 * Register values: the standard VGA mode tables (IBM VGA Technical Reference, "BIOS
 * video modes"); DISPI: the Bochs VBE interface (ports 1CEh/1CFh). */
#include <stdint.h>

#include "guest_io.h"

void irq0_handler(void) {}
void spurious7_handler(void) {}
void unexpected_handler(void) { guest_exit(0x11); }

static volatile uint8_t* const window = (volatile uint8_t*)0xA0000;

static void debug_print(const char* s) {
  while (*s) outb(0xE9, (uint8_t)*s++);
}
static void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }

/* The general, sequencer, CRTC, graphics and attribute registers of one mode. */
struct VgaMode {
  uint8_t misc, sequencer[5], crtc[25], graphics[9], attribute[21];
};

static const struct VgaMode kMode12 = {
    0xE3,
    {0x03, 0x01, 0x0F, 0x00, 0x06},
    {0x5F, 0x4F, 0x50, 0x82, 0x54, 0x80, 0x0B, 0x3E, 0x00, 0x40, 0x00, 0x00, 0x00,
     0x00, 0x00, 0x00, 0xEA, 0x8C, 0xDF, 0x28, 0x00, 0xE7, 0x04, 0xE3, 0xFF},
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x0F, 0xFF},
    {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x14, 0x07, 0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F,
     0x01, 0x00, 0x0F, 0x00, 0x00}};

static const struct VgaMode kMode13 = {
    0x63,
    {0x03, 0x01, 0x0F, 0x00, 0x0E},
    {0x5F, 0x4F, 0x50, 0x82, 0x54, 0x80, 0xBF, 0x1F, 0x00, 0x41, 0x00, 0x00, 0x00,
     0x00, 0x00, 0x00, 0x9C, 0x8E, 0x8F, 0x28, 0x40, 0x96, 0xB9, 0xA3, 0xFF},
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x05, 0x0F, 0xFF},
    {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
     0x41, 0x00, 0x0F, 0x00, 0x00}};

static void set_mode(const struct VgaMode* m) {
  outb(0x3C2, m->misc);
  outb(0x3C4, 0x00);
  outb(0x3C5, 0x01); /* synchronous reset while the clocking changes */
  for (uint8_t i = 1; i < 5; ++i) {
    outb(0x3C4, i);
    outb(0x3C5, m->sequencer[i]);
  }
  outb(0x3C4, 0x00);
  outb(0x3C5, 0x03);
  outb(0x3D4, 0x11);
  outb(0x3D5, m->crtc[0x11] & 0x7F); /* the protect bit off, so that 00h-07h take */
  for (uint8_t i = 0; i < 25; ++i) {
    outb(0x3D4, i);
    outb(0x3D5, i == 0x11 ? (m->crtc[i] & 0x7F) : m->crtc[i]);
  }
  for (uint8_t i = 0; i < 9; ++i) {
    outb(0x3CE, i);
    outb(0x3CF, m->graphics[i]);
  }
  (void)inb(0x3DA); /* attribute flip-flop to "index" */
  for (uint8_t i = 0; i < 21; ++i) {
    outb(0x3C0, i);
    outb(0x3C0, m->attribute[i]);
  }
  outb(0x3C0, 0x20); /* palette address source: the screen shows again */
}

static void graphics(uint8_t index, uint8_t value) {
  outb(0x3CE, index);
  outb(0x3CF, value);
}

/* DAC entries 0-255 with a palette of this kernel's own (6-bit components). */
static void load_dac(void) {
  outb(0x3C8, 0);
  for (unsigned i = 0; i < 256; ++i) {
    outb(0x3C9, (uint8_t)(i & 0x3F));
    outb(0x3C9, (uint8_t)((i * 5 + 7) & 0x3F));
    outb(0x3C9, (uint8_t)((63 - (i >> 2)) & 0x3F));
  }
}

static void draw_mode12(void) {
  set_mode(&kMode12);
  load_dac();
  /* Clear with write mode 0 and set/reset 0 on every plane. */
  graphics(1, 0x0F);
  graphics(0, 0x00);
  for (unsigned i = 0; i < 80 * 480; ++i) window[i] = 0;
  graphics(1, 0x00);
  /* Bands with write mode 2: the colour (x / 8 + y / 16) & 15, the bit mask choosing
   * every other pixel pair on odd lines. */
  graphics(5, 0x02);
  for (unsigned y = 0; y < 480; ++y)
    for (unsigned x = 0; x < 80; ++x) {
      graphics(8, (y & 1) ? 0xCC : 0xFF);
      (void)window[y * 80 + x]; /* load the latches */
      window[y * 80 + x] = (uint8_t)((x + y / 16) & 15);
    }
  /* A diagonal in colour 15 with write mode 0, enable set/reset and the bit mask. */
  graphics(5, 0x00);
  graphics(1, 0x0F);
  graphics(0, 0x0F);
  for (unsigned y = 0; y < 480; ++y) {
    const unsigned x = y + 80;
    graphics(8, (uint8_t)(0x80 >> (x & 7)));
    (void)window[y * 80 + x / 8];
    window[y * 80 + x / 8] = 0xFF;
  }
  /* A box in colour 4 with write mode 3 (the rotated data is the bit mask), XOR. */
  graphics(5, 0x03);
  graphics(0, 0x04);
  graphics(8, 0xFF);
  graphics(3, 0x18);
  for (unsigned y = 100; y < 200; ++y)
    for (unsigned x = 20; x < 40; ++x) {
      (void)window[y * 80 + x];
      window[y * 80 + x] = 0x3C;
    }
  graphics(3, 0x00);
  graphics(5, 0x00);
  graphics(1, 0x00);
  graphics(8, 0xFF);
}

static void draw_mode13(void) {
  set_mode(&kMode13);
  load_dac();
  for (unsigned y = 0; y < 200; ++y)
    for (unsigned x = 0; x < 320; ++x) window[y * 320 + x] = (uint8_t)((x ^ y) + (y >> 3));
}

static void dispi(uint16_t index, uint16_t value) {
  outw(0x1CE, index);
  outw(0x1CF, value);
}

static void draw_vbe(void) {
  outw(0x1CE, 0);
  outw(0x1CF, 0xB0C5);
  dispi(4, 0);     /* ENABLE: off while the mode changes */
  dispi(1, 320);   /* XRES */
  dispi(2, 240);   /* YRES */
  dispi(3, 32);    /* BPP */
  dispi(4, 0x01);  /* ENABLED (memory cleared) */
  graphics(6, 0x05);
  uint16_t bank = 0xFFFF;
  for (uint32_t y = 0; y < 240; ++y)
    for (uint32_t x = 0; x < 320; ++x) {
      const uint32_t at = (y * 320 + x) * 4;
      if (bank != (uint16_t)(at >> 16)) { /* BANK: the 64 KiB window at A0000h (a switch is slow in QEMU) */
        bank = (uint16_t)(at >> 16);
        dispi(5, bank);
      }
      volatile uint8_t* p = window + (at & 0xFFFF);
      p[0] = (uint8_t)(x * y);          /* blue */
      p[1] = (uint8_t)y;                /* green */
      p[2] = (uint8_t)x;                /* red */
    }
}

static void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }
static uint32_t inl(uint16_t port) {
  uint32_t v;
  __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}
/* PCI configuration mechanism #1 on bus 0 (PCI Local Bus Specification 2.2, 3.2.2.3.2). */
static uint32_t pci_read(uint32_t device, uint32_t offset) {
  outl(0xCF8, 0x80000000u | device << 11 | offset);
  return inl(0xCFC);
}
static void pci_write(uint32_t device, uint32_t offset, uint32_t value) {
  outl(0xCF8, 0x80000000u | device << 11 | offset);
  outl(0xCFC, value);
}

/* The linear frame buffer: BAR0 of the 1234:1111 function, where the BIOS put it
 * (QEMU's SeaBIOS runs before -kernel); unassigned (x86lab's --kernel runs no BIOS), the
 * kernel puts it at E0000000h. Memory space decoding on (Command bit 1). */
static volatile uint8_t* find_lfb(void) {
  for (uint32_t device = 0; device < 32; ++device) {
    if (pci_read(device, 0x00) != 0x11111234u) continue;
    uint32_t base = pci_read(device, 0x10) & ~0xFu;
    if (!base) {
      base = 0xE0000000u;
      pci_write(device, 0x10, base);
    }
    pci_write(device, 0x04, (pci_read(device, 0x04) & 0xFFFFu) | 0x02u);
    return (volatile uint8_t*)base;
  }
  debug_print("vga_kernel: no 1234:1111 display controller\n");
  guest_exit(0x11);
}

static void draw_lfb(void) {
  volatile uint8_t* const lfb = find_lfb();
  outw(0x1CE, 0);
  outw(0x1CF, 0xB0C5);
  dispi(4, 0);     /* ENABLE: off while the mode changes */
  dispi(1, 640);   /* XRES */
  dispi(2, 480);   /* YRES */
  dispi(3, 8);     /* BPP: 8, through the DAC (6-bit components: no 8-bit DAC bit) */
  dispi(4, 0x41);  /* ENABLED | LFB_ENABLED (memory cleared) */
  outb(0x3C8, 0);
  for (unsigned i = 0; i < 256; ++i) {
    outb(0x3C9, (uint8_t)(i & 0x3F));
    outb(0x3C9, (uint8_t)((i >> 2) ^ 0x15));
    outb(0x3C9, (uint8_t)((i * 5) & 0x3F));
  }
  for (uint32_t y = 0; y < 480; ++y)
    for (uint32_t x = 0; x < 640; ++x) lfb[y * 640 + x] = (uint8_t)((x >> 1) + (y >> 1) + ((x * y) >> 9));
}

static void draw_text(void) {
  volatile uint16_t* const screen = (volatile uint16_t*)0xB8000;
  outb(0x3D4, 0x0A);
  outb(0x3D5, 0x20); /* cursor off: its blinking would differ between the two */
  static const char kLine[] = "x86lab VGA text: The quick brown fox jumps over the lazy dog 0123456789 !?#";
  for (unsigned row = 0; row < 25; ++row)
    for (unsigned column = 0; column < 80; ++column) {
      const char c = kLine[(row + column) % (sizeof kLine - 1)];
      const uint8_t attribute = (uint8_t)(((row + column / 8) & 0x07) << 4 | ((row * 3 + column) & 0x0F));
      screen[row * 80 + column] = (uint16_t)(attribute << 8 | (uint8_t)c);
    }
}

static int has(const char* text, const char* word) {
  for (; *text; ++text) {
    const char* a = text;
    const char* b = word;
    while (*b && *a == *b) ++a, ++b;
    if (!*b) return 1;
  }
  return 0;
}

void kernel_main(uint32_t magic, const uint32_t* info) {
  const char* command_line = (magic == 0x2BADB002 && (info[0] & 4)) ? (const char*)info[4] : "";
  if (has(command_line, "screen=12")) draw_mode12();
  else if (has(command_line, "screen=13")) draw_mode13();
  else if (has(command_line, "screen=vbe")) draw_vbe();
  else if (has(command_line, "screen=lfb")) draw_lfb();
  else draw_text();
  debug_print("vga_kernel: ready\nPASS\n");
  guest_exit(0x10);
}
