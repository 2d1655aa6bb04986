#!/usr/bin/env python3
"""What tc netem's "delay D loss P%" does, for kernels without netem.

Run in a host's network namespace by tests/cluster/cluster.sh (netem with
a kernel that has no sch_netem): netfilter sends every packet of eth0, both
ways, to an NFQUEUE; this program holds each packet for the delay and then
lets it through, or drops it with the given probability.  Packets keep
their order (one constant delay).  It says "ready" on stdout once the rules
are in place, and removes them when it ends (SIGTERM or SIGINT).

    netem.py [delay 50ms] [loss 1%] [--queue N] [--dev eth0]

Only the standard library is used: the queue is spoken to over a netlink
socket (nfnetlink_queue); the rules are made with nft, or with iptables
where the kernel lacks nft's queue statement (Debian: nftables, iptables).
"""

import heapq
import os
import random
import select
import signal
import socket
import struct
import subprocess
import sys
import time

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQA_CFG_QUEUE_MAXLEN = 3
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
NF_DROP = 0
NF_ACCEPT = 1
TABLE = "fabshmem_netem"


def parse_args(argv):
    delay, loss, queue, dev = 0.0, 0.0, 0, "eth0"
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "delay":
            v = argv[i + 1]
            if v.endswith("ms"):
                delay = float(v[:-2]) / 1000
            elif v.endswith("us"):
                delay = float(v[:-2]) / 1e6
            elif v.endswith("s"):
                delay = float(v[:-1])
            else:
                delay = float(v) / 1000
            i += 2
        elif a == "loss":
            loss = float(argv[i + 1].rstrip("%")) / 100
            i += 2
        elif a == "--queue":
            queue = int(argv[i + 1])
            i += 2
        elif a == "--dev":
            dev = argv[i + 1]
            i += 2
        else:
            sys.exit("netem.py: unknown argument '%s' (delay D, loss P%%, --queue N, --dev D)" % a)
    return delay, loss, queue, dev


def attr(kind, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, kind) + payload + b"\0" * ((4 - n % 4) % 4)


def message(msg_type, queue, attrs, seq=0):
    body = struct.pack("=BBH", socket.AF_UNSPEC, 0, socket.htons(queue)) + b"".join(attrs)
    kind = (NFNL_SUBSYS_QUEUE << 8) | msg_type
    return struct.pack("=IHHII", 16 + len(body), kind, NLM_F_REQUEST, seq, 0) + body


def packet_ids(data):
    """The packet ids of the NFQNL_MSG_PACKET messages in one netlink read."""
    ids = []
    off = 0
    while off + 16 <= len(data):
        length, kind, _flags, _seq, _pid = struct.unpack_from("=IHHII", data, off)
        if length < 16:
            break
        if kind == NLMSG_ERROR:
            err = struct.unpack_from("=i", data, off + 16)[0]
            if err:
                sys.exit("netem.py: netlink error %d" % err)
        elif kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
            a = off + 16 + 4
            end = off + length
            while a + 4 <= end:
                alen, atype = struct.unpack_from("=HH", data, a)
                if alen < 4:
                    break
                if (atype & 0x7FFF) == NFQA_PACKET_HDR:
                    ids.append(struct.unpack_from(">I", data, a + 4)[0])
                a += (alen + 3) & ~3
        off += (length + 3) & ~3
    return ids


def rules_add(dev, queue):
    """Sends eth0's packets, both ways, to the queue ("bypass": they pass
    when nobody listens): with nft where the kernel has its queue
    statement, else with iptables (the xtables NFQUEUE target).  Returns
    how to remove them."""
    script = """table inet %s {
    chain out { type filter hook output priority 0; oifname "%s" queue num %d bypass; }
    chain in { type filter hook prerouting priority 0; iifname "%s" queue num %d bypass; }
}
""" % (TABLE, dev, queue, dev, queue)
    try:
        r = subprocess.run(["nft", "-f", "-"], input=script.encode(), capture_output=True)
        if r.returncode == 0:
            return [["nft", "delete", "table", "inet", TABLE]]
    except FileNotFoundError:
        pass
    undo = []
    for table, chain, io in [("filter", "OUTPUT", "-o"), ("mangle", "PREROUTING", "-i")]:
        spec = [chain, io, dev, "-j", "NFQUEUE", "--queue-num", str(queue), "--queue-bypass"]
        try:
            subprocess.run(["iptables", "-t", table, "-A"] + spec, check=True)
        except (FileNotFoundError, subprocess.CalledProcessError):
            for u in undo:
                subprocess.run(u, check=False)
            sys.exit("netem.py: cannot queue packets to user space: the kernel has no nft "
                     "queue statement and iptables' NFQUEUE failed (install iptables)")
        undo.append(["iptables", "-t", table, "-D"] + spec)
    return undo


def main():
    delay, loss, queue, dev = parse_args(sys.argv[1:])
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    sock.bind((0, 0))
    cmd = struct.pack("=BBH", NFQNL_CFG_CMD_BIND, 0, 0)
    sock.send(message(NFQNL_MSG_CONFIG, queue, [attr(NFQA_CFG_CMD, cmd)]))
    params = struct.pack(">IB", 0, NFQNL_COPY_META)
    sock.send(message(NFQNL_MSG_CONFIG, queue, [attr(NFQA_CFG_PARAMS, params),
                                                attr(NFQA_CFG_QUEUE_MAXLEN,
                                                     struct.pack(">I", 65536))]))
    done = []

    def stop(_sig, _frame):
        done.append(1)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    undo = rules_add(dev, queue)
    print("netem.py: ready: delay %.1f ms, loss %.2f %% on %s (queue %d)"
          % (delay * 1e3, loss * 100, dev, queue), flush=True)
    held = []  # (release time, packet id), in arrival order
    nheld = ndrop = npass = 0
    try:
        while not done:
            now = time.monotonic()
            while held and held[0][0] <= now:
                _t, pid = heapq.heappop(held)
                verdict = NF_DROP if loss and random.random() < loss else NF_ACCEPT
                if verdict == NF_DROP:
                    ndrop += 1
                else:
                    npass += 1
                sock.send(message(NFQNL_MSG_VERDICT, queue,
                                  [attr(NFQA_VERDICT_HDR, struct.pack(">II", verdict, pid))]))
            timeout = max(0.0, held[0][0] - now) if held else 0.5
            try:
                r, _w, _x = select.select([sock], [], [], timeout)
            except InterruptedError:
                continue
            if not r:
                continue
            data = sock.recv(1 << 16)
            t = time.monotonic() + delay
            for pid in packet_ids(data):
                heapq.heappush(held, (t, pid))
                nheld += 1
    finally:
        # The held packets go through at once, then the rules go.
        for _t, pid in held:
            sock.send(message(NFQNL_MSG_VERDICT, queue,
                              [attr(NFQA_VERDICT_HDR, struct.pack(">II", NF_ACCEPT, pid))]))
        for u in undo:
            subprocess.run(u, check=False)
        print("netem.py: %d packets: %d passed, %d dropped" % (nheld, npass, ndrop), flush=True)


if __name__ == "__main__":
    main()
