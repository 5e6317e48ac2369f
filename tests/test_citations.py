"""Texts cite documents that ship: the API contract page of the docs, never a "SPEC".

The contract is docs/reference/contract.md, in numbered sections ("the API contract, §2.4",
"contract §9"). A finding, a `--list-rules` line, a schema description, a docs page, a comment
a contributor reads: none may send a reader to "SPEC §N" or SPEC.md, which is not part of
catalogctl.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.processes import run_cli

CITATION = re.compile(r"\bSPEC\b")  # "SPEC §2.4", "SPEC.md", "the SPEC's"; not AF_UNSPEC
SHIPPED = [
    *sorted((ROOT / "catalogctl").rglob("*")),
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted((ROOT / "schemas").glob("*")),
    *sorted((ROOT / "completions").glob("*")),
    ROOT / "README.md",
    ROOT / "mkdocs.yml",
]
TEXTS = [
    p for p in SHIPPED if p.is_file() and p.suffix not in (".pyc",) and "__pycache__" not in p.parts
]


def citations(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if CITATION.search(line)]


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_file_cites_a_spec_that_does_not_ship(path: Path) -> None:
    name = str(path.relative_to(ROOT))
    found = citations(path.read_text(encoding="utf-8", errors="replace"))
    assert found == [], f"{name} cites a document that does not ship: {found}"


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "--list-rules"],
        ["validate", "--list-rules", "--format", "json"],
        ["validate", "--explain", "spec-params"],
        ["validate", "--explain", "api-lifecycle"],
        ["schema", "site"],
        ["schema", "page"],
        ["--help"],
    ],
    ids=" ".join,
)
def test_no_output_cites_a_spec(args: list[str]) -> None:
    proc = run_cli(*args, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert citations(proc.stdout + proc.stderr) == []


def test_the_contract_page_has_the_sections_texts_cite() -> None:
    page = (ROOT / "docs" / "reference" / "contract.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r"\{ #(section-[0-9.]+) \}", page))
    cited: set[str] = set()
    for path in TEXTS:
        text = path.read_text(encoding="utf-8", errors="replace")
        cited |= {
            f"section-{n}"
            for n in re.findall(r"contract(?:,| \(|'s)? §([0-9]+(?:\.[0-9]+)?)", text)
        }
    assert cited, "no text cites the contract"
    assert cited <= anchors, f"cited sections the contract page lacks: {cited - anchors}"
