#!/usr/bin/env python3
"""Load on the arena server: N games at once between quick remote bots.

Starts `reversi-server` on a free port with a fresh database, registers 2N
teams, creates N games, and plays them all at once, one thread a bot: each
waits for its turn (GET .../turn), picks a random legal move and posts it.
Prints the server's latency per move (a POST's round trip on this machine:
the judging, the SQLite commit and the answer), the moves per second, the
server's CPU time a move (from /proc) and its peak memory (VmHWM).

With THINK_MS, each bot takes that long over each move (a game at 1 s a
move whose bots use most of their second); SERVER_CPUS pins the server to
those processors (taskset's list, e.g. `0`: one core), so that what one
core sustains can be measured.

With LOAD_DB=postgres://... in the environment the server uses that
PostgreSQL database (which should be empty) instead of a fresh SQLite
file, and the CPU time of the machine's `postgres` processes is printed
beside the server's.

Usage: tools/server_load.py SERVER_BINARY [GAMES] [MOVE_TIME_MS] [THINK_MS] [SERVER_CPUS]
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

TOKEN = "load-test-token"


def call(url, method="GET", body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("content-type", "application/json")
    for k, v in (headers or {}).items():
        request.add_header(k, v)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def peak_memory_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """The process's CPU time so far, user and system."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def postgres_cpu_seconds():
    """The CPU time so far of every process named postgres on the machine."""
    total = 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "postgres":
                    continue
            total += cpu_seconds(int(pid))
        except OSError:
            continue
    return total


def main():
    server = sys.argv[1]
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    move_time = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
    think = int(sys.argv[4]) / 1000 if len(sys.argv) > 4 else 0.0
    pin = ["taskset", "-c", sys.argv[5]] if len(sys.argv) > 5 else []
    folder = tempfile.mkdtemp(prefix="server-load-")
    env = dict(os.environ, REVERSI_ADMIN_TOKEN=TOKEN)
    # All the bots share this machine's address: no rate limit.
    db = os.environ.get("LOAD_DB") or f"{folder}/arena.db"
    proc = subprocess.Popen(pin + [server, "--addr", "127.0.0.1:0", "--db", db, "--rate", "0"],
                            stdout=subprocess.PIPE, text=True, env=env)
    url = proc.stdout.readline().split()[-1]
    started = time.perf_counter()
    teams = [(f"team{i}", f"secret-{i:06d}") for i in range(2 * games)]
    for name, secret in teams:
        call(f"{url}/api/teams", "POST", {"name": name, "secret": secret})
    ids = [call(f"{url}/api/games", "POST",
                {"black": teams[2 * g][0], "white": teams[2 * g + 1][0], "move_time_ms": move_time},
                {"authorization": f"Bearer {TOKEN}"})["id"] for g in range(games)]
    print(f"{2 * games} teams and {games} games set up in {time.perf_counter() - started:.1f} s")
    latencies = []
    endings = []
    lock = threading.Lock()

    def bot(game, name, secret, seed):
        rng = random.Random(seed)
        headers = {"x-team": name, "x-secret": secret}
        while True:
            g = call(f"{url}/api/games/{game}/turn?wait=30", headers=headers)
            if g["ending"] is not None:
                with lock:
                    endings.append(g["ending"])
                return
            if not g["your_turn"]:
                continue
            move = rng.choice(g["legal"])
            # Not before the first move: the games' clocks started when they
            # were created, before the bots.
            if think and len(g["moves"]) > 1:
                time.sleep(think)
            t0 = time.perf_counter()
            call(f"{url}/api/games/{game}/move", "POST", {"move": move}, headers)
            with lock:
                latencies.append(time.perf_counter() - t0)

    threads = []
    for g, game in enumerate(ids):
        for side in (0, 1):
            name, secret = teams[2 * g + side]
            threads.append(threading.Thread(target=bot, args=(game, name, secret, g * 2 + side)))
    t0 = time.perf_counter()
    cpu0 = cpu_seconds(proc.pid)
    pg0 = postgres_cpu_seconds()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    memory = peak_memory_kb(proc.pid)
    cpu = cpu_seconds(proc.pid) - cpu0
    # Backends that ended during the run are not counted: the server keeps
    # its connections, so few do.
    pg = postgres_cpu_seconds() - pg0
    proc.kill()
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
    forfeits = sum(1 for e in endings if "forfeits" in e)
    print(f"{games} games at once, {len(latencies)} moves in {wall:.1f} s: {len(latencies) / wall:.0f} moves/s")
    print(f"latency per move (POST round trip): p50 {pick(0.5):.1f} ms, p99 {pick(0.99):.1f} ms, max {latencies[-1] * 1000:.1f} ms")
    print(f"server CPU: {cpu:.2f} s, {1000 * cpu / max(1, len(latencies)):.2f} ms a move "
          f"(a turn offered, a move judged and stored, both players answered)")
    if "LOAD_DB" in os.environ:
        print(f"postgres CPU: {pg:.2f} s, {1000 * pg / max(1, len(latencies)):.2f} ms a move")
    for ending in sorted({e for e in endings if "forfeits" in e})[:3]:
        print(f"  e.g. {ending}")
    print(f"games ended: {len(endings) // 2} ({forfeits // 2} on a forfeit); server peak memory {memory / 1024:.1f} MB")


if __name__ == "__main__":
    main()
