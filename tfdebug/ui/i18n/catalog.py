"""Regenerate and check the translation catalogue (`python -m tfdebug.ui.i18n.catalog`).

    python -m tfdebug.ui.i18n.catalog           # core_strings.py, lupdate -> .ts, lrelease -> .qm
    python -m tfdebug.ui.i18n.catalog --check   # list what is missing, unfinished or not through tr(); exit 1 if any

Steps of an update:
1. `tfdebug/ui/i18n/core_strings.py` is written from the Qt-free layers: stage kind titles,
   layer/block/site/stack titles, adapters' input labels and every error raised with a
   stable `id=` (an AST scan; nothing is imported from a model).
2. `pyside6-lupdate` reads every file of `tfdebug/ui` and merges the strings into
   `resources/i18n/tfdebug_zh_CN.ts` (new ones marked unfinished, vanished ones dropped).
3. You write the Chinese of each unfinished entry (`pyside6-linguist` on the .ts, or edit
   its `<translation>` elements), then run this again: `pyside6-lrelease` builds the `.qm`
   the window loads.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
UI_DIR = ROOT / "tfdebug" / "ui"
CORE_STRINGS = UI_DIR / "i18n" / "core_strings.py"
I18N_DIR = ROOT / "resources" / "i18n"
TS_FILES = {"zh": I18N_DIR / "tfdebug_zh_CN.ts"}
QT_LAYERS = ("core", "models", "adapters", "sessions", "io", "remote")  # the Qt-free layers whose texts the window shows
FORMULA_PHRASES = ("_WHAT",)  # core/masks.py: what a mask hides, inside a mask stage's formula label
TITLE_ATTRIBUTES = ("layer_titles", "stack_titles", "site_titles", "BLOCK_TITLES", "LAYER_TITLES",
                    "STACK_TITLES", "SITE_TITLES")
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True)
class Entry:
    """One message of a .ts file."""

    context: str
    source: str
    comment: str
    translation: str
    finished: bool


def tool(name: str) -> str:
    """The path of a PySide6 tool (pyside6-lupdate …): beside this Python first, then on PATH."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        raise FileNotFoundError(f"{name} not found: it comes with PySide6 (pip install PySide6-Essentials).")
    return found


