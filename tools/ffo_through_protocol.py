#!/usr/bin/env python3
"""Plays OBF positions through the judge protocol, one bot process each,
and says whether the reply is among the best listed moves and how long it
took (from writing BEGIN to reading the reply).

Usage: tools/ffo_through_protocol.py [OBF_FILE] [MIN_EMPTIES] [MAX_EMPTIES] [BINARY]
"""
import subprocess
import sys
import time

path = sys.argv[1] if len(sys.argv) > 1 else "fixtures/endgame/fforum-20-39.obf"
low = int(sys.argv[2]) if len(sys.argv) > 2 else 18
high = int(sys.argv[3]) if len(sys.argv) > 3 else 22
binary = sys.argv[4] if len(sys.argv) > 4 else "target/release/reversi"

found = tried = 0
for number, line in enumerate(open(path), 1):
    line = line.split("%")[0].strip()
    if not line:
        continue
    cells, rest = line.split(None, 1)
    side, scores = rest[0], rest[2:]
    empties = cells.count("-")
    if not low <= empties <= high:
        continue
    listed = [p.split(":") for p in scores.split(";") if ":" in p]
    top = max(int(v) for _, v in listed)
    best = [m.strip().lower() for m, v in listed if int(v) == top]
    setup = ["START"]
    for i, c in enumerate(cells):
        if c != "-":
            setup.append(f"PLACE {'abcdefgh'[i % 8]} {i // 8 + 1} {1 if c == side else 2}")
    setup.append("DONE")
    bot = subprocess.Popen([binary, "--log", "brief"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bot.stdin.write("\n".join(setup) + "\n")
    bot.stdin.flush()
    assert bot.stdout.readline().strip() == "OK"
    start = time.perf_counter()
    bot.stdin.write("BEGIN\n")
    bot.stdin.flush()
    reply = bot.stdout.readline().strip().replace(" ", "")
    took = (time.perf_counter() - start) * 1000
    bot.stdin.write("END\n")
    bot.stdin.flush()
    log = bot.communicate()[1]
    search = [l for l in log.splitlines() if l.startswith("played")][-1]
    tried += 1
    found += reply in best
    verdict = "best" if reply in best else f"NOT BEST (best {' '.join(best)} {top:+})"
    print(f"line {number:2} empties {empties}: {reply} {took:4.0f} ms {verdict} | {search}")
print(f"{found} of {tried} positions: a best move")
