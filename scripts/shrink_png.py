#!/usr/bin/env python3
"""Re-encodes PNGs smaller, losslessly, with the standard library only: the
8-bit RGBA pictures quadbin-demo --headless writes (SFML's encoder uses one
filter and light compression) become RGB (when fully opaque) or a palette
(when they have at most 256 colours), with the best filter per row and
zlib level 9. Used for the committed screenshots (docs/images/demo-*.png).

    scripts/shrink_png.py FILE.png [FILE.png ...]    # rewrites them in place
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError(f"{path}: only 8-bit RGB/RGBA, non-interlaced PNGs are handled")
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
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
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def filtered(line, previous, bpp):
    """The five PNG filters of one row; the one with the smallest sum of
    absolute (signed) bytes is the usual heuristic."""
    n = len(line)
    out = []
    for kind in range(5):
        f = bytearray(n)
        for i in range(n):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = left
            elif kind == 2:
                pred = up
            elif kind == 3:
                pred = (left + up) // 2
            else:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
            f[i] = (line[i] - pred) & 255
        out.append((sum(b if b < 128 else 256 - b for b in f), kind, f))
    return min(out)[1:]


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def write_png(path, width, height, channels, rows):
    opaque = channels == 3 or all(row[i] == 255 for row in rows for i in range(3, len(row), 4))
    pixels = [[bytes(row[i:i + 3]) for i in range(0, len(row), channels)] for row in rows]
    colours = {}
    for row in pixels:
        for p in row:
            if p not in colours:
                colours[p] = len(colours)
                if len(colours) > 256:
                    break
    if opaque and len(colours) <= 256:
        # Palette: one byte per pixel, no filter (filters do not help indices).
        palette = b"".join(sorted(colours, key=colours.get))
        raw = b"".join(b"\x00" + bytes(colours[p] for p in row) for row in pixels)
        header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
        extra = chunk(b"PLTE", palette)
    else:
        bpp = 3 if opaque else 4
        lines = [b"".join(row) for row in pixels] if opaque else rows
        raw, previous = bytearray(), bytes(len(lines[0]))
        for line in lines:
            kind, f = filtered(line, previous, bpp)
            raw += bytes([kind]) + f
            previous = line
        header = struct.pack(">IIBBBBB", width, height, 8, 2 if opaque else 6, 0, 0, 0)
        extra = b""
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra +
            chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))
    open(path, "wb").write(data)
    return len(data)


def main(paths):
    for path in paths:
        before = len(open(path, "rb").read())
        after = write_png(path, *read_png(path))
        print(f"{path}: {before} -> {after} bytes")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
