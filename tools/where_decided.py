#!/usr/bin/env python3
"""Where the games of a match against Edax were won and lost.

Replays every game of a `vs_edax.py --out DIR` folder to a few numbers of
empty squares, values each position from the bot's side, and prints, stage
by stage, the mean value and the points the bot would score were the game
decided there. Positions with up to EXACT empties are solved exactly by
the bot's own solver; those with more are valued by Edax at a fixed level
(a second opinion that is not the bot's evaluation), each stage on its own
process.

Usage: where_decided.py MATCH_DIR EDAX_DIR [--bot BIN] [--level L]
                        [--stages 48,40,32,28,24,20] [--exact 24]

On the 2-core machine the defaults take about half an hour for 200 games:
Edax's level 22 spends some 18 minutes on each of the stages at 28 and 32
empties, and the exact solves at 24 empties about 10.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import statistics
import subprocess
import tempfile

DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(board, row, col, me):
    if board[row][col] != "-":
        return []
    them = "O" if me == "X" else "X"
    turned = []
    for dr, dc in DIRS:
        r, c, run = row + dr, col + dc, []
        while 0 <= r < 8 and 0 <= c < 8 and board[r][c] == them:
            run.append((r, c))
            r, c = r + dr, c + dc
        if run and 0 <= r < 8 and 0 <= c < 8 and board[r][c] == me:
            turned += run
    return turned


def can_move(board, me):
    return any(flips(board, r, c, me) for r in range(8) for c in range(8))


def position_at(moves, empties):
    """The OBF position (board, side to move) once `empties` squares are
    left, or None if the game ended before."""
    board = [["-"] * 8 for _ in range(8)]
    board[3][3] = board[4][4] = "O"
    board[3][4] = board[4][3] = "X"
    me, left = "X", 60
    squares = [moves[i : i + 2] for i in range(0, len(moves), 2)]
    for square in squares + [None]:
        if not can_move(board, me):
            me = "O" if me == "X" else "X"
        if left == empties:
            return "".join("".join(row) for row in board), me
        if square is None:
            return None
        col, row = ord(square[0]) - ord("a"), int(square[1]) - 1
        turned = flips(board, row, col, me)
        if not turned:
            raise ValueError(f"illegal move {square} in {moves}")
        board[row][col] = me
        for r, c in turned:
            board[r][c] = me
        me = "O" if me == "X" else "X"
        left -= 1
    return None


def read_games(match_dir):
    games = []
    with open(os.path.join(match_dir, "games.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            number, colour, _result, discs, moves = line.rstrip("\n").split("\t")[:5]
            ours, theirs = map(int, discs.split("-"))
            games.append((int(number), colour == "black", ours - theirs, moves))
    return games


def edax_values(edax_dir, level, positions):
    """Edax's score of each position, for the side to move."""
    with tempfile.NamedTemporaryFile("w", suffix=".obf", delete=False) as f:
        for board, side in positions:
            f.write(f"{board} {side};\n")
        path = f.name
    exe = sorted(glob.glob(os.path.join(edax_dir, "bin", "lEdax-*")))[0]
    try:
        out = subprocess.run(
            [exe, "-n", "1", "-l", str(level), "-solve", path],
            cwd=edax_dir, capture_output=True, text=True, check=True,
        ).stdout
    finally:
        os.unlink(path)
    scores = [int(m.group(1)) for m in re.finditer(r"^\s*\d+\|\s*\S+\s+([+-]\d+)", out, re.M)]
    if len(scores) != len(positions):
        raise RuntimeError(f"Edax valued {len(scores)} of {len(positions)} positions")
    return scores


def exact_values(bot, positions):
    """The bot's exact score of each position, for the side to move."""
    text = "".join(f"{board} {side}\n" for board, side in positions)
    out = subprocess.run([bot, "solve"], input=text, capture_output=True, text=True, check=True).stdout
    scores = [int(m.group(1)) for m in re.finditer(r"^line .* exact ([+-]?\d+) ", out, re.M)]
    if len(scores) != len(positions):
        raise RuntimeError(f"the solver scored {len(scores)} of {len(positions)} positions")
    return scores


def points(value):
    return 1.0 if value > 0 else 0.5 if value == 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("match_dir")
    ap.add_argument("edax_dir")
    ap.add_argument("--bot", default="target/release/reversi")
    ap.add_argument("--level", type=int, default=22)
    ap.add_argument("--stages", default="48,40,32,28,24,20")
    ap.add_argument("--exact", type=int, default=24)
    args = ap.parse_args()
    stages = sorted({int(s) for s in args.stages.split(",")}, reverse=True)
    games = read_games(args.match_dir)

    def value_stage(empties):
        # Games over before this stage take their final result.
        found = [(g, position_at(g[3], empties)) for g in games]
        asked = [p for _, p in found if p is not None]
        if empties <= args.exact:
            scores = iter(exact_values(args.bot, asked))
        else:
            scores = iter(edax_values(args.edax_dir, args.level, asked))
        values = []
        for (number, bot_black, final, _), p in found:
            if p is None:
                values.append(final)
                continue
            score = next(scores)
            values.append(score if (p[1] == "X") == bot_black else -score)
        return values

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        by_stage = dict(zip(stages, pool.map(value_stage, stages)))
    by_stage[0] = [final for _, _, final, _ in games]
    rows = stages + [0]
    print(f"{len(games)} games; bot's view: value in discs (exact up to {args.exact} empties, Edax level {args.level} above)")
    print("empties | mean value | points if decided there | change since the stage before")
    for i, e in enumerate(rows):
        v = by_stage[e]
        change = ""
        if i:
            d = [b - a for a, b in zip(by_stage[rows[i - 1]], v)]
            change = (f"{statistics.mean(d):+.2f}; bot dropped {sum(max(0, points(a) - points(b)) for a, b in zip(by_stage[rows[i - 1]], v))}"
                      f", Edax {sum(max(0, points(b) - points(a)) for a, b in zip(by_stage[rows[i - 1]], v))} points")
        label = "end" if e == 0 else str(e)
        print(f"{label:>7} | {statistics.mean(v):+10.2f} | {sum(points(x) for x in v):>6} of {len(v)} | {change}")


if __name__ == "__main__":
    main()
