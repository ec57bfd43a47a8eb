#!/usr/bin/env python3
# Delay (and loss) for a lab host on kernels built without sch_netem: the host's egress packets are
# queued to this process by iptables' NFQUEUE target (netfilter's userspace queue, built in where
# netem is not), held for the delay and then accepted, or dropped with the given probability. Pure
# Python over a netlink socket (no libnetfilter_queue). Runs in the host's network namespace
# (`ip netns exec`); `bootdeck lab slow` starts it and `heal` stops it. Test bed only.
#
#   nfqueue-delay.py --queue N --delay-ms MS [--loss PCT]
import argparse
import collections
import random
import select
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET, NFQNL_MSG_VERDICT, NFQNL_MSG_CONFIG = 0, 1, 2
NLM_F_REQUEST = 1
NLMSG_ERROR, NLMSG_DONE = 2, 3
NFQA_CFG_CMD, NFQA_CFG_PARAMS, NFQA_CFG_QUEUE_MAXLEN, NFQA_CFG_MASK, NFQA_CFG_FLAGS = 1, 2, 3, 4, 5
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NFQA_CFG_F_FAIL_OPEN = 1
NFQA_PACKET_HDR, NFQA_VERDICT_HDR = 1, 2
NF_DROP, NF_ACCEPT = 0, 1


def attr(kind, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * ((4 - length % 4) % 4)


class Queue:
    def __init__(self, num):
        self.num = num
        self.seq = 0
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind((0, 0))

    def send(self, msg_type, attrs):
        self.seq += 1
        body = struct.pack("=BBH", socket.AF_UNSPEC, 0, socket.htons(self.num)) + b"".join(attrs)
        header = struct.pack("=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | msg_type, NLM_F_REQUEST, self.seq, 0)
        self.sock.send(header + body)

    def configure(self):
        self.send(NFQNL_MSG_CONFIG, [attr(NFQA_CFG_CMD, struct.pack("=BBH", NFQNL_CFG_CMD_BIND, 0, 0))])
        self.send(NFQNL_MSG_CONFIG, [attr(NFQA_CFG_PARAMS, struct.pack(">IB", 0, NFQNL_COPY_META))])
        self.send(NFQNL_MSG_CONFIG, [attr(NFQA_CFG_QUEUE_MAXLEN, struct.pack(">I", 65536))])
        # Fail open: if the queue ever overflows, packets pass instead of being dropped.
        self.send(NFQNL_MSG_CONFIG, [attr(NFQA_CFG_MASK, struct.pack(">I", NFQA_CFG_F_FAIL_OPEN)), attr(NFQA_CFG_FLAGS, struct.pack(">I", NFQA_CFG_F_FAIL_OPEN))])

    def verdict(self, packet_id, verdict):
        self.send(NFQNL_MSG_VERDICT, [attr(NFQA_VERDICT_HDR, struct.pack(">II", verdict, packet_id))])

    def packets(self):
        """Packet ids of the queued packets in one read (several netlink messages per datagram)."""
        try:
            data = self.sock.recv(1 << 20)
        except OSError as e:  # ENOBUFS: the kernel dropped notifications; fail-open lets packets pass
            print(f"nfqueue-delay: {e}", file=sys.stderr)
            return []
        ids = []
        off = 0
        while off + 16 <= len(data):
            length, msg_type, _flags, _seq, _pid = struct.unpack_from("=IHHII", data, off)
            if length < 16:
                break
            if msg_type == NLMSG_ERROR:
                (code,) = struct.unpack_from("=i", data, off + 16)
                if code != 0:
                    raise OSError(-code, f"netlink refused a request (is NFQUEUE available? {code})")
            elif msg_type == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
                a = off + 16 + 4
                end = off + length
                while a + 4 <= end:
                    alen, akind = struct.unpack_from("=HH", data, a)
                    if alen < 4:
                        break
                    if (akind & 0x7FFF) == NFQA_PACKET_HDR:
                        (packet_id,) = struct.unpack_from(">I", data, a + 4)
                        ids.append(packet_id)
                    a += (alen + 3) & ~3
            off += (length + 3) & ~3
        return ids


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--queue", type=int, required=True)
    p.add_argument("--delay-ms", type=float, required=True)
    p.add_argument("--loss", type=float, default=0.0)
    args = p.parse_args()
    q = Queue(args.queue)
    q.configure()
    delay = args.delay_ms / 1000.0
    loss = args.loss / 100.0
    held = collections.deque()  # (release time, packet id), in arrival order: a fixed delay keeps it sorted
    print(f"nfqueue-delay: queue {args.queue}, {args.delay_ms:g} ms delay, {args.loss:g}% loss", flush=True)
    while True:
        now = time.monotonic()
        while held and held[0][0] <= now:
            q.verdict(held.popleft()[1], NF_ACCEPT)
        timeout = max(0.0, held[0][0] - now) if held else 1.0
        ready, _, _ = select.select([q.sock], [], [], timeout)
        if not ready:
            continue
        arrived = time.monotonic()
        for packet_id in q.packets():
            if loss and random.random() < loss:
                q.verdict(packet_id, NF_DROP)
            else:
                held.append((arrived + delay, packet_id))


if __name__ == "__main__":
    main()
