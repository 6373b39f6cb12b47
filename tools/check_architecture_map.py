#!/usr/bin/env python3
"""Fails when a path named in the "Where things live" map of docs/architecture.md does not exist
(the architecture_map test), so that the map follows the tree when files move.

Every row of the map is "concern -> path" with the paths in backticks; `name.{h,cpp}` names both
files, a path ending in / is a folder. Usage: check_architecture_map.py [REPO]
"""
import os
import re
import sys

HEADING = re.compile(r"^#+\s.*Where things live", re.I)
CODE = re.compile(r"`([^`]+)`")
BRACES = re.compile(r"\{([^{}]*)\}")


def expand(path):
    """core/x.{h,cpp} -> core/x.h, core/x.cpp (one brace group)."""
    m = BRACES.search(path)
    if not m:
        return [path]
    return [path[: m.start()] + alt + path[m.end():] for alt in m.group(1).split(",")]


def map_rows(text):
    rows, inside = [], False
    for line in text.splitlines():
        if HEADING.match(line):
            inside = True
            continue
        if inside and line.startswith("#"):
            break
        if inside and CODE.search(line) and ("→" in line or "->" in line or line.startswith("|")):
            rows.append(line)
    return rows


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    doc = os.path.join(repo, "docs", "architecture.md")
    with open(doc, encoding="utf-8") as f:
        rows = map_rows(f.read())
    if not rows:
        print(f"{doc}: no \"Where things live\" map found")
        return 1
    missing, checked = [], 0
    for row in rows:
        for code in CODE.findall(row):
            if "/" not in code:
                continue  # a name (`loadTrace`), not a path
            for path in expand(code):
                checked += 1
                full = os.path.join(repo, path)
                exists = os.path.isdir(full) if path.endswith("/") else os.path.exists(full)
                if not exists:
                    missing.append(f"{path}  (in: {row.strip()})")
    for m in missing:
        print(f"missing: {m}")
    if missing:
        print(f"{len(missing)} of {checked} paths in the map of docs/architecture.md do not exist")
        return 1
    print(f"architecture map holds: {checked} paths in {len(rows)} rows exist")
    return 0


if __name__ == "__main__":
    sys.exit(main())
