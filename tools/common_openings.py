#!/usr/bin/env python3
"""The N most common positions after PLIES moves in the game archives,
one per position up to the board's 8 symmetries, each written as the move
sequence of the first game that reached it (the openings-file format of
`reversi match --openings`). Usage: common_openings.py GAMES_DIR PLIES N"""
import glob, gzip, os, sys
from collections import Counter

DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]

def play(board, turn, sq):
    f, r = sq
    flips = []
    for df, dr in DIRS:
        run, x, y = [], f + df, r + dr
        while 0 <= x < 8 and 0 <= y < 8 and board.get((x, y)) == 1 - turn:
            run.append((x, y)); x += df; y += dr
        if run and 0 <= x < 8 and 0 <= y < 8 and board.get((x, y)) == turn:
            flips += run
    if (f, r) in board or not flips:
        return False
    board[(f, r)] = turn
    for s in flips:
        board[s] = turn
    return True

def has_move(board, turn):
    saved = dict(board)
    for f in range(8):
        for r in range(8):
            if (f, r) not in board and play(board, turn, (f, r)):
                board.clear(); board.update(saved)
                return True
    return False

def key(board, turn):
    forms = []
    for sym in range(8):
        cells = []
        for r in range(8):
            for f in range(8):
                x, y = f, r
                if sym & 1: x = 7 - x
                if sym & 2: y = 7 - y
                if sym & 4: x, y = y, x
                v = board.get((x, y))
                cells.append('.' if v is None else 'XO'[v ^ turn])
        forms.append(''.join(cells))
    return min(forms)

def games(games_dir):
    with gzip.open(os.path.join(games_dir, 'logistello/logbook.gam.gz'), 'rt') as f:
        for line in f:
            moves = line.split(':')[0]
            yield [moves[i + 1:i + 3] for i in range(0, len(moves), 3)]
    for path in sorted(glob.glob(os.path.join(games_dir, 'wthor/*.wtb'))):
        data = open(path, 'rb').read()
        count = int.from_bytes(data[4:8], 'little')
        for g in range(count):
            rec = data[16 + 68 * g: 16 + 68 * (g + 1)]
            yield ['abcdefgh'[m % 10 - 1] + str(m // 10) for m in rec[8:] if m]

def main():
    games_dir, plies, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    counts, first = Counter(), {}
    for moves in games(games_dir):
        board = {(3, 3): 1, (4, 4): 1, (3, 4): 0, (4, 3): 0}
        turn, ok = 0, True
        for m in moves[:plies]:
            if not has_move(board, turn):
                turn = 1 - turn
            if not play(board, turn, ('abcdefgh'.index(m[0]), int(m[1]) - 1)):
                ok = False
                break
            turn = 1 - turn
        if ok and len(moves) >= plies:
            k = key(board, turn)
            counts[k] += 1
            first.setdefault(k, ''.join(moves[:plies]))
    for k, _ in counts.most_common(n):
        print(first[k])

main()
