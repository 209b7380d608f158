/* A Multiboot test kernel for the floppy disk controller and DMA channel 2 (Intel
 * 82077AA data sheet, "Command Set/Descriptions", "Status Register Encoding"; Intel
 * 8237A-5 data sheet, "Register Description"). Booted with a 1.44 MB FAT12 image in
 * drive A: that tests/boot/floppy_image.sh builds with mkfs.fat and mcopy: the file
 * BLOCKS.BIN (32 blocks of 512 bytes, block k = "BLK" k, then (k + i) & FFh) from
 * cluster 2, LBA 33 (cylinder 0, head 1, sector 16) on.
 *
 * It resets the controller (four SENSE INTERRUPT STATUS answers C0h-C3h), checks
 * VERSION, recalibrates and seeks, reads the boot sector and checks mkfs.fat's BIOS
 * parameter block, reads three sectors through DMA channel 2 ending at terminal count
 * on the last sector of a track, then three across the head change with MT, writes one
 * sector and reads it back, reads past EOT without MT (end of cylinder), reads a
 * sector without DMA through the FIFO, and does READ ID and SENSE DRIVE STATUS. The
 * result bytes are checked (ok/FAIL lines, apic_kernel.h) so that the same lines
 * appear under x86lab and under qemu-system-i386 -fda. Waits sleep in HLT between PIT
 * ticks (1 kHz), bounded in ticks. */
#include "apic_kernel.h"

#define DMA_BUFFER 0x30000u /* below 16 MiB, within one 64 KiB DMA page */
#define READ_BACK 0x40000u
#define WAIT_TICKS 3000 /* 3 s of PIT ticks for any one step */

static volatile uint32_t pit_ticks, fdc_interrupts;
static void on_pit(struct interrupt_frame* frame) {
  (void)frame;
  ++pit_ticks;
  outb(0x20, 0x20);
}
static void on_fdc(struct interrupt_frame* frame) {
  (void)frame;
  ++fdc_interrupts;
  outb(0x20, 0x20);
}

/* Sleeps in HLT until `condition` holds or WAIT_TICKS ticks passed; returns it. */
#define WAIT_FOR(condition)                                            \
  ({                                                                   \
    uint32_t start_ = pit_ticks;                                       \
    while (!(condition) && pit_ticks - start_ < WAIT_TICKS) sti_hlt(); \
    cli();                                                             \
    (condition);                                                       \
  })

static uint8_t msr(void) { return inb(0x3F4); }

static int send(uint8_t byte) {
  if (!WAIT_FOR((msr() & 0xC0) == 0x80)) return 0;
  outb(0x3F5, byte);
  return 1;
}
static int send_all(const uint8_t* bytes, int count) {
  for (int i = 0; i < count; ++i)
    if (!send(bytes[i])) return 0;
  return 1;
}
/* Reads the result phase into `out` (at most `max` bytes); returns the count. */
static int results(uint8_t* out, int max) {
  int n = 0;
  while (n < max && WAIT_FOR(msr() & 0x80) && (msr() & 0x40)) out[n++] = inb(0x3F5);
  return n;
}
/* Checks result bytes "<what>0", "<what>1", ... and their count ("<what>count"). */
static void check_results(const char* what, const uint8_t* got, int count, const uint8_t* expected, int expected_count) {
  char prefix[64];
  int length = 0;
  while (what[length] && length < 40) {
    prefix[length] = what[length];
    ++length;
  }
  const char* count_word = "count";
  for (int i = 0; count_word[i]; ++i) prefix[length + i] = count_word[i];
  prefix[length + 5] = 0;
  check_eq(prefix, (uint32_t)count, (uint32_t)expected_count);
  prefix[length] = 0;
  for (int i = 0; i < expected_count && i < count; ++i) {
    char name[64];
    for (int j = 0; j <= length; ++j) name[j] = prefix[j];
    name[length] = (char)('0' + i);
    name[length + 1] = 0;
    check_eq(name, got[i], expected[i]);
  }
}

