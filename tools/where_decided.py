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

from midgame_positions import flips, has_move


def position_at(moves, empties):
    """The OBF position (board, side to move) once `empties` squares are
    left, or None if the game ended before."""
    board = list("-" * 64)
    board[27] = board[36] = "O"
    board[28] = board[35] = "X"
    me, left = "X", 60
    squares = [moves[i : i + 2] for i in range(0, len(moves), 2)]
    for square in squares + [None]:
        if not has_move(board, me):
            me = "O" if me == "X" else "X"
        if left == empties:
            return "".join(board), me
        if square is None:
            return None
        sq = (int(square[1]) - 1) * 8 + ord(square[0]) - ord("a")
        turned = flips(board, me, sq)
        if not turned:
            raise ValueError(f"illegal move {square} in {moves}")
        for x in turned + [sq]:
            board[x] = me
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
            pairs = list(zip(by_stage[rows[i - 1]], v))
            moved = statistics.mean(b - a for a, b in pairs)
            bot = sum(max(0, points(a) - points(b)) for a, b in pairs)
            edax = sum(max(0, points(b) - points(a)) for a, b in pairs)
            change = f"{moved:+.2f}; bot dropped {bot}, Edax {edax} points"
        label = "end" if e == 0 else str(e)
        print(f"{label:>7} | {statistics.mean(v):+10.2f} | {sum(points(x) for x in v):>6} of {len(v)} | {change}")


if __name__ == "__main__":
    main()
