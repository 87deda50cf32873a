#!/usr/bin/env python3
# bad_record.py FILE - makes the record in the middle of a version 1 trace
# file bad (its size field 3: not a multiple of 8), so the reader stops
# there; prints its index among the file's records.
import struct
import sys

path = sys.argv[1]
with open(path, 'r+b') as f:
    data = bytearray(f.read())
    magic, version = data[0:8], struct.unpack_from('<I', data, 8)[0]
    data_off, committed = struct.unpack_from('<QQ', data, 16)
    offs, off = [], data_off
    while off + 8 <= data_off + committed and off + 8 <= len(data):
        size = struct.unpack_from('<H', data, off + 2)[0]
        if size < 16:
            break
        offs.append(off)
        off += size
    mid = offs[len(offs) // 2]
    struct.pack_into('<H', data, mid + 2, 3)
    f.seek(0)
    f.write(data)
print(len(offs) // 2)
