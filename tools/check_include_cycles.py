#!/usr/bin/env python3
"""Fails when the #include graph of core/ and widgets/ has a cycle (the include_cycles test).

Two graphs are checked, both must be acyclic:
  files    a header or source including another project file ("core/..." or "widgets/...");
  folders  the same includes between concern folders: core/<layer> and widgets/<folder> (a
           subfolder belongs to its parent: core/import/nsys is core/import), so that no folder
           includes one that includes it back (widgets/timeline -> widgets/tables -> widgets/timeline).
core/<layer> folders are also ordered by tools/check_layers.cmake; this check adds the widgets
folders and the file level. Usage: check_include_cycles.py [REPO]
"""
import os
import re
import sys

ROOTS = ("core", "widgets")
INCLUDE = re.compile(r'^\s*#\s*include\s*"((?:core|widgets)/[^"]+)"', re.M)


def sources(repo):
    for root in ROOTS:
        for folder, _, files in os.walk(os.path.join(repo, root)):
            for name in files:
                if name.endswith((".h", ".cpp")):
                    yield os.path.relpath(os.path.join(folder, name), repo).replace(os.sep, "/")


def folder_of(path):
    parts = path.split("/")
    # A file directly in widgets/ (or core/) is its own root folder.
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def cycles(graph):
    """Strongly connected components of more than one node, or with an edge to themselves
    (Tarjan's algorithm, iterative: the file graph is deep enough to hit Python's recursion limit)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    found.append(sorted(component))
    return found


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    files, folders = {}, {}
    includes = 0
    for src in sources(repo):
        with open(os.path.join(repo, src), encoding="utf-8") as f:
            targets = INCLUDE.findall(f.read())
        files.setdefault(src, set())
        folders.setdefault(folder_of(src), set())
        for target in targets:
            includes += 1
            if not os.path.isfile(os.path.join(repo, target)):
                print(f"{src}: #include \"{target}\": no such file")
                return 1
            if target != src:
                files[src].add(target)
            if folder_of(target) != folder_of(src):
                folders[folder_of(src)].add(folder_of(target))
    found = {}
    for name, graph in (("files", files), ("folders", folders)):
        found[name] = cycles(graph)
        for component in found[name]:
            members = set(component)
            print(f"include cycle among {len(component)} {name}:")
            for node in component:
                for target in sorted(graph[node] & members):
                    print(f"  {node} -> {target}")
    if found["files"] or found["folders"]:
        print(f"include cycles: {len(found['files'])} among files, {len(found['folders'])} among folders")
        return 1
    print(f"no include cycles: {includes} includes in {len(files)} files, {len(folders)} folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
