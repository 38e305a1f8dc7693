#!/usr/bin/env python3
"""The online judge's figures for BENCHMARKS.md: how long each language's
build takes in the sandbox (submission to `checking`, and to `active`), and
hosted games of our bundle at 1 s a move: games judged per hour and the
reply times as the referee measures them (from the stored moves' times),
with the server's judge slots (`--judges`) as given.

Usage: tools/judge_bench.py [--builds N] [--games N] [--judges N]
         [--move-time MS]
Needs `cargo build --release` and `cargo build --release -p reversi-server`,
bubblewrap, gcc, g++, rustc and python3. Starts its own server on a fresh
SQLite database in a temporary folder.
"""
import argparse
import json
import sqlite3
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"
LANGUAGES = [
    ("c99-gcc", "greedy.c"),
    ("c++17-g++", "greedy.cpp"),
    ("rust2021", "greedy.rs"),
    ("python3", "greedy.py"),
    ("rust2021", "bundle.rs"),
]


class Server:
    def __init__(self, folder, judges):
        self.db = folder / "arena.db"
        args = [str(ROOT / "target/release/reversi-server"), "--addr", "127.0.0.1:0",
                "--db", str(self.db), "--rate", "0", "--sandbox",
                "--programs-dir", str(folder / "programs")]
        if judges:
            args += ["--judges", str(judges)]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        env={"REVERSI_ADMIN_TOKEN": TOKEN, "PATH": _path()})
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening on "):
            raise SystemExit(f"the server did not start: {line}")
        self.url = line.split()[-1]

    def call(self, method, path, body=None, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"content-type": "application/json",
                                                  **(headers or {})})
        try:
            with urllib.request.urlopen(request) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def admin(self, path, body):
        return self.call("POST", path, body, {"authorization": f"Bearer {TOKEN}"})

    def stop(self):
        self.process.kill()
        self.process.wait()


def _path():
    import os
    return os.environ.get("PATH", "/usr/bin:/bin")


def team_headers(team):
    return {"x-team": team, "x-secret": f"{team}-secret"}


def submit(server, team, language, source):
    """Seconds from submission to `checking` (the build) and to `active`."""
    start = time.perf_counter()
    status, reply = server.call("POST", "/api/programs", {"language": language, "source": source},
                                team_headers(team))
    assert status == 201, reply
    built = None
    while True:
        _, p = server.call("GET", f"/api/programs/{reply['id']}", None, team_headers(team))
        now = time.perf_counter() - start
        if p["state"] != "compiling" and p["state"] != "queued" and built is None:
            built = now
        if p["state"] in ("active", "rejected", "ineffective"):
            assert p["state"] == "active", p
            return built, now
        time.sleep(0.01)


def register(server, team):
    status, reply = server.call("POST", "/api/teams", {"name": team, "secret": f"{team}-secret"})
    assert status == 201, reply


def reply_times(db, game_ids, opening_plies=0):
    """Each reply's time (ms) as the referee measured it: from the move
    before (or the game's start) to the move's storing."""
    con = sqlite3.connect(db)
    times = []
    for gid in game_ids:
        start = con.execute("SELECT created_ms FROM games WHERE id = ?", (gid,)).fetchone()[0]
        previous = start
        for (played,) in con.execute(
                "SELECT played_ms FROM moves WHERE game = ? ORDER BY ply", (gid,)):
            times.append(played - previous)
            previous = played
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--judges", type=int, default=0)
    parser.add_argument("--move-time", type=int, default=1000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="judge-bench-"))
    bundle = folder / "bundle.rs"
    subprocess.run([str(ROOT / "target/release/reversi"), "bundle", "--out", str(bundle)],
                   check=True, stderr=subprocess.DEVNULL)
    server = Server(folder, args.judges)
    try:
        if args.builds:
            print(f"builds ({args.builds} each): submission to checking, to active, in s")
        for language, file in LANGUAGES if args.builds else []:
            path = bundle if file == "bundle.rs" else ROOT / "fixtures/judge" / file
            source = path.read_text()
            team = f"b-{file.replace('.', '-')}-{language.replace('+', 'p')}"
            register(server, team)
            runs = [submit(server, team, language, source) for _ in range(args.builds)]
            built = ", ".join(f"{b:.2f}" for b, _ in runs)
            ready = ", ".join(f"{a:.2f}" for _, a in runs)
            print(f"  {language:10} {file:10} built {built}; active {ready}")
        if args.games:
            source = bundle.read_text()
            for team in ("ours-a", "ours-b"):
                register(server, team)
                submit(server, team, "rust2021", source)
            start = time.perf_counter()
            status, reply = server.admin("/api/contests", {
                "name": "bench", "format": "ladder", "entrants": ["ours-a", "ours-b"],
                "games": 1, "per_pair": args.games, "move_time_ms": args.move_time})
            assert status == 201, reply
            cid = reply["id"]
            status, reply = server.admin(f"/api/contests/{cid}/start", {})
            assert status == 200, reply
            while True:
                _, c = server.call("GET", f"/api/contests/{cid}")
                if c["state"] == "finished":
                    break
                time.sleep(0.5)
            elapsed = time.perf_counter() - start
            ids = [g["id"] for g in c["games"]]
            endings = [g["ending"] for g in c["games"]]
            lost = sum("forfeits" in e for e in endings)
            times = sorted(reply_times(server.db, ids))
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
            print(f"{len(ids)} games at {args.move_time} ms a move, judges "
                  f"{args.judges or 'default'}: {elapsed:.0f} s, "
                  f"{len(ids) * 3600 / elapsed:.0f} games an hour; {lost} lost on a technicality")
            print(f"  replies as stored: {len(times)}, mean {statistics.mean(times):.0f} ms, "
                  f"median {statistics.median(times):.0f} ms, p99 {p99} ms, max {times[-1]} ms")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
