#!/usr/bin/env python3
"""Runs every `npx --yes @bufbuild/buf curl` example of the README and of
docs/api.md against a real release server and writes each one's output into
the code block that follows it, so both show what the service answers today.

    examples/readme-outputs.py            # rewrite the output blocks
    examples/readme-outputs.py --check    # fail if any block is out of date (CI)

The examples call 127.0.0.1:50051 as a reader would; here the server runs on
a free port and the commands are pointed at it. Only `timeMs` may differ
between runs (the examples fix level, seed and depth), so --check ignores it. Needs cargo and npx (Node).
"""

import pathlib
import re
import shlex
import socket
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Every page with examples; each must have at least one.
PAGES = [ROOT / "README.md", ROOT / "docs" / "api.md"]
DOCUMENTED = "127.0.0.1:50051"
EXAMPLE = "npx --yes @bufbuild/buf curl"
# A shell block of examples, then the block that shows their output.
BLOCKS = re.compile(r"```sh\n(?P<commands>(?:(?!```).)*?)```\n```(?P<lang>json|text)\n(?P<output>.*?)```\n", re.S)
# What varies from run to run: timeMs (left out of the JSON when 0).
VARYING = [(re.compile(r'\n\s*"timeMs": \d+,?'), "")]


def steady(text):
    for pattern, replacement in VARYING:
        text = pattern.sub(replacement, text)
    return text


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def commands_of(block):
    """The examples in a shell block, backslash continuations joined."""
    joined = block.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip().startswith(EXAMPLE)]


def run(command, addr):
    argv = [arg.replace(DOCUMENTED, addr) for arg in shlex.split(command)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=ROOT)
    output = done.stdout + done.stderr
    if not output.strip():
        sys.exit(f"no output from: {command}")
    return output


def main():
    check = "--check" in sys.argv[1:]
    subprocess.run(["cargo", "build", "--release", "--locked", "--bin", "tafl"], cwd=ROOT, check=True)
    # The first npx run installs buf and says so on stderr: not in an output block.
    subprocess.run(shlex.split(EXAMPLE)[:-1] + ["--version"], cwd=ROOT, check=True, capture_output=True)
    addr = f"127.0.0.1:{free_port()}"
    server = subprocess.Popen([ROOT / "target/release/tafl", "serve", "--listen", addr], cwd=ROOT)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", int(addr.rsplit(":", 1)[1])), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        stale, rewritten = [], {}
        for page in PAGES:
            text = page.read_text()
            found = []

            def refresh(block):
                commands = commands_of(block["commands"])
                if not commands:
                    return block.group(0)
                found.append(commands[0])
                output = "".join(run(command, addr) for command in commands)
                if steady(output) != steady(block["output"]):
                    stale.append(f"{page.relative_to(ROOT)}: {commands[0]}")
                return f"```sh\n{block['commands']}```\n```{block['lang']}\n{output}```\n"

            updated = BLOCKS.sub(refresh, text)
            if not found:
                sys.exit(f"{page.relative_to(ROOT)} has no example: has the block format changed?")
            print(f"{page.relative_to(ROOT)}: {len(found)} examples")
            if updated != text:
                rewritten[page] = updated
    finally:
        server.terminate()
        server.wait()

    if check:
        for example in stale:
            print(f"output out of date: {example}", file=sys.stderr)
        if stale:
            sys.exit("run examples/readme-outputs.py to rewrite them")
        print("every example of the README and docs/api.md answers as shown")
    else:
        for page, updated in rewritten.items():
            page.write_text(updated)
        print(f"rewrote {len(stale)} output block(s) in {len(rewritten)} page(s)")


if __name__ == "__main__":
    main()
