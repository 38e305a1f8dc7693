#!/usr/bin/env python3
"""Writes OBF midgame positions taken from Logistello's game list, for
comparing midgame searches at a fixed depth (`reversi solve FILE
--depth-limit D` against Edax's `-l D -solve FILE`; BENCHMARKS.md).

The games are shuffled with SEED; each in turn gives the position where
its line first reaches the next of the EMPTIES counts (taken round-robin),
if the side to move has a move there. No scores: the file is for node
counts and times, not for checking answers.

Usage: tools/midgame_positions.py COUNT EMPTIES[,EMPTIES...] SEED [GAMES_GZ]
"""
import gzip
import random
import sys

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(board, me, sq):
    """The squares `me` flips by playing `sq` (a1 = 0, h8 = 63)."""
    if board[sq] != "-":
        return []
    them = "O" if me == "X" else "X"
    row, col = divmod(sq, 8)
    out = []
    for dr, dc in DIRECTIONS:
        r, c, line = row + dr, col + dc, []
        while 0 <= r < 8 and 0 <= c < 8 and board[r * 8 + c] == them:
            line.append(r * 8 + c)
            r, c = r + dr, c + dc
        if line and 0 <= r < 8 and 0 <= c < 8 and board[r * 8 + c] == me:
            out += line
    return out


def has_move(board, me):
    return any(flips(board, me, sq) for sq in range(64))


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.strip().splitlines()[-1])
    count = int(sys.argv[1])
    targets = [int(e) for e in sys.argv[2].split(",")]
    random.seed(int(sys.argv[3]))
    path = sys.argv[4] if len(sys.argv) > 4 else "../shared/data/games/logistello/logbook.gam.gz"
    games = [line for line in gzip.open(path, "rt").read().split("\n") if line.strip()]
    random.shuffle(games)
    print(f"% {count} positions from {path}: games shuffled with seed {sys.argv[3]},")
    print(f"% empties {sys.argv[2]} in turn (tools/midgame_positions.py)")
    found = 0
    for game in games:
        moves = game.split(":")[0]
        board = list("-" * 64)
        board[27] = board[36] = "O"
        board[28] = board[35] = "X"
        me = "X"
        want = targets[found % len(targets)]
        for i in range(0, len(moves), 3):
            if not has_move(board, me):
                me = "O" if me == "X" else "X"
            text = moves[i + 1 : i + 3]
            sq = (int(text[1]) - 1) * 8 + ord(text[0].lower()) - ord("a")
            flipped = flips(board, me, sq)
            if not flipped:
                break  # an illegal line: skip the game
            for x in flipped + [sq]:
                board[x] = me
            me = "O" if me == "X" else "X"
            if board.count("-") == want:
                if has_move(board, me):
                    print("".join(board) + " " + me + ";")
                    found += 1
                break
        if found >= count:
            break


if __name__ == "__main__":
    main()
