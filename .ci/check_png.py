#!/usr/bin/env python3
"""Fails unless PATH is a PNG picture with content: not one flat colour.

Decodes 8-bit RGB/RGBA non-interlaced PNGs (what the examples write) with the standard
library only, and requires at least MIN_COLOURS distinct colours and MIN_FILL of the pixels
differing from the most common (background) colour.
"""
import collections
import struct
import sys
import zlib

MIN_COLOURS = 8
MIN_FILL = 0.02


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit(f"{path}: unsupported PNG format (depth {depth}, colour type {colour})")
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    rows = []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - bpp] if x >= bpp else 0
            up = previous[x]
            corner = previous[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[x] = (line[x] + predictor) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, [row[i:i + 3] for row in rows for i in range(0, stride, bpp)]


def main():
    path = sys.argv[1]
    width, height, colours = pixels(path)
    counts = collections.Counter(colours)
    background, most = counts.most_common(1)[0]
    fill = 1 - most / len(colours)
    print(f"{path}: {width}x{height}, {len(counts)} colours, {fill:.1%} not background")
    if len(counts) < MIN_COLOURS or fill < MIN_FILL:
        sys.exit(f"{path} looks blank")


main()
