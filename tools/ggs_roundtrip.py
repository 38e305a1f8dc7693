#!/usr/bin/env python3
"""A move's round trip over GGS and over HTTP, on one arena server.

Starts `reversi-server --ggs-addr`, plays GAMES games over each protocol
(each move the first legal one, which the script reads over HTTP between
moves, untimed), and prints the time from sending a move to the server's
answer: the mover's `/os: update` for that move over GGS, the 200 of
`POST /api/games/ID/move` over HTTP on a kept-alive connection (both come
after the move is stored). Usage: tools/ggs_roundtrip.py [--games N]
[--bin target/release]
"""

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

def call(url, method="GET", body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    req.add_header("content-type", "application/json")
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read() or b"null")


class Ggs:
    def __init__(self, port, team):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.until(lambda l: "Enter login" in l)
        self.send(team)
        self.until(lambda l: "password" in l)
        self.send(team + "-secret")
        self.until(lambda l: l == ": + /os 1")
        self.send("tell /os client +")

    def send(self, line):
        self.sock.sendall((line + "\n").encode())

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def until(self, wanted):
        while True:
            line = self.line()
            if wanted(line):
                return line


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--bin", default="target/release")
    args = ap.parse_args()
    here = tempfile.mkdtemp()
    env = dict(os.environ, REVERSI_ADMIN_TOKEN="tok")
    ggs_port = socket.socket()
    ggs_port.bind(("127.0.0.1", 0))
    port = ggs_port.getsockname()[1]
    ggs_port.close()
    server = subprocess.Popen(
        [f"{args.bin}/reversi-server", "--db", f"{here}/arena.db", "--addr", "127.0.0.1:0",
         "--ggs-addr", f"127.0.0.1:{port}", "--no-analysis", "--rate", "0"],
        stdout=subprocess.PIPE, env=env, text=True)
    url = server.stdout.readline().split()[-1]
    server.stdout.readline()
    for t in ["ga", "gb", "ha", "hb"]:
        call(f"{url}/api/teams", "POST", {"name": t, "secret": t + "-secret"})
    admin = {"authorization": "Bearer tok"}
    times = {"GGS": [], "HTTP": []}
    a, b = Ggs(port, "ga"), Ggs(port, "gb")
    for _ in range(args.games):
        gid = call(f"{url}/api/games", "POST",
                   {"black": "ga", "white": "gb", "move_time_ms": 600000}, admin)["id"]
        for c in (a, b):
            c.until(lambda l: l.startswith(f"/os: join .{gid} "))
        seen = {a: 0, b: 0}

        def updates(c, n):
            # Reads c's updates of this game until it has had n.
            while seen[c] < n:
                c.until(lambda l: l.startswith(f"/os: update .{gid} "))
                seen[c] += 1

        while True:
            game = call(f"{url}/api/games/{gid}")
            plies = len(game["moves"])
            for c in (a, b):
                updates(c, plies)
            if game["ending"]:
                break
            mover = a if game["to_move"] == "black" else b
            move = "PA" if game["legal"] == ["pass"] else game["legal"][0].upper()
            start = time.perf_counter()
            mover.send(f"tell /os play .{gid} {move}/0.00/0.00")
            updates(mover, plies + 1)
            times["GGS"].append(time.perf_counter() - start)
        for c in (a, b):
            c.until(lambda l: l.startswith(f"/os: - match .{gid} "))
        host, hport = url.split("//")[1].split(":")
        conn = http.client.HTTPConnection(host, int(hport))
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        hid = call(f"{url}/api/games", "POST",
                   {"black": "ha", "white": "hb", "move_time_ms": 600000}, admin)["id"]
        while True:
            game = call(f"{url}/api/games/{hid}")
            if game["ending"]:
                break
            team = "ha" if game["to_move"] == "black" else "hb"
            body = json.dumps({"move": game["legal"][0]})
            headers = {"x-team": team, "x-secret": team + "-secret",
                       "content-type": "application/json"}
            # One kept-alive connection, as a bot's: the time is the
            # server's and the socket's, not a new connection's.
            start = time.perf_counter()
            conn.request("POST", f"/api/games/{hid}/move", body, headers)
            reply = conn.getresponse()
            reply.read()
            times["HTTP"].append(time.perf_counter() - start)
            assert reply.status == 200, reply.status
        conn.close()
    server.terminate()
    server.wait()
    for proto, xs in times.items():
        ms = [x * 1000 for x in xs]
        print(f"{proto}: {len(ms)} moves, median {statistics.median(ms):.2f} ms, "
              f"p99 {percentile(ms, 99):.2f} ms, max {max(ms):.2f} ms")


if __name__ == "__main__":
    sys.exit(main())
