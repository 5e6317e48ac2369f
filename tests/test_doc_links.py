"""Links into the docs site: one base address, and every rule link lands on its section.

The address is `catalogctl.DOCS_URL`; pyproject.toml's [project.urls] and mkdocs.yml's
site_url say the same. A finding links to its rule's anchor of the rules reference in JSON
(`docs_url`), SARIF (the rule's `helpUri`), GitHub annotations and Markdown; each anchor must
be one the page has.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

from catalogctl import DOCS_URL, docs_url
from catalogctl.content.rules.registry import RULES
from catalogctl.findings import rule_docs
from catalogctl.links.result import RULES as LINK_RULES
from catalogctl.output.diff import RULES as DIFF_RULES
from tests.conftest import ROOT
from tests.processes import run_cli

DOCS = ROOT / "docs"
FIXTURES = ROOT / "tests" / "fixtures"
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*(?:\{\s*#([^\s}]+)\s*\})?\s*$")


def anchors(page: Path) -> set[str]:
    """The anchors MkDocs gives a page's headings: `{ #id }`, else the heading's slug."""
    found, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (m := HEADING.match(line)):
            found.add(m.group(2) or slugify(m.group(1).replace("`", ""), "-"))
    return found


def lands(url: str) -> None:
    """`url` is a page of the docs site with the anchor it names."""
    assert url.startswith(DOCS_URL), url
    path, _, anchor = url.removeprefix(DOCS_URL).partition("#")
    page = DOCS / (path.rstrip("/") + ".md" if path else "index.md")
    assert page.is_file(), f"{url}: no page {page.relative_to(ROOT)}"
    assert anchor in anchors(page), f"{url}: no anchor #{anchor} in {page.relative_to(ROOT)}"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=FIXTURES, timeout=120)


def test_docs_address_is_the_same_in_pyproject_mkdocs_and_the_code() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["urls"]["Documentation"] == DOCS_URL
    mkdocs = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (site_url,) = re.findall(r"^site_url:\s*(\S+)", mkdocs, re.M)
    assert site_url == DOCS_URL


def test_docs_url_names_a_page_as_mkdocs_publishes_it() -> None:
    assert docs_url("index.md") == DOCS_URL
    assert docs_url("commands/validate.md") == DOCS_URL + "commands/validate/"
    assert docs_url("reference/rules.md#syntax") == DOCS_URL + "reference/rules/#syntax"


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_each_content_rule_links_to_its_section_of_the_rules_page(rule_id: str) -> None:
    lands(docs_url(rule_docs(rule_id)))


@pytest.mark.parametrize("rule", DIFF_RULES, ids=lambda r: r.id)
def test_each_diff_rule_links_to_the_diff_page(rule: object) -> None:
    lands(docs_url(rule.docs))  # type: ignore[attr-defined]


@pytest.mark.parametrize("rule", LINK_RULES, ids=lambda r: r.id)
def test_each_link_rule_links_to_how_check_links_judges_a_link(rule: object) -> None:
    assert rule.docs == "commands/check-links.md#how-a-link-is-judged"  # type: ignore[attr-defined]
    lands(docs_url(rule.docs))  # type: ignore[attr-defined]


def test_every_finding_carries_its_rule_link_in_json_sarif_github_and_markdown() -> None:
    args = ["validate", "defects", "--strict", "--format"]
    findings = json.loads(run(*args, "json").stdout)["findings"]
    assert findings
    for f in findings:
        assert f["docs_url"] == docs_url(rule_docs(f["rule"]))
        lands(f["docs_url"])
    (sarif_run,) = json.loads(run(*args, "sarif").stdout)["runs"]
    rules = {r["id"]: r["helpUri"] for r in sarif_run["tool"]["driver"]["rules"]}
    assert set(rules) == set(RULES)
    for url in rules.values():
        lands(url)
    annotations = run(*args, "github").stdout.splitlines()
    assert len(annotations) == len(findings)
    for line, f in zip(annotations, findings, strict=True):
        assert line.endswith(f" · {f['docs_url']}")
    markdown = run(*args, "markdown").stdout
    for f in findings:
        assert f"]({f['docs_url']})" in markdown


def test_list_rules_json_links_every_rule() -> None:
    doc = json.loads(run("validate", "--list-rules", "--format", "json").stdout)
    for rule in doc["rules"]:
        assert rule["docs_url"] == docs_url(rule_docs(rule["id"]))
        lands(rule["docs_url"])


def test_diff_sarif_links_its_rules() -> None:
    (sarif_run,) = json.loads(run("diff", "defects", "defects-next", "-f", "sarif").stdout)["runs"]
    for rule in sarif_run["tool"]["driver"]["rules"]:
        lands(rule["helpUri"])


def test_the_readme_sends_a_new_user_to_getting_started_first() -> None:
    """The README's first link into the docs is the getting-started page; the docs' front page
    is linked too."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert links[0] == "docs/getting-started.md", links[:3]
    assert "docs/index.md" in links
    for link in links:
        assert (ROOT / link).is_file(), link