/* DMA channel 2: `mode` 46h (single, write to memory) or 4Ah (single, read from memory). */
static void dma_channel2(uint8_t mode, uint32_t address, uint32_t bytes) {
  outb(0x0A, 0x06); /* mask channel 2 */
  outb(0x0B, mode);
  outb(0x0C, 0x00); /* clear the byte pointer flip-flop */
  outb(0x04, (uint8_t)address);
  outb(0x04, (uint8_t)(address >> 8));
  outb(0x81, (uint8_t)(address >> 16));
  outb(0x05, (uint8_t)(bytes - 1));
  outb(0x05, (uint8_t)((bytes - 1) >> 8));
  outb(0x0A, 0x02); /* unmask */
}

/* A command that ends with an interrupt and a result phase (read, write, READ ID). */
static int command_with_interrupt(const uint8_t* bytes, int count, uint8_t* out, int max) {
  uint32_t before = fdc_interrupts;
  if (!send_all(bytes, count)) return 0;
  if (!WAIT_FOR(fdc_interrupts != before)) return 0;
  return results(out, max);
}

static void sense_interrupt(const char* what, uint8_t st0, uint8_t pcn) {
  uint8_t r[2];
  send(0x08);
  int n = results(r, 2);
  const uint8_t expected[2] = {st0, pcn};
  check_results(what, r, n, expected, 2);
}

static void seek(uint8_t cylinder) {
  uint32_t before = fdc_interrupts;
  const uint8_t bytes[3] = {0x0F, 0x00, cylinder};
  send_all(bytes, 3);
  check_true(named("seek to cylinder ", cylinder, " interrupts"), WAIT_FOR(fdc_interrupts != before), 0);
  sense_interrupt(named("seek ", cylinder, " sense interrupt byte "), 0x20, cylinder);
}

static int block_ok(uint32_t address, uint32_t k) {
  const volatile uint8_t* p = (const volatile uint8_t*)address;
  if (p[0] != 'B' || p[1] != 'L' || p[2] != 'K' || p[3] != k) return 0;
  for (uint32_t i = 4; i < 512; ++i)
    if (p[i] != (uint8_t)(k + i)) return 0;
  return 1;
}

