"""The floor plan's own rules: long modules say why, and complexity stays visible."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "catalogctl"
MAX_LINES = 400  # past this, a module says why it is one module
HARD_MAX_LINES = 600  # past this, a module is split
COMPLEXITY_RULES = ("C901", "PLR0912", "PLR0915")


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_over_400_lines_says_why_it_is_one_module() -> None:
    silent = []
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) <= MAX_LINES:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if not re.search(r"^Why one module: \S", doc, re.MULTILINE):
            silent.append(str(path.relative_to(ROOT)))
    assert not silent, (
        f"modules over {MAX_LINES} lines without a 'Why one module:' paragraph in their "
        f"docstring (split them, or say why the code belongs together): {silent}"
    )


def test_no_module_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in _modules()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > HARD_MAX_LINES
    }
    assert not long, f"modules over {HARD_MAX_LINES} lines (split them into rooms): {long}"


def _lint() -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lint: dict[str, object] = config["tool"]["ruff"]["lint"]
    return lint


def _covers(selector: str, rule: str) -> bool:
    return selector == "ALL" or rule.startswith(selector)


def test_complexity_rules_are_on_with_production_thresholds() -> None:
    lint = _lint()
    select = lint.get("select", [])
    ignore = lint.get("ignore", [])
    assert isinstance(select, list) and isinstance(ignore, list)
    for rule in COMPLEXITY_RULES:
        assert any(_covers(s, rule) for s in select), f"{rule} is not selected"
        assert not any(_covers(s, rule) for s in ignore), f"{rule} is ignored"
    per_file = lint.get("per-file-ignores", {})
    assert isinstance(per_file, dict)
    for pattern, rules in per_file.items():
        if pattern.startswith(("tests/", "benchmarks/")):
            continue
        hidden = [r for r in rules for rule in COMPLEXITY_RULES if _covers(r, rule)]
        assert not hidden, f"{pattern} ignores {hidden}"
    mccabe, pylint = lint.get("mccabe", {}), lint.get("pylint", {})
    assert isinstance(mccabe, dict) and isinstance(pylint, dict)
    assert mccabe.get("max-complexity", 10) <= 15
    assert pylint.get("max-branches", 12) <= 18
    assert pylint.get("max-statements", 50) <= 60


def test_no_function_is_excused_from_the_complexity_rules() -> None:
    noqa = re.compile(r"#\s*noqa:[^\n]*\b(C901|PLR0912|PLR0915)\b")
    excused = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in _modules()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if noqa.search(line)
    ]
    assert not excused, f"split these functions instead of excusing them: {excused}"


def test_architecture_page_lists_the_rooms_of_the_import_contracts() -> None:
    """docs/architecture/index.md names the rooms, in order, that lint-imports enforces."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [
        c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"
    ]
    contract = [
        sorted(name.strip().removeprefix("catalogctl.") for name in layer.split("|"))
        for layer in layers
    ]
    page = (ROOT / "docs" / "architecture" / "index.md").read_text(encoding="utf-8")
    listed = page.split("<!-- rooms:", 1)[1].split("\n\n", 1)[0]
    rooms = [
        sorted(name.rstrip("/") for name in re.findall(r"`([a-z_]+/?)`", bold))
        for bold in re.findall(r"^- \*\*(.+?)\*\*", listed, re.MULTILINE)
    ]
    assert rooms == contract, f"the page lists {rooms}, the import contracts {contract}"
    for room in (name for layer in contract for name in layer):
        assert (PACKAGE / room).is_dir() or (PACKAGE / f"{room}.py").is_file(), room
