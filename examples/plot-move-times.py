#!/usr/bin/env python3
"""Plots the time each move used against the move number, from the files
`tafl match --move-times FILE` writes (a CSV line a move:
`game,ply,side,player,used_ms,left_ms`), as one small SVG: a panel per file,
each with the median, the 90th percentile and the most of the time used at
each ply, and in its title the games, the losses on time (a move with
nothing left) and the least any clock held after a move.

    examples/plot-move-times.py OUT.svg "10 s + 0.1 s=times-10s.csv" "1 min=times-1m.csv" ...

Plain Python, no packages: the picture is a few lines per panel, so it
stays small enough to keep in docs/.
"""

import csv
import statistics
import sys
from collections import defaultdict

WIDTH, PANEL_HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 720, 220, 64, 16, 30, 34
SERIES = [("median", "#1f77b4"), ("90th percentile", "#ff7f0e"), ("most", "#d62728")]


def read(path):
    """Times used by ply (ms), the games, the losses on time and the least time left (ms)."""
    used = defaultdict(list)
    games, lost, least = set(), 0, None
    with open(path, newline="") as file:
        for row in csv.reader(file):
            if len(row) != 6:
                continue
            game, ply, _side, _player, used_ms, left_ms = row
            games.add(game)
            used[int(ply)].append(float(used_ms))
            if left_ms:
                left = int(left_ms)
                lost += left == 0
                least = left if least is None else min(least, left)
    return used, len(games), lost, least


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def nice_step(span, ticks=5):
    """A round step that cuts `span` into about `ticks` parts."""
    raw = span / ticks
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    while magnitude > raw:
        magnitude /= 10
    for factor in (1, 2, 5, 10):
        if magnitude * factor >= raw:
            return magnitude * factor
    return magnitude * 10


def panel(label, path, top):
    used, games, lost, least = read(path)
    # Plies that most games reached: the tail of a few long games says little.
    plies = [ply for ply in sorted(used) if len(used[ply]) * 10 >= games]
    lines = {
        "median": [(ply, statistics.median(used[ply])) for ply in plies],
        "90th percentile": [(ply, percentile(used[ply], 0.9)) for ply in plies],
        "most": [(ply, max(used[ply])) for ply in plies],
    }
    seconds = max((value for series in lines.values() for _, value in series), default=1) / 1000
    y_step = nice_step(seconds)
    y_max = y_step * (int(seconds / y_step) + 1)
    x_max = max(plies, default=1)
    x_step = nice_step(x_max)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, PANEL_HEIGHT - TOP - BOTTOM

    def x(ply):
        return LEFT + plot_w * ply / x_max

    def y(ms):
        return top + TOP + plot_h * (1 - ms / 1000 / y_max)

    least_text = "" if least is None else f"; least left after a move {least / 1000:.2f} s"
    out = [
        f'<text x="{LEFT}" y="{top + 18}" font-weight="bold">{label}: {games} games, '
        f"{lost} lost on time{least_text}</text>"
    ]
    tick = 0.0
    while tick <= y_max + 1e-9:
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick * 1000):.1f}" '
                   f'y2="{y(tick * 1000):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(tick * 1000) + 4:.1f}" text-anchor="end">{tick:g} s</text>')
        tick += y_step
    tick = 0
    while tick <= x_max:
        out.append(f'<text x="{x(tick):.1f}" y="{top + PANEL_HEIGHT - BOTTOM + 16}" '
                   f'text-anchor="middle">{tick:g}</text>')
        tick += x_step
    out.append(f'<text x="{WIDTH - RIGHT}" y="{top + PANEL_HEIGHT - 4}" text-anchor="end">ply</text>')
    for name, colour in SERIES:
        points = " ".join(f"{x(ply):.1f},{y(ms):.1f}" for ply, ms in lines[name])
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
    return out


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    target, panels = sys.argv[1], [arg.split("=", 1) for arg in sys.argv[2:]]
    height = PANEL_HEIGHT * len(panels) + 24
    body = []
    for index, (label, path) in enumerate(panels):
        body += panel(label, path, PANEL_HEIGHT * index)
    body.append(f'<text x="{LEFT}" y="{height - 6}">the time a move used, at each ply:</text>')
    legend_x = LEFT + 230
    for name, colour in SERIES:
        body.append(f'<line x1="{legend_x}" x2="{legend_x + 24}" y1="{height - 10}" y2="{height - 10}" '
                    f'stroke="{colour}" stroke-width="2"/>')
        body.append(f'<text x="{legend_x + 30}" y="{height - 6}">{name}</text>')
        legend_x += 150
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="sans-serif" font-size="12">\n'
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")
    with open(target, "w") as file:
        file.write(svg)


if __name__ == "__main__":
    main()
