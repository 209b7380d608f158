/* The scenario kernels' side of the debug-console protocol (docs/compare.md) for
 * roms/scenarios/<name>: text, "METRIC <name> <value>\n" lines with the value in
 * decimal, and the end of the run (PASS or FAIL, exit port F4h: 10h pass, 11h fail).
 * The including file first defines `static void put(char c)` (where one character
 * goes: straight to port E9h, or into a buffer) and `static void flush(void)` (writes
 * what is buffered), and may define CONSOLE_TAG, the text before PASS and FAIL. */
#ifndef X86LAB_SCENARIO_CONSOLE_H
#define X86LAB_SCENARIO_CONSOLE_H
#include <stdint.h>

#include "guest_io.h"

#ifndef CONSOLE_TAG
#define CONSOLE_TAG ""
#endif

static void print(const char* s) {
  while (*s) put(*s++);
}
/* `v` in decimal, no leading zeros. */
static void print_u64(uint64_t v) {
  char digits[20];
  int n = 0;
  do digits[n++] = (char)('0' + v % 10); while ((v /= 10) != 0);
  while (n) put(digits[--n]);
}
static void metric(const char* name, uint64_t value) {
  print("METRIC ");
  print(name);
  put(' ');
  print_u64(value);
  put('\n');
}
static void finish(int pass) {
  print(pass ? CONSOLE_TAG "PASS\n" : CONSOLE_TAG "FAIL\n");
  flush();
  guest_exit(pass ? 0x10 : 0x11);
}
static void fail(const char* what) {
  print(CONSOLE_TAG "FAIL: ");
  print(what);
  put('\n');
  finish(0);
}

#endif
