#!/usr/bin/env python3
"""A remote verifier worker in Python: the wire protocol of net/remote_wire.hpp with
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
import sys
import time

import msgpack
import zmq

PROTOCOL = 2


def score(item):
    """(reward in [0, 1], reason): the reason is "" when rewarded, else a short code."""
    if item.get("completion", "").strip() == item.get("answer", "").strip():
        return 1.0, ""
    return 0.0, "mismatch"


def safe_score(item):
    """score(), never raising and always within the protocol's range."""
    try:
        reward, reason = score(item)
        reward = min(1.0, max(0.0, float(reward)))
        return reward, ("" if reward > 0 else (str(reason) or "wrong"))
    except Exception:  # a broken scorer costs a zero reward, not the worker
        return 0.0, "verifier_error"


def pack(message):
    message["v"] = PROTOCOL
    return msgpack.packb(message, use_bin_type=True, unicode_errors="surrogateescape")


def read_keys(path):
    """The "public KEY" and "secret KEY" lines of an `adarl worker keygen` file."""
    keys = {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if len(words) == 2 and words[0] in ("public", "secret"):
                keys[words[0]] = words[1].encode()
    if "public" not in keys or "secret" not in keys:
        raise SystemExit(f"{path}: needs a 'public KEY' and a 'secret KEY' line "
                         "(adarl worker keygen --out FILE writes one)")
    return keys["public"], keys["secret"]


def connect(ctx, args, name):
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 200)
    sock.setsockopt(zmq.ROUTING_ID, name.encode())
    if args.server_key:  # CURVE: encrypted; admitted by our public key if the run lists it
        public, secret = read_keys(args.keys) if args.keys else zmq.curve_keypair()
        sock.curve_serverkey = args.server_key.encode()
        sock.curve_publickey = public
        sock.curve_secretkey = secret
    sock.connect(args.connect)
    sock.send(pack({"type": "hello", "role": "verify", "credit": args.credit, "name": name}))
    return sock


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--connect", required=True, help="the run's endpoint")
    parser.add_argument("--name", default=f"{socket.gethostname()}-{os.getpid()}-py")
    parser.add_argument("--credit", type=int, default=1,
                        help="batches in flight (this example scores one at a time)")
    parser.add_argument("--server-key", default="", help="the run's CURVE public key")
    parser.add_argument("--keys", default="", help="this worker's key file (adarl worker keygen)")
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
    timeout = args.timeout
    batches = items = 0

    def heartbeat_if_due():
        nonlocal sent
        if time.monotonic() - sent >= args.heartbeat:
            sock.send(pack({"type": "heartbeat"}))
            sent = time.monotonic()

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
                if isinstance(message, dict) and message.get("type") == "refused":
                    print(f"worker {args.name}: refused by the run: {message.get('reason')}",
                          flush=True)
                    sys.exit(2)
                if not isinstance(message, dict) or message.get("v") != PROTOCOL:
                    continue
                if message.get("type") == "heartbeat" and message.get("interval"):
                    timeout = max(args.timeout, 4 * float(message["interval"]))
                if message.get("type") == "verify" and "batch" in message:
                    verdicts = []
                    for item in message.get("items", []):
                        verdicts.append(safe_score(item))
                        heartbeat_if_due()  # a slow scorer must not look lost
                    sock.send(pack({"type": "result", "session": message.get("session", 0),
                                    "batch": message["batch"],
                                    "rewards": [r for r, _ in verdicts],
                                    "reasons": [why for _, why in verdicts]}))
                    sent = time.monotonic()
                    batches += 1
                    items += len(verdicts)
            now = time.monotonic()
            if now - heard >= timeout:  # the run went away or is not up yet
                sock.close()
                sock = connect(ctx, args, args.name)
                heard = sent = now
            else:
                heartbeat_if_due()
    except KeyboardInterrupt:
        pass
    try:
        sock.send(pack({"type": "bye"}), zmq.NOBLOCK)
        sock.close()
    except zmq.ZMQError:
        pass
    print(f"worker {args.name}: stopped after {batches} batches ({items} completions)",
          flush=True)


if __name__ == "__main__":
    main()
