/* The IDE controller seen from a guest, polled with interrupts off: the hard disk on
 * the primary master (IDENTIFY DEVICE, READ/WRITE SECTORS in LBA28, LBA48 and CHS,
 * READ MULTIPLE, FLUSH CACHE, an address past the end), the same through the PIIX3 bus
 * master (READ/WRITE DMA with one PRD), and the ATAPI CD-ROM on the secondary master
 * (its signature, IDENTIFY PACKET DEVICE, TEST UNIT READY, READ CAPACITY, READ(10) of
 * the ISO 9660 primary volume descriptor in PIO and by DMA, REQUEST SENSE after an
 * invalid operation code). ATA/ATAPI-6, MMC-2, SPC-2, the PIIX3 data sheet.
 *
 * The disk image (tests/boot/ata_kernel.sh builds it) has 8192 sectors; every dword of
 * sector n holds n. The kernel writes sector 200 (PIO, words 0xA500 + i), sector 5001
 * (LBA48, dwords 0xC0DE0000 + i) and sector 500 (DMA, bytes 0x5A ^ i), which the host
 * checks in the file after the run.
 *
 * Report on port E9h as the APIC kernels do (apic_kernel.h): "ok ..." lines that must be
 * the same under QEMU, "info ..." lines that may differ, PASS/FAIL and the exit port.
 * Without a PCI bus or a PIIX3 IDE function (x86lab before the PCI bus is wired) the
 * DMA checks are skipped with an "info no PIIX3 IDE" line. */
#include "apic_kernel.h"

