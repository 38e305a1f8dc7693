#!/usr/bin/env python3
"""A flood of wrong secrets against a live game, for BENCHMARKS.md.

Starts `reversi-server` (the binary given) on a fresh database, registers
two teams, restarts the server (so that no secret is known good, as after
any restart), creates a game between them, then:

- FLOODERS kept-alive connections from 127.0.0.2, each sending
  `GET /api/games/ID/turn?wait=0` as `X-Team: victim` with a wrong secret
  of its own, as fast as the server answers;
- two honest bots from 127.0.0.1, each waiting for its turn and posting
  the first legal move, timing each move's answer.

Prints the victim's slowest and median move answer, how the game ended
and how the flood was answered. Every client stops after the game or
LIMIT_S seconds, whichever comes first.

    python3 tools/auth_flood.py target/release/reversi-server [--flooders 150] [--move-time 2000]
"""

import argparse
import http.client
import json
import multiprocessing
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time

TOKEN = "flood-bench-token"
LIMIT_S = 120


def start(server, db):
    proc = subprocess.Popen(
        [server, "--addr", "127.0.0.1:0", "--db", db, "--rate", "0"],
        env=dict(os.environ, REVERSI_ADMIN_TOKEN=TOKEN),
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline().strip()
    host, port = line.rsplit("//", 1)[1].split(":")
    return proc, int(port)


def request(port, method, path, headers=None, body=None, source="127.0.0.1"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    data = json.dumps(body) if body is not None else None
    hdrs = {"content-type": "application/json"} if data else {}
    hdrs.update(headers or {})
    conn.request(method, path, body=data, headers=hdrs)
    response = conn.getresponse()
    text = response.read().decode()
    conn.close()
    try:
        return response.status, json.loads(text)
    except ValueError:
        return response.status, text


def flooder(port, game, n, stop, answers, lock):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.0.2", 0))
        i = 0
        while not stop.is_set():
            i += 1
            conn.request(
                "GET",
                f"/api/games/{game}/turn?wait=0",
                headers={"X-Team": "victim", "X-Secret": f"guess-{n}-{i}"},
            )
            response = conn.getresponse()
            response.read()
            with lock:
                answers[response.status] = answers.get(response.status, 0) + 1
            if response.getheader("connection", "").lower() == "close":
                conn.close()
                conn = http.client.HTTPConnection(
                    "127.0.0.1", port, timeout=30, source_address=("127.0.0.2", 0)
                )
    except (OSError, http.client.HTTPException):
        return


def flood(port, game, flooders, stop, counts):
    """The flood, in a process of its own: the honest bots' threads must
    not wait for the flooders' on one interpreter lock."""
    halt = threading.Event()
    answers, lock = {}, threading.Lock()
    threads = [
        threading.Thread(target=flooder, args=(port, game, n, halt, answers, lock), daemon=True)
        for n in range(flooders)
    ]
    for t in threads:
        t.start()
    stop.wait(LIMIT_S)
    halt.set()
    with lock:
        counts.update(answers)


def honest(port, game, team, secret, times, result, stop):
    headers = {"X-Team": team, "X-Secret": secret}
    started = time.monotonic()
    while not stop.is_set():
        status, g = request(port, "GET", f"/api/games/{game}/turn?wait=20", headers)
        result.setdefault(f"{team} first answer", time.monotonic() - started)
        if status != 200:
            result[team] = f"turn answered {status}: {g}"
            return
        if g.get("ending"):
            result[team] = g["ending"]
            return
        if not g.get("your_turn"):
            continue
        sent = time.monotonic()
        status, reply = request(port, "POST", f"/api/games/{game}/move", headers, {"move": g["legal"][0]})
        times.append(time.monotonic() - sent)
        if status != 200:
            result[team] = f"move answered {status}: {reply}"
            return


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server")
    parser.add_argument("--flooders", type=int, default=150)
    parser.add_argument("--move-time", type=int, default=2000)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="reversi-flood-")
    db = os.path.join(folder, "arena.db")
    proc, port = start(args.server, db)
    for team in ["victim", "rival"]:
        status, reply = request(port, "POST", "/api/teams", body={"name": team, "secret": f"{team}-secret"})
        assert status == 201, reply
    proc.kill()
    proc.wait()
    proc, port = start(args.server, db)
    try:
        status, reply = request(
            port,
            "POST",
            "/api/games",
            {"authorization": f"Bearer {TOKEN}"},
            {"black": "victim", "white": "rival", "move_time_ms": args.move_time},
        )
        assert status == 201, reply
        game = reply["id"]
        stop = threading.Event()
        flood_stop = multiprocessing.Event()
        counts = multiprocessing.Manager().dict()
        flooding = multiprocessing.Process(target=flood, args=(port, game, args.flooders, flood_stop, counts))
        flooding.start()
        time.sleep(1.0)
        times = {"victim": [], "rival": []}
        result = {}
        bots = [
            threading.Thread(
                target=honest,
                args=(port, game, team, f"{team}-secret", times[team], result, stop),
                daemon=True,
            )
            for team in ["victim", "rival"]
        ]
        for t in bots:
            t.start()
        deadline = time.monotonic() + LIMIT_S
        for t in bots:
            t.join(max(0.0, deadline - time.monotonic()))
        stop.set()
        flood_stop.set()
        flooding.join(30)
        answers = dict(counts)
        victim = times["victim"] or [float("nan")]
        print(f"{args.flooders} flooders from 127.0.0.2, {args.move_time} ms a move")
        print(
            f"victim's moves answered: {len(times['victim'])}, median {1000 * statistics.median(victim):.1f} ms, "
            f"slowest {1000 * max(victim):.1f} ms"
        )
        first = result.get("victim first answer")
        if first is not None:
            print(f"the victim's first request (its secret checked) answered after {1000 * first:.0f} ms")
        print(f"the game: {result.get('victim', 'unfinished')}")
        print(f"the flood was answered: {dict(sorted(answers.items()))}")
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
