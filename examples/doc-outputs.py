#!/usr/bin/env python3
"""Runs every worked example of the README and docs/ (a shell block, then
the block right after it with what it prints) and writes each one's output
into that block, so the pages show what tafl answers today.

    examples/doc-outputs.py            # rewrite the output blocks (and the files they write)
    examples/doc-outputs.py --check    # fail if any is out of date (CI)

The examples a page may show:
- `npx --yes @bufbuild/buf curl ... http://127.0.0.1:50051/...`: a call to a
  release server, which runs here on a free port the commands are pointed at;
- `cargo run --release -- ARGS` or `tafl ARGS`: the release binary, run from
  the repository's root, its stdout and stderr as a terminal shows them. A
  file it writes with `--svg FILE` is an output too: written to a scratch
  file and compared with FILE;
- a session (the output block's lines are `> ` what is sent to the command's
  stdin, `< ` what it answers): the answers are compared in order.

What depends on the machine or the moment (a call's timeMs, nodes/s,
seconds, the memory a machine has) is masked before comparing, so only what
is deterministic is checked: moves, scores, node counts, reviews. Needs
cargo and npx (Node).
"""

import os
import pathlib
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Every page with worked examples; each must have at least one.
PAGES = [ROOT / "README.md"] + [
    ROOT / "docs" / name for name in ["api.md", "ai.md", "engine.md", "operations.md", "otep.md", "review.md"]
]
TAFL = ROOT / "target" / "release" / "tafl"
DOCUMENTED = "127.0.0.1:50051"
BUF_CURL = "npx --yes @bufbuild/buf curl"
# The binary, as the docs name it.
TAFL_PREFIXES = ["cargo run --release -- ", "tafl "]
# Flags whose value is a file the command writes, checked like its output.
WRITTEN = {"--svg"}
# A shell block of examples, then the block that shows their output.
BLOCKS = re.compile(r"```sh\n(?P<commands>(?:(?!```).)*?)```\n```(?P<lang>json|text)\n(?P<output>.*?)```\n", re.S)
# What varies from run to run, and what stands for it when comparing.
VARYING = [
    (re.compile(r'\n\s*"timeMs": \d+,?'), ""),  # a call's time (left out of the JSON when 0)
    (re.compile(r"\(\d+ ms\)"), "(… ms)"),  # tafl bench: each position's time
    (re.compile(r"\b\d+ nps\b"), "… nps"),  # tafl bench: nodes a second
    (re.compile(r"\d+(\.\d+)? s, \d+(\.\d+)? M leaves/s"), "… s, … M leaves/s"),  # tafl perft
    (re.compile(r"reviewed in \d+(\.\d+)? s"), "reviewed in … s"),  # tafl review
    (re.compile(r"only \d+ MiB of memory is available"), "only … MiB of memory is available"),  # the host's memory
]


def steady(text):
    for pattern, replacement in VARYING:
        text = pattern.sub(replacement, text)
    return text


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def commands_of(block):
    """The commands of a shell block: continuations joined, comments dropped."""
    joined = block.replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in joined.splitlines() if line.strip()]


def session_of(output):
    """A session's lines sent and answers expected, or None if the block is plain output."""
    lines = [line for line in output.splitlines() if line]
    if not lines or not all(line.startswith(("> ", "< ")) for line in lines):
        return None
    return [line[2:] for line in lines if line.startswith("> ")], [line[2:] for line in lines if line.startswith("< ")]


