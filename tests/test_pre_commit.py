"""The pre-commit hooks, run by pre-commit itself from a tagged release, without the network.

pre-commit installs the hooks' environment with `pip install .` from a release tag of a
copy of this checkout; pip finds the dependencies in a wheelhouse packed from the test
environment (tests/wheelhouse.py), never on an index.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from catalogctl import __version__
from tests.conftest import ROOT, SAMPLE, game_yaml, require_program
from tests.processes import run
from tests.wheelhouse import build_wheelhouse

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def hooks() -> dict[str, dict[str, Any]]:
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}


DOCS = ROOT / "docs" / "ci" / "pre-commit.md"


def docs_config() -> dict[str, Any]:
    """The configuration the docs page gives (its first YAML block)."""
    block = DOCS.read_text(encoding="utf-8").split("```yaml\n", 1)[1].split("```", 1)[0]
    config: dict[str, Any] = yaml.safe_load(block)
    return config


def git(
    cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    exe = require_program("git", package="git")
    return run(
        [exe, "-c", "user.name=catalogctl tests", "-c", "user.email=tests@example.invalid",
         "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", *args],
        cwd=cwd, env=env, check=check, timeout=600,  # a commit runs the hook
    )  # fmt: skip


# Files the catalog reads, in each layout a site keeps its games in (site.toml's
# `[content] games` may point anywhere), and files it never reads.
READ = (
    "site.toml", "content/site.toml",                                      # the two usual places
    "content/games/tidal-drift.md", "content/games/puzzle/tidal-drift.md",  # default, sections
    "content/games/kelp/index.md", "content/games/kelp/index.fr.md",        # Hugo, Zola bundles
    "_posts/2016-01-10-tally.markdown",                                     # Jekyll posts
    "collections/_showcase/dome-keeper.md",                                 # Jekyll collections
    "src/content/games/tide-pool.mdx", "pages/games/Tide-Pool.MDX",        # Astro, Next.js (MDX)
)  # fmt: skip
NOT_READ = (
    "src/app.py", "config.toml", "hugo.toml", "_config.yml", "package.json",
    "content/games/kelp/icon.png", "static/site.toml.bak",
)  # fmt: skip


def test_pre_commit_hooks_run_catalogctl_on_content_files() -> None:
    found = hooks()
    assert set(found) == {"catalogctl-validate", "catalogctl-check-links"}
    assert found["catalogctl-validate"]["entry"] == "catalogctl validate"
    assert found["catalogctl-check-links"]["entry"] == "catalogctl check-links"
    assert found["catalogctl-check-links"]["stages"] == ["manual"]
    assert "stages" not in found["catalogctl-validate"]
    for hook in found.values():
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False
        pattern = re.compile(hook["files"])
        for path in READ:
            assert pattern.search(path), path
        for path in NOT_READ:
            assert not pattern.search(path), path


def test_pre_commit_docs_pin_the_release_tag_of_this_version() -> None:
    (repo,) = docs_config()["repos"]
    assert repo["rev"] == f"v{__version__}"
    assert [h["id"] for h in repo["hooks"]] == ["catalogctl-validate", "catalogctl-check-links"]


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """pre-commit's environment: its own cache, pip on a local wheelhouse and nothing else."""
    assert PRE_COMMIT.exists(), "pre-commit is a test dependency (pip install -e '.[test]')"
    tmp = tmp_path_factory.mktemp("pre-commit")
    wheels = build_wheelhouse(tmp / "wheels", ["catalogctl", "hatchling"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUALENV_"))}
    return env | {
        "PRE_COMMIT_HOME": str(tmp / "cache"),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_NO_COMPILE": "1",  # a faster install; the hook runs once or twice
        "VIRTUALENV_NO_PERIODIC_UPDATE": "1",
        "COLUMNS": "200",  # file names in the findings table are not folded
        "PATH": f"{PRE_COMMIT.parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout, as committed and tagged `v<version>` for a release."""
    out = tmp_path_factory.mktemp("release") / "catalogctl"
    files = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout
    for name in filter(None, files.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted but not yet committed is listed too
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, out / name)
    git(out, "init", "-q")
    git(out, "add", "-A")
    git(out, "commit", "-q", "-m", "release")
    git(out, "tag", f"v{__version__}")
    return out


@pytest.fixture
def website(tmp_path: Path) -> Path:
    """A website repository holding the sample content."""
    repo = tmp_path / "website"
    shutil.copytree(SAMPLE, repo / "content")
    (repo / "README.md").write_text("The website.\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "content")
    return repo


def pre_commit_in(
    env: dict[str, str], cwd: Path
) -> Callable[..., subprocess.CompletedProcess[str]]:
    def pre_commit(*args: str) -> subprocess.CompletedProcess[str]:
        return run([PRE_COMMIT, *args], cwd=cwd, env=env, timeout=600)

    return pre_commit


def test_pre_commit_try_repo_reports_the_findings(
    offline: dict[str, str], release: Path, website: Path
) -> None:
    """`pre-commit try-repo` of the release tag (each try-repo installs the hook anew)."""
    page = website / "content" / "games" / "kelp-garden.md"
    page.write_text(page.read_text().replace("genres: [", "genres: [Casul, "), encoding="utf-8")
    proc = pre_commit_in(offline, website)(
        "try-repo", str(release), "catalogctl-validate", "--ref", f"v{__version__}", "--all-files"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"catalogctl validate\.+Failed", proc.stdout), proc.stdout
    assert "content/games/kelp-garden.md" in proc.stdout
    assert "'Casul'" in proc.stdout  # the finding reaches the committer


def test_pre_commit_config_of_the_docs(
    offline: dict[str, str], release: Path, website: Path
) -> None:
    """The docs' configuration, with the release's path for its URL, on commit and on demand."""
    config = docs_config()
    (repo,) = config["repos"]
    repo["repo"] = str(release)
    # Tests stay off the network: the links are checked for their syntax only.
    (links,) = [h for h in repo["hooks"] if h["id"] == "catalogctl-check-links"]
    links["args"] = [*links.get("args", []), "--offline"]
    (website / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    pre_commit = pre_commit_in(offline, website)

    proc = pre_commit("run", "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"catalogctl validate\.+Passed", proc.stdout), proc.stdout
    assert "check-links" not in proc.stdout  # manual stage only

    proc = pre_commit("run", "--hook-stage", "manual", "catalogctl-check-links", "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"catalogctl check-links\.+Passed", proc.stdout), proc.stdout

    # A commit that breaks a page is stopped by the installed hook.
    proc = pre_commit("install")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = website / "content" / "games" / "tidal-drift.md"
    page.write_text(page.read_text().replace("name", "nmae", 1), encoding="utf-8")
    git(website, "add", "-A")
    failed = git(website, "commit", "-q", "-m", "typo", env=offline, check=False)
    assert failed.returncode != 0
    assert "tidal-drift.md" in failed.stdout + failed.stderr


SITES = ROOT / "tests" / "fixtures" / "sites"
STORES = """
[stores.ios]
name = "App Store"
params = { pt = "123456", ct = "service_api_game_catalog", mt = "8" }

[stores.android]
name = "Google Play"
params = { utm_source = "service_api", utm_campaign = "game_catalog" }
"""


def _showcase_page(title: str, slug: str) -> str:
    """A page as a Jekyll showcase collection keeps it (title, image, store keys by name)."""
    return (
        f"---\ntitle: {title}\ndescription: {title}, a game about the sea.\n"
        f"date: 2024-01-01 00:00:00\nimage: /assets/showcase/{slug}.jpg\n"
        "platforms: [iOS, Android]\ngenres: [Puzzle]\n"
        f"appstore: https://apps.apple.com/app/{slug}/id1234\n"
        "googleplay: https://play.google.com/store/apps/details"
        f"?id=com.example.{slug.replace('-', '')}\n"
        "---\nShowcase text.\n"
    )


def _site(games: str, fields: str = "") -> str:
    return (
        'base_url = "https://games.example.com"\ntitle = "Example Games"\n'
        'description = "Mobile games."\ngame_url = "{base_url}/games/{id}/"\n\n'
        f'[content]\ngames = "{games}"\n{fields}{STORES}'
    )


def _hugo(repo: Path) -> None:
    shutil.copytree(SITES / "hugo-bundles", repo)


def _jekyll_posts(repo: Path) -> None:
    shutil.copytree(SITES / "jekyll-posts", repo)


def _jekyll_collection(repo: Path) -> None:
    """The Godot website's layout: collections_dir, a `_showcase` collection of game pages."""
    games = repo / "collections" / "_showcase"
    games.mkdir(parents=True)
    (repo / "collections" / "_article").mkdir()
    (repo / "collections" / "_article" / "news.md").write_text("---\ntitle: News\n---\n")
    (repo / "_config.yml").write_text("collections_dir: collections\ncollections:\n  showcase:\n")
    fields = (
        '\n[fields]\nname = "title"\nicon = "image"\n\n'
        '[fields.stores]\nios = "appstore"\nandroid = "googleplay"\n'
    )
    (repo / "site.toml").write_text(_site("collections/_showcase", fields))
    for slug in ("tide-pool", "harbour-lights"):
        (games / f"{slug}.md").write_text(_showcase_page(slug.replace("-", " ").title(), slug))


def _astro_mdx(repo: Path) -> None:
    """An Astro site: a content collection of .md and .mdx pages under src/content/games."""
    games = repo / "src" / "content" / "games"
    games.mkdir(parents=True)
    (repo / "astro.config.mjs").write_text("export default {};\n")
    (repo / "site.toml").write_text(_site("src/content/games"))
    (games / "harbour-lights.md").write_text(game_yaml("Harbour Lights"))
    mdx = game_yaml("Tide Pool").replace("Body.\n", "import Trailer from '../../Trailer.astro';\n")
    (games / "tide-pool.mdx").write_text(mdx + "\n<Trailer id='tide-pool' />\n")


# layout: (make the tree, the file a commit touches, a file the catalog never reads,
#          the page broken, its text before and after)
LAYOUTS: dict[str, tuple[Callable[[Path], None], str, str, str, str, str]] = {
    "hugo-root": (
        _hugo, "content/games/mobile/kelp-garden/index.md", "config.toml",
        "content/games/tidal-drift/index.md", "title:", "tilte:",
    ),
    "jekyll-posts": (
        _jekyll_posts, "_posts/2016-01-10-tally.markdown", "_config.yml",
        "_posts/2016-01-10-tally.markdown", "name:", "nmae:",
    ),
    "jekyll-collection": (
        _jekyll_collection, "collections/_showcase/tide-pool.md", "_config.yml",
        "collections/_showcase/tide-pool.md", "title:", "tilte:",
    ),
    "astro-mdx": (
        _astro_mdx, "src/content/games/tide-pool.mdx", "astro.config.mjs",
        "src/content/games/harbour-lights.md", "name:", "nmae:",
    ),
}  # fmt: skip


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_pre_commit_runs_validate_in_every_layout(
    offline: dict[str, str], release: Path, tmp_path: Path, layout: str
) -> None:
    """The hook, configured without arguments at the repository root, runs when a page of the
    site changes (wherever site.toml keeps them), finds the site and fails on a broken page."""
    make, touched, unread, broken, before, after = LAYOUTS[layout]
    repo = tmp_path / layout
    make(repo)
    config = {"repos": [{"repo": str(release), "rev": f"v{__version__}",
                         "hooks": [{"id": "catalogctl-validate"}]}]}  # fmt: skip
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "site")
    pre_commit = pre_commit_in(offline, repo)

    proc = pre_commit("run", "--files", touched)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"catalogctl validate\.+Passed", proc.stdout), proc.stdout
    proc = pre_commit("run", "--files", unread)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"catalogctl validate\.+\(no files to check\)Skipped", proc.stdout)

    page = repo / broken
    text = page.read_text(encoding="utf-8")
    assert before in text
    page.write_text(text.replace(before, after, 1), encoding="utf-8")
    proc = pre_commit("run", "--files", touched)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"catalogctl validate\.+Failed", proc.stdout), proc.stdout
    assert broken in proc.stdout
