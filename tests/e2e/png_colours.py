#!/usr/bin/env python3
# png_colours.py PNG [RRGGBB...]: a screenshot's pixels read with zlib and
# struct only (no imaging library on a fresh machine): prints how many
# distinct colours it has, then how many pixels of each colour asked for.
# The report's and the history page's screenshots are checked with it.
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
i, idat = 8, b""
while i < len(data):
    n, = struct.unpack(">I", data[i:i + 4]); kind = data[i + 4:i + 8]; body = data[i + 8:i + 8 + n]; i += 12 + n
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, pos, counts = bytearray(stride), 0, {}
for y in range(h):
    f = raw[pos]; line = bytearray(raw[pos + 1:pos + 1 + stride]); pos += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        k = bytes(line[x:x + 3]); counts[k] = counts.get(k, 0) + 1
    prev = line
print(len(counts), *[counts.get(bytes.fromhex(c), 0) for c in sys.argv[2:]])