class Example:
    """One command of a page and what it leaves behind: its output and the files it writes."""

    def __init__(self, argv, addr, scratch):
        text = shlex.join(argv)
        self.files = []  # (the file the page names, where this run wrote it)
        if text.startswith(BUF_CURL):
            self.argv = [arg.replace(DOCUMENTED, addr) for arg in argv]
            return
        prefix = next((p for p in TAFL_PREFIXES if text.startswith(p)), None)
        if prefix is None:
            sys.exit(f"not an example this script runs: {text}")
        args = argv[len(prefix.split()) :]
        for i, arg in enumerate(args[:-1]):
            if arg in WRITTEN:
                handle, written = tempfile.mkstemp(dir=scratch, suffix="-" + pathlib.Path(args[i + 1]).name)
                os.close(handle)
                self.files.append((ROOT / args[i + 1], pathlib.Path(written)))
                args[i + 1] = written
        self.argv = [str(TAFL)] + args

    def run(self, stdin=""):
        """What the command prints, stdout and stderr as one stream, given stdin (empty
        by default, so that nothing waits for a terminal)."""
        done = subprocess.run(
            self.argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600, cwd=ROOT
        )
        if not done.stdout.strip():
            sys.exit(f"no output from: {shlex.join(self.argv)}")
        return done.stdout


def refresh(block, page, addr, scratch, stale, files):
    """The block with its output as the commands print it now; notes in stale
    what was out of date, and in files each file to rewrite with the one written now."""
    argvs = commands_of(block["commands"])
    commands = [Example(argv, addr, scratch) for argv in argvs]
    shown = f"{page}: {shlex.join(argvs[0])}"
    session = session_of(block["output"])
    if session is None:
        output = "".join(example.run() for example in commands)
        if steady(output) == steady(block["output"]):
            output = block["output"]  # only what varies differs: the page keeps its figures
        else:
            stale.append(shown)
    else:
        sent, expected = session
        if len(commands) != 1:
            sys.exit(f"a session runs one command: {shown}")
        answers = commands[0].run("".join(line + "\n" for line in sent)).splitlines()
        if answers != expected:
            stale.append(shown)
        if len(answers) != len(expected):
            sys.exit(f"{shown}: {len(answers)} answers where the page shows {len(expected)}; rewrite the session by hand")
        given = iter(answers)
        output = "".join(line if line.startswith(">") else f"< {next(given)}\n" for line in block["output"].splitlines(True))
    for example in commands:
        for named, written in example.files:
            if not named.exists() or named.read_bytes() != written.read_bytes():
                stale.append(f"{shown}: the file {named.relative_to(ROOT)}")
                files.append((named, written))
    return f"```sh\n{block['commands']}```\n```{block['lang']}\n{output}```\n"


def main():
    check = "--check" in sys.argv[1:]
    subprocess.run(["cargo", "build", "--release", "--locked", "--bin", "tafl"], cwd=ROOT, check=True)
    # The first npx run installs buf and says so on stderr: not in an output block.
    subprocess.run(shlex.split(BUF_CURL)[:-1] + ["--version"], cwd=ROOT, check=True, capture_output=True)
    addr = f"127.0.0.1:{free_port()}"
    server = subprocess.Popen([TAFL, "serve", "--listen", addr], cwd=ROOT)
    stale, rewritten, files = [], {}, []
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", int(addr.rsplit(":", 1)[1])), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        with tempfile.TemporaryDirectory() as scratch:
            for page in PAGES:
                name = page.relative_to(ROOT)
                text = page.read_text()
                found = []

                def refreshed(block):
                    found.append(block)
                    return refresh(block, name, addr, pathlib.Path(scratch), stale, files)

                updated = BLOCKS.sub(refreshed, text)
                if not found:
                    sys.exit(f"{name} has no example: has the block format changed?")
                print(f"{name}: {len(found)} examples")
                if updated != text:
                    rewritten[page] = updated
            if not check:
                for named, written in files:
                    shutil.copyfile(written, named)
    finally:
        server.terminate()
        server.wait()

    if check:
        for example in stale:
            print(f"out of date: {example}", file=sys.stderr)
        if stale:
            sys.exit("run examples/doc-outputs.py to rewrite them")
        print("every worked example of the README and docs/ answers as shown")
    else:
        for page, updated in rewritten.items():
            page.write_text(updated)
        print(f"rewrote {len(rewritten)} page(s) and {len(files)} written file(s); {len(stale)} example(s) were out of date")


if __name__ == "__main__":
    main()
