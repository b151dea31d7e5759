#!/usr/bin/env python3
"""Lists the workspace's published packages, in dependency order (each after what it depends on).

One line per package: its name, the features docs.rs builds it with (comma-separated, or `-` for
none; from `[package.metadata.docs.rs]`), and its manifest directory, separated by tabs. A package
is published unless its manifest says `publish = false`. Reads `cargo metadata` on stdin.
"""

import json
import sys


def main() -> int:
    meta = json.load(sys.stdin)
    members = set(meta["workspace_members"])
    packages = {p["name"]: p for p in meta["packages"] if p["id"] in members and p.get("publish") != []}
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in seen:
            return
        if name in path:
            raise SystemExit(f"published-crates: dependency cycle through {name}")
        for dep in packages[name]["dependencies"]:
            # Dev-dependencies order publishing too (the registry must already hold them), except
            # a package's path-only dependency on itself, which packaging strips.
            if dep["name"] in packages and dep["name"] != name:
                visit(dep["name"], path + (name,))
        seen.add(name)
        order.append(name)

    for name in sorted(packages):
        visit(name, ())
    for name in order:
        package = packages[name]
        docs_rs = ((package.get("metadata") or {}).get("docs") or {}).get("rs") or {}
        features = ",".join(docs_rs.get("features", [])) or "-"
        directory = package["manifest_path"].rsplit("/", 1)[0]
        print(f"{name}\t{features}\t{directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
