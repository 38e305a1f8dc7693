#!/usr/bin/env python3
"""Start-up latency of the bot: from starting the process to reading its OK
after DONE, the median over many starts, next to the same round trip with
`cat` (what starting any process and a pipe round trip cost here).

Usage: tools/startup_latency.py [BINARY] [RUNS]
"""
import statistics
import subprocess
import sys
import time

SETUP = b"START\nPLACE d 5 1\nPLACE e 5 2\nPLACE e 4 1\nPLACE d 4 2\nDONE\n"


def median_ms(command, message, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        p.stdin.write(message)
        p.stdin.flush()
        p.stdout.readline()
        times.append((time.perf_counter() - start) * 1000)
        p.stdin.close()
        p.kill()
        p.wait()
    return statistics.median(times)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/reversi"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    base = median_ms(["cat"], b"OK\n", runs)
    print(f"cat round trip: median {base:.2f} ms over {runs} starts")
    for args in ([], ["--hash", "256"]):
        ms = median_ms([binary] + args, SETUP, runs)
        print(f"reversi {' '.join(args) or '(defaults)'}: start to OK median {ms:.2f} ms")


if __name__ == "__main__":
    main()