void kernel_main(void);
void kernel_main(void) {
  uint8_t r[16];
  int n;
  idt_install();
  handlers[0x20] = on_pit;
  handlers[0x26] = on_fdc;
  handlers[0x27] = on_fdc; /* a spurious IRQ 7 is harmless here */
  pic_init(0xBE, 0xFF);    /* IRQ 0 and IRQ 6 */
  pit_counter0(2, 1193);   /* about 1 kHz */
  /* DMA: channel 4 cascades DMA1 into DMA2 (as a BIOS leaves it). */
  outb(0xD6, 0xC0);
  outb(0xD4, 0x00);

  /* Reset: DOR bit 2 low, then drive 0 selected, motor 0 on, DMA gate on. */
  uint32_t before = fdc_interrupts;
  outb(0x3F2, 0x00);
  outb(0x3F2, 0x1C);
  outb(0x3F7, 0x00); /* 500 kbit/s: a 1.44 MB disk */
  check_true("reset interrupts", WAIT_FOR(fdc_interrupts != before), 0);
  for (uint8_t d = 0; d < 4; ++d) sense_interrupt(named("reset sense interrupt drive ", d, " byte "), (uint8_t)(0xC0 | d), 0);

  send(0x10);
  n = results(r, 1);
  check_eq("VERSION", n == 1 ? r[0] : 0x100u, 0x90);

  const uint8_t specify[3] = {0x03, 0xDF, 0x02}; /* SRT 3 ms, HUT 240 ms, HLT 2 ms, DMA */
  send_all(specify, 3);
  before = fdc_interrupts;
  const uint8_t recalibrate[2] = {0x07, 0x00};
  send_all(recalibrate, 2);
  check_true("recalibrate interrupts", WAIT_FOR(fdc_interrupts != before), 0);
  sense_interrupt("recalibrate sense interrupt byte ", 0x20, 0);

  /* The boot sector: mkfs.fat's BIOS parameter block and the 55h AAh signature. */
  dma_channel2(0x46, DMA_BUFFER, 512);
  const uint8_t read_boot[9] = {0xE6, 0x00, 0, 0, 1, 2, 18, 0x1B, 0xFF};
  n = command_with_interrupt(read_boot, 9, r, 7);
  const uint8_t boot_result[7] = {0x00, 0x00, 0x00, 0, 0, 2, 2};
  check_results("read boot sector result byte ", r, n, boot_result, 7);
  const volatile uint8_t* boot = (const volatile uint8_t*)DMA_BUFFER;
  check_eq("boot sector signature", (uint32_t)(boot[510] | boot[511] << 8), 0xAA55);
  check_eq("BPB bytes per sector", (uint32_t)(boot[11] | boot[12] << 8), 512);
  check_eq("BPB total sectors", (uint32_t)(boot[19] | boot[20] << 8), 2880);
  check_eq("BPB sectors per track", (uint32_t)(boot[24] | boot[25] << 8), 18);
  check_eq("BPB heads", (uint32_t)(boot[26] | boot[27] << 8), 2);
  outb(0x0C, 0x00);
  uint32_t count = inb(0x05);
  count |= (uint32_t)inb(0x05) << 8;
  check_eq("DMA channel 2 count after TC", count, 0xFFFF);
  check_eq("DMA status TC channel 2", inb(0x08) & 0x0F, 0x04);
  check_eq("DMA status TC cleared by reading", inb(0x08) & 0x0F, 0x00);

  /* Blocks 0-2: cylinder 0, head 1, sectors 16-18, TC on the last sector of the track. */
  dma_channel2(0x46, DMA_BUFFER, 3 * 512);
  const uint8_t read_a[9] = {0xE6, 0x04, 0, 1, 16, 2, 18, 0x1B, 0xFF};
  n = command_with_interrupt(read_a, 9, r, 7);
  /* ST0's interrupt code and drive only: which head ST0 names after the last sector of
   * side 1 is not in the data sheet's tables (x86lab: 1, the head that read it; QEMU 7.2
   * says 0 and also sets SE, docs/qemu-differences.md). */
  r[0] &= 0xC3;
  const uint8_t result_a[7] = {0x00, 0x00, 0x00, 1, 0, 1, 2};
  check_results("read to end of track result byte ", r, n, result_a, 7);
  for (uint32_t k = 0; k < 3; ++k) check_true(named("block ", k, " read"), block_ok(DMA_BUFFER + 512 * k, k), k);

  /* Blocks 19-21: cylinder 1, head 0, sectors 17-18, then head 1 sector 1 (MT). */
  seek(1);
  dma_channel2(0x46, DMA_BUFFER, 3 * 512);
  const uint8_t read_b[9] = {0xE6, 0x00, 1, 0, 17, 2, 18, 0x1B, 0xFF};
  n = command_with_interrupt(read_b, 9, r, 7);
  const uint8_t result_b[7] = {0x04, 0x00, 0x00, 1, 1, 2, 2};
  check_results("multi-track read result byte ", r, n, result_b, 7);
  for (uint32_t k = 0; k < 3; ++k)
    check_true(named("block ", 19 + k, " read across the head change"), block_ok(DMA_BUFFER + 512 * k, 19 + k), k);

  /* Write block 25 (cylinder 1, head 1, sector 5), then read it back. */
  volatile uint8_t* out = (volatile uint8_t*)DMA_BUFFER;
  const char* text = "WRITTEN!";
  for (uint32_t i = 0; i < 512; ++i) out[i] = i < 8 ? (uint8_t)text[i] : (uint8_t)(0x5A ^ i);
  dma_channel2(0x4A, DMA_BUFFER, 512);
  const uint8_t write[9] = {0xC5, 0x04, 1, 1, 5, 2, 18, 0x1B, 0xFF};
  n = command_with_interrupt(write, 9, r, 7);
  const uint8_t result_w[7] = {0x04, 0x00, 0x00, 1, 1, 6, 2};
  check_results("write result byte ", r, n, result_w, 7);
  dma_channel2(0x46, READ_BACK, 512);
  const uint8_t read_w[9] = {0xE6, 0x04, 1, 1, 5, 2, 18, 0x1B, 0xFF};
  n = command_with_interrupt(read_w, 9, r, 7);
  const uint8_t result_rw[7] = {0x04, 0x00, 0x00, 1, 1, 6, 2};
  check_results("read back result byte ", r, n, result_rw, 7);
  uint32_t same = 1;
  for (uint32_t i = 0; i < 512; ++i) same &= ((volatile uint8_t*)READ_BACK)[i] == out[i];
  check_true("written sector reads back", same, 0);

  /* Past EOT without MT and without TC: end of cylinder, C + 1, R = 1. */
  dma_channel2(0x46, DMA_BUFFER, 2 * 512);
  const uint8_t read_eot[9] = {0x46, 0x00, 1, 0, 18, 2, 18, 0x1B, 0xFF};
  n = command_with_interrupt(read_eot, 9, r, 7);
  const uint8_t result_eot[7] = {0x40, 0x80, 0x00, 2, 0, 1, 2};
  check_results("read past EOT result byte ", r, n, result_eot, 7);

  /* Non-DMA: block 20 (cylinder 1, head 0, sector 18) through the FIFO, EOT = 18. */
  const uint8_t specify_pio[3] = {0x03, 0xDF, 0x03};
  send_all(specify_pio, 3);
  const uint8_t read_pio[9] = {0x46, 0x00, 1, 0, 18, 2, 18, 0x1B, 0xFF};
  send_all(read_pio, 9);
  volatile uint8_t* pio = (volatile uint8_t*)READ_BACK;
  uint32_t got = 0;
  while (got < 512 && WAIT_FOR(msr() & 0x80) && (msr() & 0xE0) == 0xE0) pio[got++] = inb(0x3F5);
  check_eq("non-DMA bytes", got, 512);
  check_true("non-DMA block 20", block_ok(READ_BACK, 20), 0);
  n = results(r, 7);
  check_eq("non-DMA result count", (uint32_t)n, 7);
  check_eq("non-DMA ST0 interrupt code", n ? r[0] & 0xC0 : 0x100u, 0x40);
  check_eq("non-DMA ST1 end of cylinder", n > 1 ? r[1] : 0x100u, 0x80);
  send_all(specify, 3);

  /* READ ID: an ID of cylinder 1, head 0 (which sector depends on the disk's angle). */
  const uint8_t read_id[2] = {0x4A, 0x00};
  n = command_with_interrupt(read_id, 2, r, 7);
  check_eq("READ ID result count", (uint32_t)n, 7);
  check_eq("READ ID ST0", r[0], 0x00);
  check_eq("READ ID ST1", r[1], 0x00);
  check_eq("READ ID C", r[3], 1);
  check_eq("READ ID H", r[4], 0);
  check_true("READ ID R within the track", r[5] >= 1 && r[5] <= 18, r[5]);
  check_eq("READ ID N", r[6], 2);

  /* SENSE DRIVE STATUS on cylinder 1: not track 0, writable. */
  const uint8_t sense_drive[2] = {0x04, 0x00};
  send_all(sense_drive, 2);
  n = results(r, 1);
  check_eq("ST3 write protect and track 0 bits", n == 1 ? r[0] & 0x50 : 0x100u, 0x00);
  info("ST3", r[0]);
  seek(0);
  send_all(sense_drive, 2);
  n = results(r, 1);
  check_eq("ST3 track 0 bit", n == 1 ? r[0] & 0x10 : 0x100u, 0x10);

  /* An invalid opcode: ST0 = 80h. */
  send(0x1F);
  n = results(r, 1);
  check_eq("invalid command ST0", n == 1 ? r[0] : 0x100u, 0x80);
  finish();
}
