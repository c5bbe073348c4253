"""Every public definition of core, sessions, io and commands has a docstring: functions, classes and methods
whose names do not start with "_", at module level and inside public classes (functions nested in functions
are not public)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "sessions", "io", "commands")


def _undocumented(body: list[ast.stmt], prefix: str) -> list[str]:
    """Dotted names of the public definitions in `body` (and in its public classes) without a docstring."""
    found = []
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.name.startswith("_"):
            continue
        if ast.get_docstring(node) is None:
            found.append(prefix + node.name)
        if isinstance(node, ast.ClassDef):
            found += _undocumented(node.body, f"{prefix}{node.name}.")
    return found


def test_every_public_definition_has_a_docstring():
    missing = []
    for package in PACKAGES:
        for path in sorted((ROOT / "tfdebug" / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            missing += [f"{path.relative_to(ROOT)}: {name}" for name in _undocumented(tree.body, "")]
    assert not missing, f"{len(missing)} public definitions without a docstring:\n" + "\n".join(missing)
