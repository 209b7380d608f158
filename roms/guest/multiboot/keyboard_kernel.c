/* A Multiboot kernel with a one-line console on the VGA text screen and the PS/2
 * keyboard: it reads scan codes from the 8042 (port 64h bit 0, output buffer full; port
 * 60h, the byte) in set 1 as the controller translates them by default, echoes the keys
 * at the text cursor (CRTC registers 0Eh/0Fh) and, on Enter, sends the line to COM1 as
 * "line: TEXT"; the line "exit" leaves through the exit port with 10h (exit status 33).
 * The guest of the inspector's keyboard tests (tests/gui/). Interrupts stay off. */
#include <stdint.h>

#include "guest_io.h"

static volatile uint16_t* const screen = (volatile uint16_t*)0xB8000;
static unsigned cursor;

static void move_cursor(void) {
  outb(0x3D4, 0x0E);
  outb(0x3D5, (uint8_t)(cursor >> 8));
  outb(0x3D4, 0x0F);
  outb(0x3D5, (uint8_t)cursor);
}

static void show(char c) {
  if (c == '\n') cursor = (cursor / 80 + 1) * 80;
  else if (c == '\b') { if (cursor % 80 > 6) screen[--cursor] = 0x0720; }
  else screen[cursor++] = (uint16_t)(0x0700 | (uint8_t)c);
  if (cursor >= 80 * 25) cursor = 0;
  move_cursor();
}

static void show_text(const char* s) {
  while (*s) show(*s++);
}

static void serial(const char* s) {
  for (; *s; ++s) {
    while (!(inb(0x3FD) & 0x20)) {
    }
    outb(0x3F8, (uint8_t)*s);
  }
}

/* Set 1 make codes 00h-39h to ASCII, without and with Shift (US layout); 0: no character. */
static const char kPlain[0x3A] = {0,   27,  '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '=', '\b', '\t',
                                  'q', 'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p', '[', ']', '\n', 0,  'a',  's',
                                  'd', 'f', 'g', 'h', 'j', 'k', 'l', ';', '\'', '`', 0,  '\\', 'z', 'x', 'c', 'v',
                                  'b', 'n', 'm', ',', '.', '/', 0,   '*', 0,   ' '};
static const char kShifted[0x3A] = {0,   27,  '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+', '\b', '\t',
                                    'Q', 'W', 'E', 'R', 'T', 'Y', 'U', 'I', 'O', 'P', '{', '}', '\n', 0,  'A',  'S',
                                    'D', 'F', 'G', 'H', 'J', 'K', 'L', ':', '"', '~', 0,   '|', 'Z', 'X', 'C', 'V',
                                    'B', 'N', 'M', '<', '>', '?', 0,   '*', 0,   ' '};

void irq0_handler(void) {}
void spurious7_handler(void) {}
void unexpected_handler(void) { guest_exit(0x11); }

void kernel_main(void) {
  for (unsigned i = 0; i < 80 * 25; ++i) screen[i] = 0x0720;
  show_text("keyboard_kernel: type a line and Enter; 'exit' quits\n");
  serial("keyboard_kernel: ready\n");
  char line[80];
  unsigned length = 0;
  int shift = 0, extended = 0;
  show_text("kbd> ");
  for (;;) {
    while ((inb(0x64) & 0x21) != 0x01) {  /* a keyboard byte (not the auxiliary device's) */
    }
    const uint8_t code = inb(0x60);
    if (code == 0xE0) { extended = 1; continue; }
    const int released = code & 0x80, key = code & 0x7F;
    const int was_extended = extended;
    extended = 0;
    if (key == 0x2A || key == 0x36) { shift = !released; continue; }
    if (released || was_extended || key >= 0x3A) continue;
    const char c = shift ? kShifted[key] : kPlain[key];
    if (c == '\b') {
      if (length) { --length; show('\b'); }
    } else if (c == '\n') {
      line[length] = 0;
      show('\n');
      serial("line: ");
      serial(line);
      serial("\n");
      if (length == 4 && line[0] == 'e' && line[1] == 'x' && line[2] == 'i' && line[3] == 't') guest_exit(0x10);
      length = 0;
      show_text("kbd> ");
    } else if (c >= ' ' && length < sizeof line - 1) {
      line[length++] = c;
      show(c);
    }
  }
}
