#!/usr/bin/env bash
# Runs the three example clients against a real release server: starts
# `tafl serve` on a free port, plays the same two games with the Rust, the
# Python and the TypeScript (Node) client, and stops the server. Fails if a
# client does, or if they saw different games.
# On a fresh Debian machine (as root) it installs python3, python3-venv,
# nodejs and npm if missing; the Python packages go into target/python-venv,
# the Node ones into examples/node/node_modules (npm ci: the lock file's).
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
if ! command -v npm > /dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm > /dev/null
fi
(cd examples/node && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build)

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

# Each client plays a Tablut game to its end (the king escapes, at ply 82 today)
# and a Copenhagen game for 30 plies; levels below 10 are deterministic, so
# all three must see the same games.
for game in "--rules tablut --plies 200" "--rules copenhagen --plies 30"; do
    echo "== Rust client: cargo run --release --example client -- $game"
    target/release/examples/client --addr "$addr" $game | tee target/client-rust.out
    echo "== Python client: examples/python/client.py $game"
    "$venv/bin/python" examples/python/client.py --addr "$addr" $game | tee target/client-python.out
    echo "== TypeScript client: npm --prefix examples/node start -- $game"
    npm --prefix examples/node --silent start -- --addr "$addr" $game | tee target/client-node.out
    for other in python node; do
        diff <(grep -E '^(ply|game over)' target/client-rust.out) <(grep -E '^(ply|game over)' "target/client-$other.out")
    done
done
echo "the three clients played the same games"
