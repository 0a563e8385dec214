#!/usr/bin/env python3
"""Reads a pcap of BGP over the loopback and prints one line per BGP message, in the order sent:
'<sender> | <sender address> -> <receiver address> | <TYPE> | <hex>'. Arguments after the file name: router id=name.
The sender is named by the BGP identifier of the OPEN on the same TCP stream: on a loopback the kernel picks the
destination's address as the source of a connection, so addresses do not tell who sent."""
import ipaddress, struct, sys

TYPES = {1: "OPEN", 2: "UPDATE", 3: "NOTIFICATION", 4: "KEEPALIVE", 5: "ROUTE-REFRESH"}
path, names = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
data = open(path, "rb").read()
little = data[:4] == b"\xd4\xc3\xb2\xa1"
end = "<" if little else ">"
linktype = struct.unpack(end + "I", data[20:24])[0]
streams, order, pos = {}, [], 24
while pos + 16 <= len(data):
    _, _, incl, _ = struct.unpack(end + "IIII", data[pos:pos + 16])
    frame, pos = data[pos + 16:pos + 16 + incl], pos + 16 + incl
    ip = frame[14:] if linktype == 1 else frame[16:] if linktype == 113 else frame[4:]
    if ip[0] >> 4 == 4:
        ihl, src, dst, proto = (ip[0] & 15) * 4, ip[12:16], ip[16:20], ip[9]
        tcp = ip[ihl:struct.unpack(">H", ip[2:4])[0]]
    else:
        src, dst, proto = ip[8:24], ip[24:40], ip[6]
        tcp = ip[40:40 + struct.unpack(">H", ip[4:6])[0]]
    if proto != 6:
        continue
    sport, dport, seq = struct.unpack(">HHI", tcp[:8])
    payload = tcp[(tcp[12] >> 4) * 4:]
    key = (str(ipaddress.ip_address(src)), sport, str(ipaddress.ip_address(dst)), dport)
    if key not in streams:
        streams[key] = {}
    if payload and seq not in streams[key]:
        streams[key][seq] = payload
        order.append((key, seq))
# Emit messages in capture order of the segment that completes them.
buffers, done, senders = {k: b"" for k in streams}, set(), {}
for key, seq in order:
    if (key, seq) in done:
        continue
    done.add((key, seq))
    buffers[key] += streams[key][seq]
    buf = buffers[key]
    while len(buf) >= 19 and len(buf) >= struct.unpack(">H", buf[16:18])[0]:
        length = struct.unpack(">H", buf[16:18])[0]
        message, buf = buf[:length], buf[length:]
        if message[18] == 1:
            senders[key] = names.get(str(ipaddress.ip_address(message[24:28])), "?")
        print(f"{senders.get(key, '?')} | {key[0]} -> {key[2]} | {TYPES.get(message[18], message[18])} | {message.hex()}")
    buffers[key] = buf
