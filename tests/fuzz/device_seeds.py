# Writes the hand-made seed inputs of tests/fuzz/device_fuzzer.cpp (the operation layout is in
# its first comment): python3 tests/fuzz/device_seeds.py tests/fuzz/device_corpus
import os, sys
out_dir = sys.argv[1]
W = {1: 0, 2: 1, 4: 2}
def op(code, b1=0, b2=0, b3=0, val=0): return bytes([code, b1 & 255, b2 & 255, b3 & 255]) + (val & 0xFFFFFFFF).to_bytes(4, 'little')
def out(port, val, width=1): return op(4, port & 255, port >> 8, W[width], val)
def inp(port, width=1): return op(5, port & 255, port >> 8, W[width])
def rep_in(rng, off, count, width=2): return op(2, rng, off, W[width], count)
def clock(cycles, shift=0): return op(9, 0, 0, shift, cycles)
def pci(dev, fn, reg, val, width=4, read=False): return op(11, dev, reg, (fn << 5) | (0x10 if read else 0) | W[width], val)
def ata(ch, dev, feat, cmd, count=0, l0=0, l1=0, l2=0): return op(12, ch | dev << 4 | 0x40, feat, cmd, count | l0 << 8 | l1 << 16 | l2 << 24)
def atapi(ch, cdb, bytecount=2048, feat=0): return op(13, ch, feat, 0, bytecount) + bytes(cdb + [0] * (12 - len(cdb)))
def fdc(bs): return op(14, len(bs)) + bytes(bs)
def ram(addr, val): return op(8, (addr // 4) & 255, (addr // 4) >> 8, 0, val)
def mmio(region, offset, val=0, width=1, read=False):
    return op(7 if read else 6, region, offset, W[width], (offset >> 8 & 255) | (offset >> 16 & 255) << 8 | (val & 255) << 16 | (val >> 8 & 255) << 24)
INTA = op(10); SNAP = op(16)
seeds = {
 'ata-identify': ata(0, 0, 0, 0xEC) + clock(100000) + inp(0x1F7) + rep_in(3, 0, 256) + inp(0x1F7),
 'ata-read-write': ata(0, 0, 0, 0x20, 2, 5) + clock(100000) + rep_in(3, 0, 512) + ata(0, 0, 0, 0x30, 1, 7) + op(3, 3, 15, 1) + bytes(range(30)) + clock(100000) + inp(0x1F7) + SNAP + ata(0, 0, 0, 0xE7) + ata(0, 0, 3, 0xEF, 0x22) + ata(0,0,0,0x91,63,0,0,15) + ata(0, 0, 0, 0x40, 4, 1) + ata(0,0,0,0x25,1,0,0,0),
 'ata-dma': pci(1, 1, 0x20, 0xC001) + pci(1, 1, 0x04, 0x0005) + ram(0x1000, 0x2000) + ram(0x1004, 0x80000200) + out(0xC004, 0x1000, 4) + ata(0, 0, 0, 0xC8, 1, 3) + out(0xC000, 0x09) + clock(200000) + inp(0xC002) + inp(0x1F7) + out(0xC000, 0) + out(0xC002, 6) + ata(0, 0, 0, 0xCA, 1, 9) + out(0xC000, 0x01) + clock(200000) + inp(0xC002),
 'atapi': out(0x176, 0xA0) + ata(1, 0, 0, 0xA1) + clock(100000) + rep_in(5, 0, 256) + out(0x176, 0xA0) + atapi(1, [0x12, 0, 0, 0, 36]) + clock(100000) + rep_in(5, 0, 18) + atapi(1, [0x00]) + clock(1000) + atapi(1, [0x25]) + clock(1000) + rep_in(5,0,4) + atapi(1, [0x28, 0, 0, 0, 0, 16, 0, 0, 1]) + clock(100000) + rep_in(5, 0, 1024) + atapi(1, [0x03, 0, 0, 0, 18]) + clock(1000) + rep_in(5, 0, 9) + atapi(1, [0x43, 0, 0, 0, 0, 0, 0, 0, 12]) + clock(1000) + rep_in(5,0,6) + atapi(1, [0x1B, 0, 0, 0, 2]) + atapi(1, [0x5A, 0, 0x2A, 0, 0, 0, 0, 0, 32]) + atapi(1, [0x4A, 1, 0, 0, 0x10, 0, 0, 0, 8]) + atapi(1, [0xBE, 0, 0, 0, 0, 17, 0, 0, 1, 0x10]),
 'fdc-read': out(0x3F7, 0x00) + out(0x3F2, 0x00) + clock(1000) + out(0x3F2, 0x1C) + clock(100000) + (fdc([0x08]) + inp(0x3F5) + inp(0x3F5)) * 4 + fdc([0x03, 0xDF, 0x02]) + fdc([0x07, 0x00]) + clock(100000, 8) + fdc([0x08]) + inp(0x3F5) + inp(0x3F5)
   + out(0x0A, 0x06) + out(0x0C, 0) + out(0x0B, 0x46) + out(0x04, 0x00) + out(0x04, 0x30) + out(0x81, 0x00) + out(0x05, 0xFF) + out(0x05, 0x01) + out(0x0A, 0x02)
   + fdc([0xE6, 0x00, 0x00, 0x00, 0x01, 0x02, 0x12, 0x1B, 0xFF]) + clock(100000, 12) + op(2, 8, 5, 0, 7) + INTA + inp(0x08) + fdc([0x0A, 0x00]) + clock(100000,4) + op(2,8,5,0,7) + fdc([0x0F, 0x00, 0x05]) + clock(100000, 8) + fdc([0x08]) + inp(0x3F5) + inp(0x3F5) + fdc([0x04, 0x00]) + inp(0x3F5) + fdc([0x10]) + inp(0x3F5) + inp(0x3F7) + out(0x3F7, 0) + inp(0x3F4),
 'fdc-write-format': out(0x3F7, 0x00) + out(0x3F2, 0x1C) + out(0x0A, 0x06) + out(0x0C, 0) + out(0x0B, 0x4A) + out(0x04, 0) + out(0x04, 0x30) + out(0x81, 0) + out(0x05, 0xFF) + out(0x05, 0x01) + out(0x0A, 0x02) + fdc([0xC5, 0, 1, 0, 1, 2, 0x12, 0x1B, 0xFF]) + clock(100000, 12) + op(2, 8, 5, 0, 7) + fdc([0x4D, 0, 2, 18, 0x54, 0xF6]) + op(3, 8, 5 + 16*0 , 0) + clock(100000, 8) + op(2,8,5,0,7) + fdc([0x13, 0, 0x40, 0]) + fdc([0x8E]) + fdc([0x94, 0xC0]) + fdc([0x12, 0x80]) + fdc([0x46, 0, 0, 0, 1, 2, 0x12, 0x1B, 0xFF]) + fdc([0x11, 0, 0, 0, 1, 2, 0x12, 0x1B, 0xFF]) + op(15, 0, 1) + fdc([0x08]) + clock(100000, 8) + inp(0x3F7),
 'vga': out(0x3C2, 0x67) + out(0x3C4, 0x0201, 2) + out(0x3C4, 0x0604, 2) + out(0x3CE, 0x0005, 2) + out(0x3CE, 0x0506, 2) + out(0x3D4, 0x11) + out(0x3D5, 0) + out(0x3D4, 0x0C) + out(0x3D5, 0x12) + inp(0x3DA) + out(0x3C0, 0x10) + out(0x3C0, 0x41) + out(0x3C0, 0x20) + out(0x3C8, 0) + out(0x3C9, 63) + out(0x3C9, 0) + out(0x3C9, 9) + out(0x3C7, 0) + inp(0x3C9) + mmio(0, 0x100, 0xAA55, 2) + mmio(0, 0x18000, 0x1741, 2) + mmio(0, 0x100, read=True) + out(0x3CE, 0x0303, 2) + out(0x3CE, 0x0F01, 2) + out(0x3CE, 0x0102, 2) + out(0x3CE, 0x0A07, 2) + out(0x3CE, 0x0805, 2) + mmio(0, 0x200, 0x33) + mmio(0, 0x200, read=True)
   + out(0x1CE, 0, 2) + inp(0x1CF, 2) + out(0x1CE, 4, 2) + out(0x1CF, 0, 2) + out(0x1CE, 1, 2) + out(0x1CF, 640, 2) + out(0x1CE, 2, 2) + out(0x1CF, 480, 2) + out(0x1CE, 3, 2) + out(0x1CF, 32, 2) + out(0x1CE, 4, 2) + out(0x1CF, 0x41, 2) + mmio(1, 0x1000, 0x1234, 4) + mmio(1, 0x1000, read=True, width=4) + out(0x1CE, 5, 2) + out(0x1CF, 3, 2) + mmio(0, 0x10, 0x77) + out(0x1CE, 4, 2) + inp(0x1CF, 2) + out(0x1CE, 9, 2) + out(0x1CF, 9, 2) + out(0x1CE, 4, 2) + out(0x1CF, 0x03, 2) + SNAP,
 'pci-chipset': b''.join(pci(d, f, r, 0, read=True) for d, f in [(0, 0), (1, 0), (1, 1), (2, 0)] for r in range(0, 0x40, 4)) + pci(0, 0, 0x59, 0x30, 1) + pci(0, 0, 0x5A, 0x33, 1) + pci(0, 0, 0x72, 0x4A, 1) + mmio(0, 0x10, 0x99) + mmio(3, 0x100, 0x5A) + mmio(3, 0x100, read=True) + pci(0, 0, 0x72, 0x0A, 1) + pci(1, 0, 0x60, 0x0B0A0509) + pci(1, 0, 0x69, 0x02, 1) + out(0x4D0, 0xF8) + out(0x4D1, 0xDE) + inp(0x4D0) + pci(2, 0, 0x10, 0xFFFFFFFF) + pci(2, 0, 0x10, 0, read=True) + pci(2, 0, 0x10, 0xE0000000) + pci(2, 0, 0x04, 0x03, 2) + pci(2, 0, 0x30, 0xC0001) + mmio(2, 0, read=True) + pci(1, 1, 0x40, 0x8000, 2) + pci(1, 1, 0x42, 0x8000, 2) + out(0xCF9, 0x02) + out(0xCF9, 0x06) + pci(3 | 5 << 2, 0, 0, 0, read=True) + op(11, 3 | 31 << 2, 0, 0x10 | 0xE0 | 2),
 'ps2-mouse': out(0x64, 0xA8) + out(0x64, 0xD4) + out(0x60, 0xF2) + inp(0x64) + inp(0x60) + inp(0x60) + out(0x64, 0xD4) + out(0x60, 0xF3) + out(0x64, 0xD4) + out(0x60, 200) + out(0x64, 0xD4) + out(0x60, 0xF4) + out(0x64, 0x20) + inp(0x60) + out(0x64, 0x60) + out(0x60, 0x47) + out(0x64, 0xD4) + out(0x60, 0xE9) + inp(0x60) + inp(0x60) + inp(0x60) + inp(0x60) + out(0x64, 0xD3) + out(0x60, 0x55) + inp(0x60) + out(0x64, 0xD4) + out(0x60, 0xFF) + clock(1000000) + inp(0x60) + inp(0x60) + inp(0x60) + INTA,
 'dma-memory': out(0x0D, 0) + out(0xDA, 0) + out(0xD6, 0xC0) + out(0xD0, 0x04) + out(0x0B, 0x84) + out(0x09, 0x04) + inp(0x08) + inp(0xD0) + out(0x87, 0x12) + inp(0x87) + out(0x0C, 0) + out(0x00, 0x34) + out(0x00, 0x12) + inp(0x00) + inp(0x00) + out(0xC4, 0x10) + out(0xC4, 0) + out(0xC6, 0x10) + out(0xC6, 0) + out(0xD4, 1) + out(0x0F, 0x0F) + inp(0x0F) + out(0xDE, 0),
}
os.makedirs(out_dir, exist_ok=True)
for name, data in seeds.items():
    open(os.path.join(out_dir, 'seed-' + name), 'wb').write(data)
print(len(seeds), 'seeds')
