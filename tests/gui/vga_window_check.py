#!/usr/bin/env python3
"""Checks that the inspector's VGA window shows the adapter's screen dot for dot.

usage: vga_window_check.py WINDOW.png DUMP.txt SCREEN.ppm

WINDOW.png is the VGA window's screenshot (the script verb `screenshot-window`), DUMP.txt
the text dump of the same frame (its "==== VGA text screen ==== at X,Y" header and the
window's "picture at X,Y size WxH scale S" line place the picture inside the window),
SCREEN.ppm the screen of the same machine state as `x86lab run --screendump` writes it
(Vga::render, which the peer.qemu.vga_* tests compare with QEMU's screendump). Passes
when the picture is the screen scaled by S (a whole number) with every window pixel
equal to its screen dot: the window shows the mode set, at its size, unfiltered.
Exit status 0 on a match, 1 on a mismatch, 2 on an unreadable file.
"""
import re
import struct
import sys
import zlib


def read_png(path):
    """An 8-bit RGB or RGBA, non-interlaced PNG as (width, height, RGB bytes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit("%s: only 8-bit RGB/RGBA non-interlaced PNGs are read" % path)
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # the PNG specification's filter types 0-4
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + predictor) & 255
        rows.append(bytes(line))
        previous = line
    rgb = bytearray()
    for line in rows:
        if channels == 3:
            rgb += line
        else:
            for x in range(width):
                rgb += line[4 * x:4 * x + 3]
    return width, height, bytes(rgb)


def read_ppm(path):
    data = open(path, "rb").read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at + 1].isspace():
            at += 1
        start = at
        while not data[at:at + 1].isspace():
            at += 1
        fields.append(data[start:at])
    if fields[0] != b"P6" or fields[3] != b"255":
        sys.exit("%s: not a binary 8-bit PPM" % path)
    return int(fields[1]), int(fields[2]), data[at + 1:]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    shot_w, shot_h, shot = read_png(sys.argv[1])
    dump = open(sys.argv[2]).read()
    screen_w, screen_h, screen = read_ppm(sys.argv[3])
    window = re.search(r"==== VGA text screen ==== at (-?\d+),(-?\d+) size (\d+)x(\d+)", dump)
    picture = re.search(r"picture at (-?\d+),(-?\d+) size (\d+)x(\d+) scale ([0-9.]+)", dump)
    if not window or not picture:
        print("the dump has no VGA window with a picture")
        return 1
    wx, wy = int(window.group(1)), int(window.group(2))
    px, py, pw, ph = (int(picture.group(i)) for i in range(1, 5))
    scale = float(picture.group(5))
    print("window %dx%d at %d,%d; picture %dx%d at %d,%d, scale %g; screen %dx%d" %
          (shot_w, shot_h, wx, wy, pw, ph, px, py, scale, screen_w, screen_h))
    if scale != int(scale) or (pw, ph) != (screen_w * int(scale), screen_h * int(scale)):
        print("the picture is not the screen at a whole scale")
        return 1
    scale = int(scale)
    left, top = px - wx, py - wy
    if left < 0 or top < 0 or left + pw > shot_w or top + ph > shot_h:
        print("the picture is not inside the window's screenshot")
        return 1
    bad = 0
    for y in range(ph):
        row = (top + y) * shot_w
        dots = (y // scale) * screen_w
        for x in range(pw):
            a = 3 * (row + left + x)
            b = 3 * (dots + x // scale)
            if shot[a:a + 3] != screen[b:b + 3]:
                if bad < 5:
                    print("window pixel (%d, %d): %s, screen dot (%d, %d): %s" %
                          (x, y, tuple(shot[a:a + 3]), x // scale, y // scale, tuple(screen[b:b + 3])))
                bad += 1
    print("%d of %d picture pixels differ from the screen" % (bad, pw * ph))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
