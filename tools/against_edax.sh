#!/usr/bin/env bash
# The solver and move generator next to Edax's, in the same run (so on the
# same machine at the same hour): FFO #20-#39 solved exactly on one thread,
# and perft 11 both ways: sharing the counts of positions met again (ours by
# default, Edax's `-count games 11`) and enumerating every line (ours with
# --every-line, Edax's interactive `perft 11`). Edax's side runs only when
# EDAX_DIR names a built anchor (../shared/anchors/build-edax.sh DIR).
# Usage: [EDAX_DIR=DIR] tools/against_edax.sh [BINARY]
set -euo pipefail
bin=$(realpath "${1:-target/release/reversi}")
cd "$(dirname "$0")/.."
echo "== reversi: FFO #20-#39, exact"
"$bin" solve fixtures/endgame/fforum-20-39.obf | tail -1
echo "== reversi: perft 11, positions met again shared"
"$bin" perft 11 | tail -1
echo "== reversi: perft 11 --every-line"
"$bin" perft 11 --every-line | tail -1
if [ -n "${EDAX_DIR:-}" ]; then
  EDAX_DIR=$(realpath "$EDAX_DIR")
  exe=$(ls "$EDAX_DIR"/bin/lEdax-* | head -1)
  echo "== Edax: FFO #20-#39, exact, one thread"
  (cd "$EDAX_DIR" && "$exe" -n 1 -solve problem/fforum-20-39.obf | tail -1)
  echo "== Edax: count games 11 (positions met again shared)"
  (cd "$EDAX_DIR" && "$exe" -count games 11 | grep -E '^ +11,')
  echo "== Edax: perft 11 (every line)"
  # Edax reads commands on a thread of its own: a `quit` sent at once
  # ends it before the count, so it waits a few seconds.
  (cd "$EDAX_DIR" && (echo 'perft 11'; sleep 5; echo quit) | "$exe" -n 1 | grep -E '^ +11,')
else
  echo "(EDAX_DIR not set: Edax's side skipped)"
fi
