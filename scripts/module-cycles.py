#!/usr/bin/env python3
"""Fail on an import cycle among a crate's top-level modules.

A module that uses a sibling must sit above it: when two top-level modules of one crate reach each
other through `crate::` paths, neither can be read, tested or moved on its own. This check reads
every workspace crate's `src/` (the files under `src/<module>/` belong to `<module>`), collects the
paths each top-level module names:

- `crate::<module>::...` and `$crate::...`, including the groups of `use crate::{a::X, b}`;
- `super::...` from a nested module, resolved against the file's module path (inline `mod x { }`
  blocks included), which reaches a sibling when it climbs to the crate root;
- `crate::<Name>` where `<Name>` is re-exported at the crate root (`pub use module::Name`, or a
  glob `pub use module::*`), counted as a use of the module that defines it;

builds the graph, and prints each strongly connected component of more than one module with the
edges inside it and the first place each edge is written. Comments (doc comments included) and
string literals are not read: an intra-doc link is not an import. Items under `#[cfg(test)]` (and
files declared `#[cfg(test)] mod name;`) are not read either: a unit test may use any module as its
fixture without the module depending on it. The crate root (`lib.rs`) is not a node: it declares
every module.

With `--doc-paths FILE...` it checks documentation instead: every repository path a file names in
backticks (`a2a-client/src/sse.rs`, `a2a-client/src/task/`) must exist, so a page that walks a
reader through the code cannot point at a file that moved.

Usage: scripts/module-cycles.py [--edges] [crate-dir ...]   (default: every workspace member)
       scripts/module-cycles.py --doc-paths FILE...
Exit status 1 when a cycle exists (or a named path does not).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CHAR_LITERAL = re.compile(r"'(?:\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'\n])'")


def strip(text: str) -> str:
    """Blank out comments, string and char literals, keeping line breaks (and so line numbers)."""
    out = []
    i, n = 0, len(text)

    def blank(s: str) -> str:
        return "".join("\n" if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif (m := re.compile(r'b?r(#*)"').match(text, i)) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find('"' + m.group(1), m.end())
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append(blank(text[i:j]))
            i = j
        elif c == '"' or (c == "b" and text.startswith('b"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(blank(text[i:j]))
            i = j
        elif c == "'" and (m := CHAR_LITERAL.match(text, i)):
            out.append(blank(m.group(0)))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def tokens(text: str):
    """(token, line) pairs: identifiers (with `$crate`), `::` and single punctuation characters."""
    line = 1
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("::", i):
            yield "::", line
            i += 2
        elif c == "$" and text.startswith("$crate", i):
            yield "crate", line
            i += 6
        elif (m := IDENT.match(text, i)):
            yield m.group(0), line
            i = m.end()
        else:
            yield c, line
            i += 1


def parse_tree(toks, k):
    """Parse a use-tree starting at toks[k]; return (list of segment lists, next index)."""
    prefix = []
    while k < len(toks):
        t = toks[k][0]
        if t == "{":
            paths, k = [], k + 1
            while k < len(toks) and toks[k][0] != "}":
                sub, k = parse_tree(toks, k)
                paths += [prefix + s for s in sub]
                if k < len(toks) and toks[k][0] == ",":
                    k += 1
            return paths or [prefix], k + 1
        if t == "*":
            return [prefix + ["*"]], k + 1
        if IDENT.fullmatch(t):
            prefix.append(t)
            k += 1
            if k < len(toks) and toks[k][0] == "::":
                k += 1
                continue
        return [prefix], k
    return [prefix], k


def file_module(src: Path, path: Path) -> list[str]:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts and parts[-1] in ("mod", "lib"):
        parts.pop()
    return parts


def references(src: Path, path: Path):
    """Yield (module path of the code, absolute path segments, line) for every crate-relative path
    named in one file."""
    toks = list(tokens(strip(path.read_text())))
    base = file_module(src, path)
    if tests_only(src, path):
        return
    skip = test_items(toks)
    inline: list[tuple[str, int]] = []  # (mod name, brace depth it opened at)
    depth = 0
    k = 0
    while k < len(toks):
        t, line = toks[k]
        if k in skip:
            k = skip[k]
            continue
        if t == "mod" and k + 2 < len(toks) and IDENT.fullmatch(toks[k + 1][0]) and toks[k + 2][0] == "{":
            inline.append((toks[k + 1][0], depth))
            k += 2
            continue
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
            if inline and inline[-1][1] == depth:
                inline.pop()
        prev = toks[k - 1][0] if k else ""
        if t in ("crate", "super", "self") and prev != "::" and k + 1 < len(toks) and toks[k + 1][0] == "::":
            here = base + [m for m, _ in inline]
            paths, nxt = parse_tree(toks, k)
            for p in paths:
                resolved = resolve(here, p)
                if resolved is not None:
                    yield here, resolved, line
            k = nxt
            continue
        k += 1


CFG_TEST = ["#", "[", "cfg", "(", "test", ")", "]"]


def test_items(toks) -> dict[int, int]:
    """Map the start of every `#[cfg(test)]` item to the index just past it."""
    spans = {}
    words = [t for t, _ in toks]
    for k in range(len(words) - len(CFG_TEST)):
        if words[k : k + len(CFG_TEST)] != CFG_TEST:
            continue
        j, depth = k + len(CFG_TEST), 0
        while j < len(words):
            if words[j] == "{":
                depth += 1
            elif words[j] == "}":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif words[j] == ";" and depth == 0:
                j += 1
                break
            j += 1
        spans[k] = j
    return spans


def tests_only(src: Path, path: Path) -> bool:
    """A file declared `#[cfg(test)] mod name;` by its parent is test code as a whole."""
    mod = file_module(src, path)
    if not mod:
        return False
    parent_dir = src.joinpath(*mod[:-1])
    candidates = [src / "lib.rs"] if len(mod) == 1 else [parent_dir.with_suffix(".rs"), parent_dir / "mod.rs"]
    declared = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+" + re.escape(mod[-1]) + r"\s*;")
    return any(c.exists() and declared.search(strip(c.read_text())) for c in candidates)


def resolve(here: list[str], segs: list[str]):
    if segs[0] == "crate":
        return segs[1:]
    cur = list(here)
    i = 0
    while i < len(segs) and segs[i] in ("super", "self"):
        if segs[i] == "super":
            if not cur:
                return None
            cur.pop()
        i += 1
    return cur + segs[i:]


def root_exports(src: Path, lib: Path, modules: set[str]):
    """Names re-exported at the crate root, mapped to their module; and the glob-exported modules."""
    names: dict[str, str] = {}
    globs: list[str] = []
    toks = list(tokens(strip(lib.read_text())))
    depth = 0
    for k, (t, _) in enumerate(toks):
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
        elif t == "use" and depth == 0:
            paths, _ = parse_tree(toks, k + 1)
            j = k + 1
            for p in paths:
                p = p[1:] if p and p[0] == "self" else p
                if not p or p[0] not in modules:
                    continue
                if p[-1] == "*":
                    globs.append(p[0])
                else:
                    names[p[-1]] = p[0]
            # `as` renames: `use m::X as Y` yields [m, X] then `as`; pick Y up.
            while j < len(toks) and toks[j][0] != ";":
                if toks[j][0] == "as" and j + 1 < len(toks):
                    renamed = toks[j + 1][0]
                    back = j - 1
                    original = toks[back][0]
                    for name, mod in list(names.items()):
                        if name == original:
                            names[renamed] = mod
                j += 1
    return names, globs


def defines(files: list[Path], name: str) -> bool:
    pattern = re.compile(
        r"\bpub(?:\([^)]*\))?\s+(?:(?:async|unsafe|const)\s+)*(?:struct|enum|fn|trait|type|const|static|mod|union)\s+"
        + re.escape(name)
        + r"\b|\bpub(?:\([^)]*\))?\s+use\b[^;]*\b"
        + re.escape(name)
        + r"\b"
    )
    return any(pattern.search(strip(f.read_text())) for f in files)


def crate_graph(crate: Path):
    src = crate / "src"
    lib = src / "lib.rs"
    if not lib.exists():
        return {}, {}
    files = sorted(p for p in src.rglob("*.rs") if p.parent.name != "bin" or p.parent.parent != src)
    by_module: dict[str, list[Path]] = {}
    for f in files:
        mod = file_module(src, f)
        if mod and f.parent != src / "bin":
            by_module.setdefault(mod[0], []).append(f)
    lib_text = strip(lib.read_text())
    inline_root = set(re.findall(r"\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{", lib_text))
    modules = set(re.findall(r"\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", lib_text)) | inline_root
    names, globs = root_exports(src, lib, modules)

    edges: dict[tuple[str, str], tuple[Path, int]] = {}

    def add(frm: str, to: str, where: tuple[Path, int]):
        if frm != to and (frm, to) not in edges:
            edges[(frm, to)] = where

    glob_cache: dict[str, str | None] = {}

    def owner(name: str):
        if name in modules:
            return name
        if name in names:
            return names[name]
        if name not in glob_cache:
            glob_cache[name] = next((g for g in globs if defines(by_module.get(g, []), name)), None)
        return glob_cache[name]

    # The crate root's own inline modules (`mod tests { }` in lib.rs) are nodes too.
    for f in [lib] + [f for mod, fs in by_module.items() if mod in modules for f in fs]:
        for here, segs, line in references(src, f):
            if here and segs and segs[0] != "*":
                target = owner(segs[0])
                if target:
                    add(here[0], target, (f, line))
    return modules, edges


def components(nodes, edges):
    """Tarjan's strongly connected components."""
    succ: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(succ):
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