static inline uint16_t inw(uint16_t port) {
  uint16_t v;
  __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint32_t inl(uint16_t port) {
  uint32_t v;
  __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }

enum { PRIMARY = 0x1F0, PRIMARY_CONTROL = 0x3F6, SECONDARY = 0x170, SECONDARY_CONTROL = 0x376 };
enum { DATA = 0, ERROR = 1, FEATURES = 1, COUNT = 2, LBA_LOW = 3, LBA_MID = 4, LBA_HIGH = 5, DEVICE = 6, STATUS = 7,
       COMMAND = 7 };
enum { BSY = 0x80, DRDY = 0x40, DRQ = 0x08, ERR = 0x01 };
enum { DISK_SECTORS = 8192 };

static uint8_t sector[4096] __attribute__((aligned(4)));
/* DMA buffers and the PRD table below 16 MiB, dword aligned, not crossing 64 KiB. */
#define DMA_BUFFER ((volatile uint8_t*)0x300000)
#define PRD_TABLE ((volatile uint32_t*)0x310000)

static uint32_t dword_at(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* Polls the Alternate Status until BSY is clear (bounded); returns the status. */
static uint8_t wait_not_busy(uint16_t control) {
  uint8_t status = 0xFF;
  for (uint32_t i = 0; i < 5000000; ++i)
    if (!((status = inb(control)) & BSY)) break;
  return status;
}
static uint8_t wait_drq(uint16_t base, uint16_t control) {
  uint8_t status = wait_not_busy(control);
  for (uint32_t i = 0; i < 100000 && !(status & (DRQ | ERR)); ++i) status = inb(control);
  (void)base;
  return status;
}

static void read_words(uint16_t base, uint8_t* out, uint32_t bytes) {
  for (uint32_t i = 0; i < bytes; i += 2) {
    const uint16_t w = inw(base + DATA);
    out[i] = (uint8_t)w;
    out[i + 1] = (uint8_t)(w >> 8);
  }
}

static void lba28_command(uint32_t lba, uint8_t count, uint8_t command) {
  outb(PRIMARY + COUNT, count);
  outb(PRIMARY + LBA_LOW, (uint8_t)lba);
  outb(PRIMARY + LBA_MID, (uint8_t)(lba >> 8));
  outb(PRIMARY + LBA_HIGH, (uint8_t)(lba >> 16));
  outb(PRIMARY + DEVICE, (uint8_t)(0xE0 | ((lba >> 24) & 0x0F)));
  outb(PRIMARY + COMMAND, command);
}

static void lba48_command(uint32_t lba, uint16_t count, uint8_t command) {
  outb(PRIMARY + COUNT, (uint8_t)(count >> 8));
  outb(PRIMARY + LBA_LOW, (uint8_t)(lba >> 24));
  outb(PRIMARY + LBA_MID, 0);
  outb(PRIMARY + LBA_HIGH, 0);
  outb(PRIMARY + COUNT, (uint8_t)count);
  outb(PRIMARY + LBA_LOW, (uint8_t)lba);
  outb(PRIMARY + LBA_MID, (uint8_t)(lba >> 8));
  outb(PRIMARY + LBA_HIGH, (uint8_t)(lba >> 16));
  outb(PRIMARY + DEVICE, 0x40);
  outb(PRIMARY + COMMAND, command);
}

/* Reads `count` sectors (at most 8) by PIO after a command was issued; 0 on an error. */
static int pio_read(uint32_t count) {
  for (uint32_t s = 0; s < count; ++s) {
    const uint8_t status = wait_drq(PRIMARY, PRIMARY_CONTROL);
    if ((status & (ERR | DRQ)) != DRQ) return 0;
    read_words(PRIMARY, sector + 512 * s, 512);
  }
  return 1;
}

/* SRST with device 0 selected, then a wait for its BSY to clear. nIEN stays 0: the
 * bus master's interrupt bit follows the channel's INTRQ pin, which nIEN would float;
 * the CPU runs with IF = 0 anyway. ATA-6 9.12 says a reset leaves DEV 0; QEMU 7.2
 * keeps the DEV bit the host last wrote (and finishes the reset later), so the kernel
 * selects device 0 first and polls its status. */
static void software_reset(uint16_t base, uint16_t control) {
  outb(base + DEVICE, 0xA0);
  outb(control, 0x04);
  for (int i = 0; i < 100; ++i) inb(control);
  outb(control, 0x00);
  for (int i = 0; i < 100; ++i) inb(control);
  wait_not_busy(control);
}

static void disk_checks(void) {
  software_reset(PRIMARY, PRIMARY_CONTROL);
  check_eq("disk signature sector count", inb(PRIMARY + COUNT), 0x01);
  check_eq("disk signature LBA low", inb(PRIMARY + LBA_LOW), 0x01);
  check_eq("disk signature LBA mid/high", inb(PRIMARY + LBA_MID) | inb(PRIMARY + LBA_HIGH) << 8, 0);
  check_eq("disk status after reset (DRDY, not BSY/ERR)", inb(PRIMARY + STATUS) & (BSY | DRDY | ERR), DRDY);

  outb(PRIMARY + DEVICE, 0xA0);
  outb(PRIMARY + COMMAND, 0xEC);  /* IDENTIFY DEVICE */
  check_eq("identify: DRQ", wait_drq(PRIMARY, PRIMARY_CONTROL) & (DRQ | ERR), DRQ);
  read_words(PRIMARY, sector, 512);
  const uint16_t* w = (const uint16_t*)sector;
  check_eq("identify word 0 bit 15 (ATA device)", w[0] >> 15, 0);
  check_eq("identify word 3 (heads)", w[3], 16);
  check_eq("identify word 6 (sectors per track)", w[6], 63);
  check_eq("identify word 1 (cylinders)", w[1], DISK_SECTORS / (16 * 63));
  check_eq("identify word 49 bit 9 (LBA)", (w[49] >> 9) & 1, 1);
  check_eq("identify words 60-61 (LBA28 sectors)", w[60] | (uint32_t)w[61] << 16, DISK_SECTORS);
  check_eq("identify word 83 bit 10 (48-bit addresses)", (w[83] >> 10) & 1, 1);
  check_eq("identify words 100-101 (LBA48 sectors)", w[100] | (uint32_t)w[101] << 16, DISK_SECTORS);
  print("info model: ");
  for (int i = 27; i < 47; ++i) {
    outb(0xE9, (uint8_t)(w[i] >> 8));
    outb(0xE9, (uint8_t)w[i]);
  }
  print("\n");
  check_eq("status after the identify data", inb(PRIMARY + STATUS) & (BSY | DRQ | ERR), 0);

  lba28_command(100, 2, 0x20);  /* READ SECTORS */
  if (check_true("read sectors LBA 100, 2 sectors", pio_read(2), 0)) {
    check_eq("sector 100 content", dword_at(sector), 100);
    check_eq("sector 101 content", dword_at(sector + 512 + 508), 101);
  }
  check_eq("status after the last sector", inb(PRIMARY + STATUS) & (BSY | DRQ | ERR), 0);

  lba28_command(200, 1, 0x30);  /* WRITE SECTORS */
  check_eq("write sectors: DRQ for the data", wait_drq(PRIMARY, PRIMARY_CONTROL) & (DRQ | ERR), DRQ);
  for (uint32_t i = 0; i < 256; ++i) outw(PRIMARY + DATA, (uint16_t)(0xA500 + i));
  check_eq("write sectors: done", wait_not_busy(PRIMARY_CONTROL) & (DRQ | ERR), 0);
  outb(PRIMARY + COMMAND, 0xE7);  /* FLUSH CACHE */
  check_eq("flush cache", wait_not_busy(PRIMARY_CONTROL) & (DRQ | ERR | DRDY), DRDY);
  lba28_command(200, 1, 0x20);
  if (check_true("read back sector 200", pio_read(1), 0)) {
    check_eq("sector 200 word 0", sector[0] | sector[1] << 8, 0xA500);
    check_eq("sector 200 word 255", sector[510] | sector[511] << 8, 0xA5FF);
  }

  lba48_command(5000, 1, 0x24);  /* READ SECTORS EXT */
  if (check_true("read sectors ext LBA 5000", pio_read(1), 0)) check_eq("sector 5000 content", dword_at(sector + 4), 5000);
  lba48_command(5001, 1, 0x34);  /* WRITE SECTORS EXT */
  wait_drq(PRIMARY, PRIMARY_CONTROL);
  for (uint32_t i = 0; i < 128; ++i) outl(PRIMARY + DATA, 0xC0DE0000u + i);  /* 32-bit data transfers */
  check_eq("write sectors ext: done", wait_not_busy(PRIMARY_CONTROL) & (DRQ | ERR), 0);
  lba48_command(5001, 1, 0x24);
  if (check_true("read back sector 5001", pio_read(1), 0)) check_eq("sector 5001 dword 127", dword_at(sector + 508), 0xC0DE007F);

  /* CHS with the default translation: cylinder 1, head 2, sector 3 = (16 + 2) * 63 + 2. */
  outb(PRIMARY + COUNT, 1);
  outb(PRIMARY + LBA_LOW, 3);
  outb(PRIMARY + LBA_MID, 1);
  outb(PRIMARY + LBA_HIGH, 0);
  outb(PRIMARY + DEVICE, 0xA2);
  outb(PRIMARY + COMMAND, 0x20);
  if (check_true("read sectors CHS 1/2/3", pio_read(1), 0)) check_eq("CHS 1/2/3 is LBA 1136", dword_at(sector), 1136);

  outb(PRIMARY + COUNT, 4);
  outb(PRIMARY + COMMAND, 0xC6);  /* SET MULTIPLE MODE 4 */
  check_eq("set multiple mode 4", wait_not_busy(PRIMARY_CONTROL) & ERR, 0);
  lba28_command(300, 8, 0xC4);  /* READ MULTIPLE: two blocks of 4 sectors */
  int ok = 1;
  for (int block = 0; block < 2 && ok; ++block) {
    ok = (wait_drq(PRIMARY, PRIMARY_CONTROL) & (DRQ | ERR)) == DRQ;
    if (ok) read_words(PRIMARY, sector, 2048);
    ok = ok && dword_at(sector + 3 * 512) == 300u + 4u * (uint32_t)block + 3u;
  }
  check_true("read multiple 8 sectors in blocks of 4", ok, 0);

  lba28_command(DISK_SECTORS, 1, 0x20);  /* past the end */
  check_eq("read past the end: ERR", wait_not_busy(PRIMARY_CONTROL) & (ERR | DRQ), ERR);
  print("info error register after reading past the end: ");
  print_hex(inb(PRIMARY + ERROR));
  print("\n");
}

/* ---- DMA through the PIIX3 bus master ---- */

static uint32_t pci_read(uint32_t device, uint32_t function, uint32_t offset) {
  outl(0xCF8, 0x80000000u | device << 11 | function << 8 | offset);
  return inl(0xCFC);
}
static void pci_write(uint32_t device, uint32_t function, uint32_t offset, uint32_t value) {
  outl(0xCF8, 0x80000000u | device << 11 | function << 8 | offset);
  outl(0xCFC, value);
}

/* The PIIX3 IDE function's bus master base, or 0 without one. */
static uint16_t find_bus_master(void) {
  for (uint32_t device = 0; device < 32; ++device) {
    if (pci_read(device, 1, 0) != 0x70108086u) continue;
    uint32_t bar = pci_read(device, 1, 0x20) & 0xFFF0;
    if (!bar) {
      pci_write(device, 1, 0x20, 0xC000);
      bar = 0xC000;
    }
    pci_write(device, 1, 0x04, pci_read(device, 1, 0x04) | 0x05);  /* I/O space, bus master */
    return (uint16_t)bar;
  }
  return 0;
}

/* One DMA command through a one-entry PRD table of `bytes`; returns the bus master
 * status at the end (the interrupt bit set and Active clear on success). */
static uint8_t run_dma(uint16_t bm, int to_memory, uint32_t bytes, void (*issue)(void)) {
  PRD_TABLE[0] = (uint32_t)(uintptr_t)DMA_BUFFER;
  PRD_TABLE[1] = (bytes & 0xFFFF) | 0x80000000u;
  outb(bm, 0);
  outb(bm + 2, 0x06);  /* clear interrupt and error */
  outl(bm + 4, (uint32_t)(uintptr_t)PRD_TABLE);
  outb(bm, to_memory ? 0x08 : 0x00);
  issue();
  outb(bm, to_memory ? 0x09 : 0x01);
  uint8_t status = 0;
  for (uint32_t i = 0; i < 5000000; ++i)
    if ((status = inb(bm + 2)) & 0x04) break;
  outb(bm, 0);
  return status;
}

static void issue_read_dma(void) { lba28_command(400, 2, 0xC8); }
static void issue_write_dma(void) { lba28_command(500, 1, 0xCA); }
static void issue_read_dma_ext(void) { lba48_command(6000, 1, 0x25); }

static void dma_checks(uint16_t bm) {
  for (uint32_t i = 0; i < 1024; ++i) DMA_BUFFER[i] = 0;
  check_eq("read DMA: bus master status", run_dma(bm, 1, 1024, issue_read_dma) & 0x07, 0x04);
  check_eq("read DMA: device status", inb(PRIMARY + STATUS) & (BSY | DRQ | ERR), 0);
  check_eq("read DMA: sector 400", dword_at((const uint8_t*)DMA_BUFFER), 400);
  check_eq("read DMA: sector 401", dword_at((const uint8_t*)DMA_BUFFER + 1020), 401);
  for (uint32_t i = 0; i < 512; ++i) DMA_BUFFER[i] = (uint8_t)(0x5A ^ i);
  check_eq("write DMA: bus master status", run_dma(bm, 0, 512, issue_write_dma) & 0x07, 0x04);
  check_eq("write DMA: device status", inb(PRIMARY + STATUS) & (BSY | DRQ | ERR), 0);
  lba28_command(500, 1, 0x20);
  if (check_true("write DMA: read back sector 500", pio_read(1), 0)) check_eq("write DMA: sector 500 byte 3", sector[3], 0x5A ^ 3);
  check_eq("read DMA ext: bus master status", run_dma(bm, 1, 512, issue_read_dma_ext) & 0x07, 0x04);
  check_eq("read DMA ext: sector 6000", dword_at((const uint8_t*)DMA_BUFFER + 8), 6000);
}

/* ---- the ATAPI CD-ROM ---- */

/* Sends a 12-byte packet; byte count limit `limit`; `dma` asks for DMA. */
static void send_packet(const uint8_t* packet, uint16_t limit, int dma) {
  outb(SECONDARY + DEVICE, 0xA0);
  outb(SECONDARY + FEATURES, dma ? 1 : 0);
  outb(SECONDARY + LBA_MID, (uint8_t)limit);
  outb(SECONDARY + LBA_HIGH, (uint8_t)(limit >> 8));
  outb(SECONDARY + COMMAND, 0xA0);
  wait_drq(SECONDARY, SECONDARY_CONTROL);
  for (int i = 0; i < 12; i += 2) outw(SECONDARY + DATA, (uint16_t)(packet[i] | packet[i + 1] << 8));
}

/* Runs a packet in PIO and reads up to `max` bytes of data into `sector`; returns the
 * bytes read, or -1 when the command ended with CHECK CONDITION. */
static int packet_pio(const uint8_t* packet, uint32_t max) {
  send_packet(packet, 2048, 0);
  uint32_t got = 0;
  for (;;) {
    const uint8_t status = wait_not_busy(SECONDARY_CONTROL);
    if (status & ERR) return -1;
    if (!(status & DRQ)) break;
    const uint32_t bytes = inb(SECONDARY + LBA_MID) | inb(SECONDARY + LBA_HIGH) << 8;
    for (uint32_t i = 0; i < bytes; i += 2) {
      const uint16_t w = inw(SECONDARY + DATA);
      if (got + 1 < max) {
        sector[got] = (uint8_t)w;
        sector[got + 1] = (uint8_t)(w >> 8);
      }
      got += 2;
    }
  }
  return (int)got;
}

static void cdrom_checks(uint16_t bm) {
  software_reset(SECONDARY, SECONDARY_CONTROL);
  check_eq("CD-ROM signature LBA mid", inb(SECONDARY + LBA_MID), 0x14);
  check_eq("CD-ROM signature LBA high", inb(SECONDARY + LBA_HIGH), 0xEB);
  outb(SECONDARY + DEVICE, 0xA0);
  outb(SECONDARY + COMMAND, 0xA1);  /* IDENTIFY PACKET DEVICE */
  check_eq("identify packet device: DRQ", wait_drq(SECONDARY, SECONDARY_CONTROL) & (DRQ | ERR), DRQ);
  read_words(SECONDARY, sector, 512);
  const uint16_t w0 = (uint16_t)(sector[0] | sector[1] << 8);
  check_eq("identify packet word 0 bits 15:14 (packet device)", w0 >> 14, 2);
  check_eq("identify packet word 0 bits 12:8 (CD-ROM)", (w0 >> 8) & 0x1F, 5);

  const uint8_t test_unit_ready[12] = {0};
  int ready = -1;
  for (int attempt = 0; attempt < 3 && ready < 0; ++attempt) ready = packet_pio(test_unit_ready, 0);  /* past a UNIT ATTENTION */
  check_eq("test unit ready", (uint32_t)ready, 0);

  const uint8_t read_capacity[12] = {0x25};
  if (check_eq("read capacity: 8 bytes", (uint32_t)packet_pio(read_capacity, 8), 8)) {
    print("ok read capacity: last LBA ");
    print_hex((uint32_t)sector[0] << 24 | sector[1] << 16 | sector[2] << 8 | sector[3]);
    print(", block length ");
    print_hex((uint32_t)sector[4] << 24 | sector[5] << 16 | sector[6] << 8 | sector[7]);
    print("\n");
  }

  const uint8_t read_pvd[12] = {0x28, 0, 0, 0, 0, 16, 0, 0, 1, 0};
  if (check_eq("read(10) LBA 16: 2048 bytes", (uint32_t)packet_pio(read_pvd, sizeof sector), 2048)) {
    check_eq("primary volume descriptor type", sector[0], 1);
    check_true("standard identifier CD001",
               sector[1] == 'C' && sector[2] == 'D' && sector[3] == '0' && sector[4] == '0' && sector[5] == '1', 0);
    print("ok volume identifier: ");
    for (int i = 40; i < 72 && sector[i] != ' '; ++i) outb(0xE9, sector[i]);
    print("\n");
  }

  const uint8_t invalid[12] = {0xFF};
  check_eq("invalid operation code: CHECK CONDITION", (uint32_t)packet_pio(invalid, 0), 0xFFFFFFFFu);
  check_eq("invalid operation code: sense key in the error register", inb(SECONDARY + ERROR) >> 4, 5);
  const uint8_t request_sense[12] = {0x03, 0, 0, 0, 18, 0};
  if (check_eq("request sense: 18 bytes", (uint32_t)packet_pio(request_sense, 18), 18)) {
    check_eq("sense key ILLEGAL REQUEST", sector[2] & 0x0F, 5);
    check_eq("ASC INVALID COMMAND OPERATION CODE", sector[12], 0x20);
  }

  if (!bm) return;
  for (uint32_t i = 0; i < 2048; ++i) DMA_BUFFER[i] = 0;
  PRD_TABLE[0] = (uint32_t)(uintptr_t)DMA_BUFFER;
  PRD_TABLE[1] = 2048 | 0x80000000u;
  outb(bm + 8, 0);
  outb(bm + 10, 0x06);
  outl(bm + 12, (uint32_t)(uintptr_t)PRD_TABLE);
  outb(bm + 8, 0x08);
  send_packet(read_pvd, 0, 1);
  outb(bm + 8, 0x09);
  uint8_t status = 0;
  for (uint32_t i = 0; i < 5000000; ++i)
    if ((status = inb(bm + 10)) & 0x04) break;
  outb(bm + 8, 0);
  check_eq("read(10) by DMA: bus master status", status & 0x07, 0x04);
  check_eq("read(10) by DMA: device status", wait_not_busy(SECONDARY_CONTROL) & (DRQ | ERR), 0);
  check_true("read(10) by DMA: CD001", DMA_BUFFER[1] == 'C' && DMA_BUFFER[5] == '1', DMA_BUFFER[1]);
}

void kernel_main(uint32_t magic, const uint32_t* multiboot_info);
void kernel_main(uint32_t magic, const uint32_t* multiboot_info) {
  (void)magic;
  (void)multiboot_info;
  __asm__ volatile("cli");
  disk_checks();
  const uint16_t bm = find_bus_master();
  if (bm) dma_checks(bm);
  else print("info no PIIX3 IDE on a PCI bus: DMA checks skipped\n");
  cdrom_checks(bm);
  finish();
}
