#!/usr/bin/env bash
# Runs both example clients against a real release server: starts
# `tafl serve` on a free port, plays the same two games with the Rust client
# and with the Python client, and stops the server. Fails if either client
# does, or if they saw different games.
# On a fresh Debian machine (as root) it installs python3 and python3-venv
# if missing; the Python packages go into target/python-venv.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/python-venv

cargo build --release --locked --bin tafl --example client

# Debian splits venv (and ensurepip) out of python3; CI runs there as root.
if ! python3 -c 'import ensurepip, venv' 2> /dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv > /dev/null
fi
if [[ ! -x $venv/bin/python ]]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q -r examples/python/requirements.txt

# A free port: bind port 0, read what the kernel chose, let it go.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
addr=127.0.0.1:$port
target/release/tafl serve --listen "$addr" --search-threads 2 &
server=$!
trap 'kill "$server" 2> /dev/null; wait "$server" 2> /dev/null || true' EXIT

for _ in $(seq 100); do
    (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break
    sleep 0.1
done

# Each client plays a Tablut game to its end (the king escapes at ply 18)
# and a Copenhagen game for 30 plies; levels below 10 are deterministic, so
# both must see the same games.
for game in "--rules tablut --plies 200" "--rules copenhagen --plies 30"; do
    echo "== Rust client: cargo run --release --example client -- $game"
    target/release/examples/client --addr "http://$addr" $game | tee target/client-rust.out
    echo "== Python client: examples/python/client.py $game"
    "$venv/bin/python" examples/python/client.py --addr "$addr" $game | tee target/client-python.out
    diff <(grep -E '^(ply|game over)' target/client-rust.out) <(grep -E '^(ply|game over)' target/client-python.out)
done
echo "both clients played the same games"
