"""Property: whatever text a page's front matter or site.toml holds, loading it never raises,
never crashes the interpreter, and every problem is a finding naming its file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalogctl.content.loader import load
from tests.conftest import SITE_TOML, game_yaml

# Text biased towards the syntax of YAML, TOML and JSON, with control and non-ASCII characters.
SYNTAX = [*"-:[]{}\"'#&*!|>%@`,.=+\t\n ", "---", "+++", "...", "<<", "\\u", "\\x"]
text = st.lists(
    st.one_of(
        st.sampled_from(SYNTAX),
        st.text(min_size=1, max_size=8),
        st.sampled_from(["name", "stores", "ios", "draft", "true", "1e9", "2024-02-30", "~"]),
    ),
    max_size=60,
).map("".join)

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def tree(base: Path, page: str, site: str = SITE_TOML) -> Path:
    root = base / "content"
    (root / "games").mkdir(parents=True, exist_ok=True)
    (root / "site.toml").write_bytes(site.encode("utf-8", "surrogatepass"))
    (root / "games" / "ok.md").write_text(game_yaml("Ok"), encoding="utf-8")
    (root / "games" / "x.md").write_bytes(page.encode("utf-8", "surrogatepass"))
    return root


@SETTINGS
@given(body=text, opener=st.sampled_from(["---\n", "+++\n", "{", ""]))
def test_any_front_matter_is_findings_never_an_exception(
    tmp_path: Path, body: str, opener: str
) -> None:
    closer = {"---\n": "\n---\n", "+++\n": "\n+++\n", "{": "}\n", "": ""}[opener]
    content = load(tree(tmp_path, opener + body + closer))
    assert all(f.file.endswith(("x.md", "site.toml", "games")) for f in content.findings)
    assert all(f.rule for f in content.findings)


@SETTINGS
@given(site=text)
def test_any_site_toml_is_findings_never_an_exception(tmp_path: Path, site: str) -> None:
    content = load(tree(tmp_path, game_yaml("X"), site))
    assert all(f.rule for f in content.findings)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=text, site=text)
def test_the_command_never_tracebacks_or_dies_by_a_signal(
    tmp_path: Path, body: str, site: str
) -> None:
    root = tree(tmp_path, "---\n" + body + "\n---\n", site)
    proc = subprocess.run(
        [sys.executable, "-m", "catalogctl", "validate", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode in (0, 1, 2), proc.returncode
    assert "Traceback" not in proc.stderr


@settings(max_examples=200, deadline=None)
@given(body=text)
def test_both_yaml_loaders_accept_the_same_pages(body: str) -> None:
    import yaml

    from catalogctl.content import yamldoc
    from catalogctl.content.document import Problem

    if not hasattr(yaml, "CSafeLoader") or yamldoc.loader_for(body) is yaml.SafeLoader:
        return  # only texts the C loader would read: does the pure one agree?
    results = []
    for chosen in (yaml.SafeLoader, yaml.CSafeLoader):
        original = yamldoc.loader_for
        yamldoc.loader_for = lambda _t, c=chosen: c  # type: ignore[assignment]
        try:
            results.append(("ok", yamldoc.read_yaml(body, "x.md", 2, (1, 1)).data))
        except Problem as p:
            results.append(("problem", p.rule))
        finally:
            yamldoc.loader_for = original  # type: ignore[assignment]
    assert results[0] == results[1], results
