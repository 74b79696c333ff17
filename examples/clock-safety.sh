#!/usr/bin/env bash
# The clock's safety (docs/ai.md#time-allocation): full-strength self-play
# through the gRPC service, both players sent the clock, beside two busy
# loops, at three time controls; every move's time is written, and no game
# may be lost on time. Then the plot of the time a move used.
#
#   examples/clock-safety.sh [OUT_DIR]      # default: target/clock-safety
#
# Resumable: each time control's games are appended to OUT_DIR/<control>.games
# (its move times to <control>.csv, its score lines to <control>.log), and a
# rerun goes on after the games already there. GAMES_10S, GAMES_1M and
# GAMES_3M say how many (200, 50 and 20: hours on 2 cores, so run it under
# nohup); THREADS how many games at once (1).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/clock-safety}
mkdir -p "$out"
cargo build --release --locked --bin tafl
# A copy of its own: a rebuild while it runs changes nothing.
cp target/release/tafl "$out/tafl"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$out/tafl" serve --listen "127.0.0.1:$port" --search-threads 2 > "$out/serve.log" 2>&1 &
pids=($!)
for _ in 1 2; do
    (while :; do :; done) &
    pids+=($!)
done
trap 'kill "${pids[@]}" 2> /dev/null' EXIT
sleep 2
server=http://127.0.0.1:$port

# play NAME CLOCK GAMES: the games of one time control not played yet.
play() {
    local name=$1 clock=$2 games=$3 played=0
    if [[ -f $out/$name.games ]]; then
        played=$(wc -l < "$out/$name.games")
    fi
    if ((played < games)); then
        "$out/tafl" match --a "server=$server,level=10" --b "server=$server,level=10" \
            --clock "$clock" --openings real --games "$games" --from-game $((played + 1)) \
            --threads "${THREADS:-1}" --quiet --record "$out/$name.games" \
            --move-times "$out/$name.csv" 2>&1 | tee -a "$out/$name.log"
    fi
}
play 10s 10000+100 "${GAMES_10S:-200}"
play 1m 60000+0 "${GAMES_1M:-50}"
play 3m 180000+2000 "${GAMES_3M:-20}"
python3 examples/plot-move-times.py "$out/move-times.svg" "10 s + 0.1 s=$out/10s.csv" \
    "1 min + 0=$out/1m.csv" "3 min + 2 s=$out/3m.csv"
echo "games lost on time: $(grep -c timeout "$out"/*.games | paste -sd ' ')"