# ----- strings of the Qt-free layers --------------------------------------------------------
def _string(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def core_strings(root: Path = ROOT) -> dict[str, list[tuple[str, str]]]:
    """context -> [(source text, disambiguation)] found in tfdebug/{core,models,adapters,sessions,io,remote}.

    "axes": core's AXES; "kinds": KIND_TITLES values; "formulas": what a mask hides; "titles": values of the *_titles dicts; "inputs": labels and
    placeholders of InputField(...); "errors": (template, id) of every `…Error("…", id="…")` and
    `foreign_call(…Error, "…", id="…")`;
    "phrases": (template, id) of every `Phrase("…", id="…")` (core.phrases: parts of sentences).
    """
    found: dict[str, dict[tuple[str, str], None]] = {"axes": {}, "kinds": {}, "titles": {}, "formulas": {},
                                                     "inputs": {}, "errors": {}, "phrases": {}}
    for layer in QT_LAYERS:
        for path in sorted((root / "tfdebug" / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names = {t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", "") for t in targets}
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Tuple) \
                        and "AXES" in names:
                    for value in node.value.elts:
                        if _string(value):
                            found["axes"][(_string(value), "")] = None
                elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
                    context = ("kinds" if "KIND_TITLES" in names else "titles" if names & set(TITLE_ATTRIBUTES)
                               else "formulas" if names & set(FORMULA_PHRASES) else "")
                    if context:
                        for value in node.value.values:
                            if _string(value):
                                found[context][(_string(value), "")] = None
                elif isinstance(node, ast.Call):
                    name = _call_name(node)
                    if name == "InputField":
                        for arg in node.args[1:3]:
                            if _string(arg):
                                found["inputs"][(_string(arg), "")] = None
                    elif name.endswith("Error") or name in ("error", "Phrase", "foreign_call"):
                        # foreign_call(ErrorClass, "template", id=…): the template is its second argument
                        template = node.args[name == "foreign_call"] if len(node.args) > (name == "foreign_call") \
                            else None
                        text_id = next((_string(k.value) for k in node.keywords if k.arg == "id"), None)
                        if text_id and _string(template):
                            found["errors" if name != "Phrase" else "phrases"][(_string(template), text_id)] = None
    return {context: list(entries) for context, entries in found.items()}


def render_core_strings(strings: dict[str, list[tuple[str, str]]]) -> str:
    """The text of core_strings.py: translate() calls lupdate reads (the function never runs)."""
    lines = ['"""Texts of the Qt-free layers the window translates. GENERATED by',
             '`python -m tfdebug.ui.i18n.catalog`: do not edit; change the source and regenerate."""',
             "", "from PySide6.QtCore import QCoreApplication", "", "translate = QCoreApplication.translate",
             "", "", "def _catalogue() -> None:  # never called: pyside6-lupdate reads these calls"]
    for context in sorted(strings):
        for source, comment in sorted(strings[context]):
            args = [repr(context), repr(source)] + ([repr(comment)] if comment else [])
            lines.append(f"    translate({', '.join(args)})")
    return "\n".join(lines) + "\n"


# ----- literals that bypass the catalogue -----------------------------------------------------
# Qt calls whose first argument a person reads: a literal with words there must go through tr().
TEXT_CALLS = {"setText", "setToolTip", "setStatusTip", "setWindowTitle", "setPlaceholderText", "addAction",
              "addMenu", "setTitle", "addRow", "setLabel", "addItem", "addLabel", "QLabel", "QPushButton",
              "QCheckBox", "QRadioButton", "QGroupBox", "QMenu", "QToolButton", "QAction", "QDockWidget",
              "QToolBar", "Message", "setHtml", "drawText"}
TEXT_ARGUMENT = {"Message": 1, "setLabel": 1, "drawText": -1}  # where the text is, when not first
NOT_WORDS = {"tfdebug", "atol", "rtol"}  # names, identical in every language
WORD = re.compile(r"[A-Za-z]{2,}")


def _literal_text(node) -> str | None:
    """The fixed text of a str literal or f-string argument (None for anything else)."""
    if _string(node) is not None:
        return _string(node)
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def untranslated_literals(files: list[Path] | None = None) -> list[str]:
    """'file:line: text' for each literal with words passed straight to a Qt text call in tfdebug/ui."""
    found = []
    for path in files or ui_sources():
        if path == CORE_STRINGS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.Call) or _call_name(node) not in TEXT_CALLS:
                continue
            at = TEXT_ARGUMENT.get(_call_name(node), 0)
            for arg in node.args[at:at + 1] if at >= 0 else node.args[at:]:
                text = _literal_text(arg)
                text = re.sub(r"<[^>]*>", "", text) if text else text  # markup is not words
                if text and any(w.lower() not in NOT_WORDS for w in WORD.findall(text)):
                    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    found.append(f"{shown}:{node.lineno}: {text!r}")
    return found


# ----- lupdate, lrelease, reading a .ts -----------------------------------------------------
def run_lupdate(ts: Path, sources: list[Path]) -> None:
    """Merge the strings of `sources` into `ts` (created when missing); vanished ones are dropped."""
    proc = subprocess.run([tool("pyside6-lupdate"), *map(str, sources), "-ts", str(ts), "-no-obsolete",
                           "-locations", "none", "-silent"], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"pyside6-lupdate failed: {proc.stdout}{proc.stderr}")


def run_lrelease(ts: Path, qm: Path) -> None:
    proc = subprocess.run([tool("pyside6-lrelease"), str(ts), "-qm", str(qm), "-silent"],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"pyside6-lrelease failed: {proc.stdout}{proc.stderr}")


def ui_sources() -> list[Path]:
    return sorted(UI_DIR.rglob("*.py"))


def read_ts(ts: Path) -> list[Entry]:
    entries = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            text = translation.text if translation is not None and translation.text else ""
            kind = translation.get("type", "") if translation is not None else "unfinished"
            entries.append(Entry(name, message.findtext("source") or "", message.findtext("comment") or "",
                                 text, kind not in ("unfinished", "vanished", "obsolete") and bool(text)))
    return entries


def problems(updated_ts: Path, committed_ts: Path) -> list[str]:
    """What a developer must fix, one line each: strings new since the committed catalogue,
    entries left unfinished, translations whose {placeholders} differ from the English."""
    committed = {(e.context, e.source, e.comment) for e in read_ts(committed_ts)} if committed_ts.exists() else set()
    lines = []
    for e in read_ts(updated_ts):
        where = f"[{e.context}] {e.source!r}" + (f" ({e.comment})" if e.comment else "")
        if (e.context, e.source, e.comment) not in committed:
            lines.append(f"not in the catalogue: {where}")
        elif not e.finished:
            lines.append(f"no finished Chinese translation: {where}")
        elif sorted(PLACEHOLDER.findall(e.source)) != sorted(PLACEHOLDER.findall(e.translation)):
            lines.append(f"placeholders differ: {where} -> {e.translation!r}")
    return lines


def update() -> list[str]:
    """Regenerate core_strings.py, every .ts and .qm; return the problems left (unfinished entries)."""
    CORE_STRINGS.write_text(render_core_strings(core_strings()), encoding="utf-8")
    left = []
    for ts in TS_FILES.values():
        run_lupdate(ts, ui_sources())
        run_lrelease(ts, ts.with_suffix(".qm"))
        left += problems(ts, ts)
    return left


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tfdebug.ui.i18n.catalog", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; list what is missing or unfinished")
    args = parser.parse_args(argv)
    if args.check:
        import tempfile

        left = []
        with tempfile.TemporaryDirectory() as tmp:
            for ts in TS_FILES.values():
                copy = Path(tmp) / ts.name
                shutil.copy2(ts, copy)
                run_lupdate(copy, ui_sources())
                left += problems(copy, ts)
        left += [f"not through tr(): {line}" for line in untranslated_literals()]
        if CORE_STRINGS.read_text(encoding="utf-8") != render_core_strings(core_strings()):
            left.append(f"{os.path.relpath(CORE_STRINGS)} is out of date")
    else:
        left = update()
    for line in left:
        print(line)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
