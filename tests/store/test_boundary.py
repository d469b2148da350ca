"""The store's boundary holds: no code outside ``store/`` opens SQLite or touches a store's
connection, and the mapper does not import a later stage (docs/architecture.md, Layering)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "analogist"


def _modules(*roots: Path):
    for root in roots:
        yield from (p for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts)


def _imports(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_nothing_outside_store_uses_sqlite_or_a_connection():
    offenders = []
    for path in _modules(SRC, ROOT / "bench"):
        if (SRC / "store") in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(m == "sqlite3" or m.startswith("sqlite3.") for m in _imports(tree)):
            offenders.append(f"{path.relative_to(ROOT)}: imports sqlite3")
        offenders += [
            f"{path.relative_to(ROOT)}:{n.lineno}: .conn"
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr == "conn"
        ]
    assert offenders == []


def test_the_mapper_does_not_import_verification():
    offenders = [
        str(p.relative_to(ROOT))
        for p in _modules(SRC / "mapping")
        if any(m.startswith("analogist.verify") for m in _imports(ast.parse(p.read_text())))
    ]
    assert offenders == []
