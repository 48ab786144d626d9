#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""nicnl.py: hand-made rtnetlink and ethtool requests to ktgen-nic devices,
with values no well-behaved client sends (ip cannot give a ktgen-nic peer
its own attributes, nor odd lengths). One Python for many requests: each
start costs about a second under TCG.

  nicnl.py walk < LINES
      One request a line: EXPECT OP NAME [KEY VALUE]...; '#' lines skipped.
      EXPECT  "ok", or a regex over the refusal, "ERRNO: extack message"
              (with no space: '.' matches one).
      OP      new (RTM_NEWLINK, create, exclusive), set (RTM_NEWLINK on
              an existing device: its changelink), del (RTM_DELLINK).
      KEY     txq N, rxq N (IFLA_NUM_TX/RX_QUEUES, u32), mtu N, addr HEX,
              netnspid N, raw HEX (bytes appended to the IFLA attributes;
              HEX "-": none), dma N (dma-cpu, u32), style N (rx-style, u32),
              irq HEX (irq-cpus' bytes as given), data HEX (bytes appended
              to IFLA_INFO_DATA), peer NAME (the keys after it are the
              peer's, in KTGEN_A_NIC_PEER), peerraw HEX (KTGEN_A_NIC_PEER's
              payload as given).
      Exit 1 at the first outcome other than EXPECT, saying which.
  nicnl.py burst DEV N OP [ARG]
      N frames (ethertype 0x88b5, broadcast) out of DEV through a packet
      socket, then at once OP on DEV: "down" (SIOCSIFFLAGS), "ring TX"
      (ETHTOOL_SRINGPARAM: the tx ring TX, rx as it is) or "pflags MASK"
      (ETHTOOL_SPFLAGS).
  nicnl.py pflags DEV MASK
      ETHTOOL_SPFLAGS through the ioctl (the netlink path masks to the
      flags' count; this one passes the u32 as given), then
      ETHTOOL_GPFLAGS: prints "ok FLAGS" or "ERRNO FLAGS" (the flags read
      back after it, hex).
"""
import array
import errno
import fcntl
import re
import socket
import struct
import sys

NETLINK_ROUTE, SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 0, 270, 10, 11
RTM_NEWLINK, RTM_DELLINK, NLMSG_ERROR = 16, 17, 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 1, 4, 0x200, 0x400
NLM_F_ACK_TLVS, NLMSGERR_ATTR_MSG = 0x200, 1
IFLA_ADDRESS, IFLA_IFNAME, IFLA_MTU, IFLA_LINKINFO = 1, 3, 4, 18
IFLA_NET_NS_PID, IFLA_NUM_TX_QUEUES, IFLA_NUM_RX_QUEUES = 19, 31, 32
IFLA_INFO_KIND, IFLA_INFO_DATA = 1, 2
A_PEER, A_DMA_CPU, A_RX_STYLE, A_IRQ_CPUS = 1, 2, 3, 4
SIOCGIFFLAGS, SIOCSIFFLAGS, SIOCETHTOOL = 0x8913, 0x8914, 0x8946
ETHTOOL_GRINGPARAM, ETHTOOL_SRINGPARAM = 0x10, 0x11
ETHTOOL_GPFLAGS, ETHTOOL_SPFLAGS = 0x27, 0x28


def unhex(v):
    """Bytes of hex V ("-": none)."""
    return b"" if v == "-" else bytes.fromhex(v)


def attr(t, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, t) + payload + b"\0" * (-n % 4)


def ifinfomsg(index=0):
    return struct.pack("BxHiII", 0, 0, index, 0, 0)


def link_attrs(name, keys):
    """IFLA attributes of NAME and KEYS (txq, rxq, mtu, addr, netnspid)."""
    out = attr(IFLA_IFNAME, name.encode() + b"\0")
    u32 = {"txq": IFLA_NUM_TX_QUEUES, "rxq": IFLA_NUM_RX_QUEUES, "mtu": IFLA_MTU,
           "netnspid": IFLA_NET_NS_PID}
    for k, v in keys:
        if k in u32:
            out += attr(u32[k], struct.pack("I", int(v, 0)))
        elif k == "addr":
            out += attr(IFLA_ADDRESS, unhex(v))
        elif k == "raw":
            out += unhex(v)
        else:
            sys.exit("nicnl: unknown key %s" % k)
    return out


def request(op, name, args):
    """RTM_NEWLINK or RTM_DELLINK for NAME with ARGS' attributes."""
    if op == "del":
        return RTM_DELLINK, 0, ifinfomsg() + attr(IFLA_IFNAME, name.encode() + b"\0")
    keys = list(zip(args[0::2], args[1::2]))
    dev, data, peer, cur = [], b"", None, None
    for k, v in keys:
        if k == "peer":
            peer, cur = v, []
        elif k == "peerraw":
            data += attr(A_PEER, unhex(v))
        elif k == "dma":
            data += attr(A_DMA_CPU, struct.pack("I", int(v, 0)))
        elif k == "style":
            data += attr(A_RX_STYLE, struct.pack("I", int(v, 0)))
        elif k == "irq":
            data += attr(A_IRQ_CPUS, unhex(v))
        elif k == "data":
            data += unhex(v)
        elif cur is not None:
            cur.append((k, v))
        else:
            dev.append((k, v))
    if peer is not None:
        data += attr(A_PEER, ifinfomsg() + link_attrs(peer, cur))
    info = attr(IFLA_INFO_KIND, b"ktgen-nic\0") + attr(IFLA_INFO_DATA, data)
    flags = NLM_F_CREATE | NLM_F_EXCL if op == "new" else 0
    return RTM_NEWLINK, flags, ifinfomsg() + link_attrs(name, dev) + attr(IFLA_LINKINFO, info)


def talk(sk, seq, msgtype, flags, body):
    """'ok' or 'ERRNO: message' for one request."""
    hdr = struct.pack("IHHII", 16 + len(body), msgtype, NLM_F_REQUEST | NLM_F_ACK | flags,
                      seq, 0)
    sk.send(hdr + body)
    while True:
        msg = sk.recv(65536)
        _, mtype, mflags, mseq, _ = struct.unpack_from("IHHII", msg)
        if mtype != NLMSG_ERROR or mseq != seq:
            continue
        err = struct.unpack_from("i", msg, 16)[0]
        if not err:
            return "ok"
        text, off = "", 16 + 4 + 16
        while mflags & NLM_F_ACK_TLVS and off + 4 <= len(msg):
            n, t = struct.unpack_from("HH", msg, off)
            if n < 4:
                break
            if t == NLMSGERR_ATTR_MSG:
                text = msg[off + 4:off + n].rstrip(b"\0").decode()
            off += (n + 3) & ~3
        # (Python names 95 ENOTSUP, the kernel EOPNOTSUPP)
        name = "EOPNOTSUPP" if -err == errno.EOPNOTSUPP else errno.errorcode.get(-err, str(-err))
        return "%s: %s" % (name, text)


def walk():
    sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
    sk.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
    sk.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    for seq, line in enumerate(sys.stdin, 1):
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        expect, op, name, args = w[0], w[1], w[2], w[3:]
        got = talk(sk, seq, *request(op, name, args))
        want_ok = expect == "ok"
        if (got == "ok") != want_ok or \
                (not want_ok and not re.search(expect, got)):
            sys.exit("FAIL: %s: %s, expected %s" % (" ".join(w[1:]), got, expect))
        print("# %s: %s" % (" ".join(w[1:]), got))


def ethtool(sk, dev, buf):
    addr = buf.buffer_info()[0]
    fcntl.ioctl(sk, SIOCETHTOOL, struct.pack("16sP", dev.encode(), addr))


def burst(dev, n, op, arg=None):
    ps = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    ps.bind((dev, 0))
    ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ring = array.array("I", [ETHTOOL_GRINGPARAM] + [0] * 8)
    ethtool(ctl, dev, ring)
    frame = b"\xff" * 6 + b"\x02\0\0\0\0\x01" + b"\x88\xb5" + b"\0" * 50
    for _ in range(n):
        ps.send(frame)
    # At once: the receiver's interrupt is held for rx-usecs.
    if op == "down":
        ifr = fcntl.ioctl(ctl, SIOCGIFFLAGS, struct.pack("16sH14x", dev.encode(), 0))
        flags = struct.unpack_from("H", ifr, 16)[0] & ~1
        fcntl.ioctl(ctl, SIOCSIFFLAGS, struct.pack("16sH14x", dev.encode(), flags))
    elif op == "ring":
        ring[0], ring[8] = ETHTOOL_SRINGPARAM, int(arg, 0)
        ethtool(ctl, dev, ring)
    elif op == "pflags":
        ethtool(ctl, dev, array.array("I", [ETHTOOL_SPFLAGS, int(arg, 0)]))
    else:
        sys.exit("nicnl: unknown burst op %s" % op)


def pflags(dev, mask):
    ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        ethtool(ctl, dev, array.array("I", [ETHTOOL_SPFLAGS, int(mask, 0)]))
        said = "ok"
    except OSError as e:
        said = errno.errorcode.get(e.errno, str(e.errno))
    got = array.array("I", [ETHTOOL_GPFLAGS, 0])
    ethtool(ctl, dev, got)
    print("%s %#x" % (said, got[1]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["walk"]:
        walk()
    elif sys.argv[1:2] == ["pflags"] and len(sys.argv) == 4:
        pflags(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["burst"] and len(sys.argv) >= 5:
        burst(sys.argv[2], int(sys.argv[3]), *sys.argv[4:6])
    else:
        sys.exit(__doc__)