def workspace_members() -> list[Path]:
    text = (ROOT / "Cargo.toml").read_text()
    m = re.search(r"members\s*=\s*\[([^\]]*)\]", text)
    return [ROOT / s for s in re.findall(r'"([^"]+)"', m.group(1))] if m else []


def shown(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


DOC_PATH = re.compile(r"`([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]*)`")


def missing_doc_paths(doc: Path) -> list[tuple[int, str]]:
    """(line, path) for every backticked repository path in `doc` that does not exist."""
    roots = {p.name for p in ROOT.iterdir()}
    missing = []
    for number, line in enumerate(doc.read_text().splitlines(), 1):
        for path in DOC_PATH.findall(line):
            if path.split("/", 1)[0] in roots and not (ROOT / path).exists():
                missing.append((number, path))
    return missing


def main(argv: list[str]) -> int:
    if argv[:1] == ["--doc-paths"]:
        failed = False
        for doc in argv[1:]:
            missing = missing_doc_paths(Path(doc).resolve())
            print(f"{doc}: {'ok' if not missing else f'{len(missing)} path(s) missing'}")
            for number, path in missing:
                failed = True
                print(f"  line {number}: {path}")
        return 1 if failed else 0
    show_edges = "--edges" in argv
    crates = [Path(a).resolve() for a in argv if not a.startswith("--")] or workspace_members()
    failed = False
    for crate in crates:
        modules, edges = crate_graph(crate)
        if not modules:
            continue
        cycles = components(modules, edges)
        name = shown(crate)
        status = "ok" if not cycles else f"{len(cycles)} cycle(s)"
        print(f"{name}: {len(modules)} top-level modules, {len(edges)} edges, {status}")
        if show_edges:
            for (a, b), (f, line) in sorted(edges.items()):
                print(f"  {a} -> {b}   {shown(f)}:{line}")
        for comp in cycles:
            failed = True
            print(f"  cycle among {len(comp)} modules: {', '.join(comp)}")
            for (a, b), (f, line) in sorted(edges.items()):
                if a in comp and b in comp:
                    print(f"    {a} -> {b}   {shown(f)}:{line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
