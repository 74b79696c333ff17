#!/usr/bin/env bash
# The README's examples of ValidateGame, Analyze, Threats, LegalMoves with
# previews and ApplyMove with the next side's moves, with their real output:
# builds and starts the server, calls each RPC with buf curl, and writes each
# command and what it answered between the README's `<!-- example: NAME -->`
# markers. `--check` only compares (the analysis's timeMs and nodes aside)
# and fails when the README is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-write}
port=${TAFL_EXAMPLES_PORT:-50077}
url="http://127.0.0.1:$port/tafl.v1.TaflService"

cargo build --release --quiet --bin tafl
target/release/tafl serve --listen "127.0.0.1:$port" --search-threads 1 >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.1
done

blocks=$(mktemp -d)
example() {
    local name=$1 rpc=$2 body=$3
    # Shown against the default address, as a reader would run it.
    local command="npx --yes @bufbuild/buf curl --protocol grpc --http2-prior-knowledge http://127.0.0.1:50051/tafl.v1.TaflService/$rpc \\
  -d '$body'"
    local output
    output=$(npx --yes @bufbuild/buf curl --protocol grpc --http2-prior-knowledge "$url/$rpc" -d "$body" 2>&1 || true)
    printf '```sh\n%s\n```\n```json\n%s\n```\n' "$command" "$output" >"$blocks/$name"
}

example legal-moves LegalMoves \
    '{"game":{"start":"/1t9/11/7T3/7K3/11/6t4/3tT1t4/6t4/11/11/11/ a"},"square":"g5"}'
example apply-move-turn ApplyMove \
    '{"game":{"start":"/11/11/11/11/11/T4K5/11/11/tT9/11/11/ d"},"next_move":"f6-f7","include_legal_moves":true}'
example validate-game ValidateGame \
    '{"game":{"moves":["d1-d3","e5-e2","g1-g3","f4-c4","g3-e3","e2-e1"]}}'
example analyze Analyze \
    '{"game":{"variant":{"rules":"RULES_TABLUT"}},"limits":{"max_depth":2},"multi_pv":2}'
example threats Threats \
    '{"game":{"start":"/11/11/9t1/11/2T8/10t/4K6/11/11/11/11/ d"}}'

python3 - "$blocks" "$mode" <<'PY'
import pathlib, re, sys
blocks, mode = pathlib.Path(sys.argv[1]), sys.argv[2]
readme = pathlib.Path("README.md")
text = readme.read_text()
volatile = re.compile(r'^\s*"(timeMs|nodes)":.*\n', re.M)
stale = []
for block in sorted(blocks.iterdir()):
    pattern = re.compile(r"(<!-- example: %s -->\n).*?(<!-- /example -->)" % re.escape(block.name), re.S)
    if not pattern.search(text):
        sys.exit(f"README.md has no <!-- example: {block.name} --> marker")
    new = pattern.sub(lambda m: m.group(1) + block.read_text() + m.group(2), text)
    old_block = pattern.search(text).group(0)
    new_block = pattern.search(new).group(0)
    if volatile.sub("", old_block) != volatile.sub("", new_block):
        stale.append(block.name)
    text = new
if mode == "--check":
    if stale:
        sys.exit("README.md examples are stale: " + ", ".join(stale) + " (run scripts/rpc-examples.sh)")
    print("README.md examples are current")
else:
    readme.write_text(text)
    print("README.md examples written" + (": " + ", ".join(stale) if stale else " (unchanged)"))
PY
