#!/usr/bin/env bash
# docs/server.md's two screenshots, made from a server run here: a finished
# knockout's page and an analysed game's page (headless Chromium).
#   tools/screenshots.sh [FOLDER]   (default docs/images; needs a release build)
set -euo pipefail
out=${1:-docs/images}
bin="$PWD/target/release"
dir=$(mktemp -d)
addr=127.0.0.1:8093
REVERSI_ADMIN_TOKEN=shots "$bin/reversi-server" --addr $addr --db "$dir/arena.db" >"$dir/log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
"$bin/reversi-server" wait http://$addr
admin() { curl -sf -X POST "http://$addr$1" -H 'authorization: Bearer shots' -H 'content-type: application/json' -d "$2" >/dev/null; }
for team in deep:6 middle:4 shallow:2 greedy:1; do
  admin /api/teams "{\"name\":\"${team%%:*}\",\"command\":\"$bin/reversi --depth ${team##*:}\"}"
done
admin /api/contests '{"name":"Friday knockout","format":"knockout","entrants":["deep","middle","shallow","greedy"],"seed":3,"move_time_ms":200}'
admin /api/contests/1/start '{}'
until curl -sf http://$addr/api/contests/1 | grep -q '"state":"finished"'; do sleep 0.5; done
until ! curl -sf http://$addr/games/1 | grep -q 'still to come'; do sleep 0.5; done
shoot() { chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --disable-background-networking --user-data-dir="$dir/profile" --window-size="$2" \
  --screenshot="$out/$1" "http://$addr$3" >/dev/null 2>&1; }
shoot contest-page.png 1000,1100 /contests/1
shoot analysed-game.png 1000,1500 /games/1
echo "wrote $out/contest-page.png and $out/analysed-game.png"
