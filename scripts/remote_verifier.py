#!/usr/bin/env python3
"""A remote verifier worker in Python: the wire protocol of actors/remote_wire.hpp with
pyzmq and msgpack (Debian: python3-zmq python3-msgpack), so that any scorer written in
Python (a unit-test runner, a model judge, a service call) can serve an adarl run.

    python3 scripts/remote_verifier.py --connect tcp://HOST:PORT [--name NAME]

The run listens when its config sets actors.remote_verifiers.bind. This example scores
by exact match of the stripped completion against the item's reference answer (the
"general" verifier's rule); replace `score` with your own. Ctrl-C or SIGTERM says bye and stops.
"""

import argparse
import os
import signal
import socket
import time

import msgpack
import zmq

PROTOCOL = 1


def score(item):
    """(reward in [0, 1], reason): the reason is "" when rewarded, else a short code."""
    if item.get("completion", "").strip() == item.get("answer", "").strip():
        return 1.0, ""
    return 0.0, "mismatch"


def pack(message):
    message["v"] = PROTOCOL
    return msgpack.packb(message, use_bin_type=True, unicode_errors="surrogateescape")


def connect(ctx, args, name):
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 200)
    sock.setsockopt(zmq.ROUTING_ID, name.encode())
    sock.connect(args.connect)
    sock.send(pack({"type": "hello", "credit": args.credit, "name": name}))
    return sock


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connect", required=True, help="the run's endpoint")
    parser.add_argument("--name", default=f"{socket.gethostname()}-{os.getpid()}-py")
    parser.add_argument("--credit", type=int, default=2, help="batches in flight")
    parser.add_argument("--heartbeat", type=float, default=0.5, help="seconds")
    parser.add_argument("--timeout", type=float, default=3.0,
                        help="seconds of coordinator silence before connecting again")
    args = parser.parse_args()

    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)  # also SIGINT where the shell left it ignored
    signal.signal(signal.SIGINT, stop)

    ctx = zmq.Context()
    sock = connect(ctx, args, args.name)
    heard = sent = time.monotonic()
    batches = items = 0
    try:
        while True:
            if sock.poll(50):
                heard = time.monotonic()
                try:
                    # Completions are bytes that need not be UTF-8: kept as they are.
                    message = msgpack.unpackb(sock.recv(), raw=False,
                                              unicode_errors="surrogateescape")
                except (ValueError, msgpack.UnpackException) as e:
                    print(f"skipped a malformed message: {e}", flush=True)
                    continue
                if not isinstance(message, dict) or message.get("v") != PROTOCOL:
                    continue
                if message.get("type") == "verify":
                    verdicts = [score(item) for item in message["items"]]
                    sock.send(pack({"type": "result", "batch": message["batch"],
                                    "rewards": [r for r, _ in verdicts],
                                    "reasons": [why for _, why in verdicts]}))
                    sent = time.monotonic()
                    batches += 1
                    items += len(verdicts)
            now = time.monotonic()
            if now - heard >= args.timeout:  # the run went away or is not up yet
                sock.close()
                sock = connect(ctx, args, args.name)
                heard = sent = now
            elif now - sent >= args.heartbeat:
                sock.send(pack({"type": "heartbeat"}))
                sent = now
    except KeyboardInterrupt:
        pass
    sock.send(pack({"type": "bye"}))
    sock.close()
    print(f"worker {args.name}: stopped after {batches} batches ({items} completions)",
          flush=True)


if __name__ == "__main__":
    main()
