#!/usr/bin/env python3
"""Plots tools/bench_scaling.sh's CSV as an SVG: load time and peak RSS against kernels, each
with the straight line through the origin and the largest file, so that growth above linear
shows as points above the line. No plotting library needed.

Usage: tools/plot_scaling.py SCALING.csv OUT.svg
"""
import csv
import sys


def main(csv_path, svg_path):
    rows = list(csv.DictReader(open(csv_path)))
    kernels = [int(r["kernels"]) / 1e6 for r in rows]
    panels = [("load time (s)", [float(r["load_s"]) for r in rows]), ("peak RSS (MB)", [float(r["peak_rss_mb"]) for r in rows])]
    width, height, margin = 360, 260, 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * width}" height="{height}" font-family="sans-serif" font-size="11">']
    for p, (title, values) in enumerate(panels):
        x0 = p * width
        xmax, ymax = max(kernels) * 1.1, max(values) * 1.15
        sx = lambda v: x0 + margin + v / xmax * (width - margin - 15)
        sy = lambda v: height - margin + 10 - v / ymax * (height - margin - 20)
        out.append(f'<text x="{x0 + width / 2}" y="14" text-anchor="middle" font-weight="bold">{title}</text>')
        out.append(f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(xmax)}" y2="{sy(0)}" stroke="black"/>')
        out.append(f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(0)}" y2="{sy(ymax)}" stroke="black"/>')
        for i in range(5):
            yv = ymax * i / 4
            out.append(f'<text x="{sx(0) - 4}" y="{sy(yv) + 4}" text-anchor="end">{yv:.0f}</text>' if ymax > 20 else
                       f'<text x="{sx(0) - 4}" y="{sy(yv) + 4}" text-anchor="end">{yv:.1f}</text>')
        for k in kernels:
            out.append(f'<text x="{sx(k)}" y="{sy(0) + 14}" text-anchor="middle">{k:.2f}</text>')
        out.append(f'<text x="{x0 + width / 2}" y="{height - 8}" text-anchor="middle">million kernels</text>')
        slope = values[-1] / kernels[-1]
        out.append(f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(xmax)}" y2="{sy(slope * xmax)}" stroke="#999" stroke-dasharray="4 3"/>')
        for k, v in zip(kernels, values):
            out.append(f'<circle cx="{sx(k)}" cy="{sy(v)}" r="4" fill="#3b6ea8"/>')
            out.append(f'<text x="{sx(k) + 6}" y="{sy(v) - 6}">{v:.2f}</text>' if ymax < 20 else f'<text x="{sx(k) + 6}" y="{sy(v) - 6}">{v:.0f}</text>')
    out.append("</svg>")
    open(svg_path, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
