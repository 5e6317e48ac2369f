"""Messages stand alone: each says what is wrong and what to do, with counts worded right."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from catalogctl.output.reference import example_findings
from tests.conftest import ContentFactory, example_params, game_yaml
from tests.processes import run_cli

# How a message offers its fix: after "; ", as a did-you-mean, or by saying what the value
# must be ("must start with https://", "must not end with '/': use …").
FIX = re.compile(r"; |did you mean|\bmust\b|: use ")


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, timeout=120)


@pytest.mark.parametrize("rule_id", example_params())
def test_each_rule_example_finding_says_what_to_do(rule_id: str) -> None:
    for finding in example_findings(rule_id):
        assert FIX.search(finding.message), f"{rule_id}: {finding.message}"


SITE = """base_url = "https://games.example.com"
title = "Example Games"
description = "Games."
game_url = "{base_url}/games/{id}/"
platforms = ["iOS", "Android"]
genres = ["Puzzle", "Arcade"]

[stores.ios]
name = "App Store"
params = { pt = "123456", ct = "service_api_game_catalog", mt = "8" }

[stores.android]
name = "Google Play"
params = { utm_source = "service_api", utm_campaign = "game_catalog" }

[api.v1]
status = "deprecated"
deprecation = 2027-03-01
sunset = 2027-03-02
migration = "https://games.example.com/api/migrate"
"""


def test_a_count_of_one_is_singular(make_content: ContentFactory) -> None:
    proc = run("validate", make_content({"a": game_yaml("A")}, site=SITE), "--format", "json")
    (finding,) = [f for f in json.loads(proc.stdout)["findings"] if f["rule"] == "api-lifecycle"]
    assert "sunset is 1 day after deprecation" in finding["message"]
    assert "set sunset to 2027-05-30 or later" in finding["message"]


def test_init_words_one_page_as_one(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "content" / "games").mkdir(parents=True)
    (site / "content" / "games" / "moon.md").write_text(
        game_yaml("Moon").replace("name:", "title:"), encoding="utf-8"
    )
    proc = run("init", site)
    written = (site / "site.toml").read_text(encoding="utf-8")
    assert "of 1 page" in written and "of 1 pages" not in written, written
    assert "1 pages" not in proc.stdout
