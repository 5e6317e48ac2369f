"""`catalogctl init`: on each real layout, the site.toml it writes validates, or names only what
the pages truly lack; it never replaces a site.toml without --force."""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import needs_fifos, needs_rlimits
from tests.processes import cli, measure, run_cli
from tests.test_output import check_envelope

SITES = Path(__file__).resolve().parent / "fixtures" / "sites"
# Each fixture's generator, and the games folder its own site.toml names.
LAYOUTS = {
    "astro-collections": "astro",
    "astro-released-games": "astro",
    "astro-route-folder": "astro",
    "eleventy-pages-repository": "eleventy",
    "hugo-blowfish-external": "hugo",
    "hugo-branch-bundle": "hugo",
    "jekyll-collection-notes": "jekyll",
    "jekyll-games-bundles": "jekyll",
    "eleventy-games": "eleventy",
    "eleventy-games-json": "eleventy",
    "games-collection": "unknown",
    "hugo-apps-section": "hugo",
    "hugo-bundles": "hugo",
    "hugo-games-buttons": "hugo",
    "hugo-games-itch": "hugo",
    "hugo-games-sections": "hugo",
    "jekyll-collection": "jekyll",
    "jekyll-posts": "jekyll",
    "jekyll-posts-category": "jekyll",
    "jekyll-posts-words": "jekyll",
    "nextjs-mdx": "nextjs",
    "zola-extra": "zola",
    "zola-bundles-translated": "zola",
    "hugo-bundle-logo": "hugo",
    "jekyll-translated-by-hand": "jekyll",
    "hugo-unreleased-game": "hugo",
    "astro-itch-profile": "astro",
    "jekyll-appstore-body": "jekyll",
    "astro-projects-by-category": "astro",
    "hugo-toml-bundles-itch-embeds": "hugo",
    "hugo-apps-one-value-keys": "hugo",
    "jekyll-pages-games-series": "jekyll",
    "nextjs-template-store-table": "nextjs",
    "hugo-translated-html-buttons": "hugo",
    "hugo-self-hosted-downloads": "hugo",
    "jekyll-collection-empty-store-keys": "jekyll",
    "jekyll-pages-folder-cname": "jekyll",
    "hugo-language-folder-itch-profiles": "hugo",
}


def bare_site(name: str, tmp_path: Path) -> Path:
    """A fixture as its website has it: without site.toml (and the test's expectations)."""
    root = tmp_path / name
    shutil.copytree(SITES / name, root)
    (root / "site.toml").unlink()
    (root / "expected.json").unlink()
    return root


def init_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    proc = run_cli("init", *args, "--format", "json")
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_every_layout_is_tried() -> None:
    assert sorted(LAYOUTS) == sorted(p.name for p in SITES.iterdir() if p.is_dir())


def page_errors(findings: list[dict[str, Any]]) -> set[tuple[str, str, int | None]]:
    """The errors found in the pages (rule, file name, line): what the pages truly lack or get
    wrong, whoever wrote the site.toml."""
    return {
        (f["rule"], Path(f["file"]).name, f["line"])
        for f in findings
        if f["severity"] == "error" and not f["file"].endswith("site.toml")
    }


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_init_writes_a_site_toml_that_validates(tmp_path: Path, name: str) -> None:
    """From the site's root, with no argument: init writes a site.toml with which validate
    finds in the pages exactly what it finds with the site.toml the site's owner wrote."""
    root = bare_site(name, tmp_path)
    proc = run_cli("init", "--format", "json", cwd=root)
    assert "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    check_envelope(report)
    expected = json.loads((SITES / name / "expected.json").read_text("utf-8"))
    owner_errors = page_errors(expected["findings"])
    assert proc.returncode == (1 if owner_errors else 0), report
    summary = report["summary"]
    assert summary["generator"] == LAYOUTS[name]
    # What the pages lack with init's site.toml is what they lack with the fixture's own.
    truly = {
        (f["field"], Path(f["file"]).name)
        for f in expected["findings"]
        if f["rule"] == "missing-field" and not f["file"].endswith("site.toml")
    }
    lacking = {(k, Path(f).name) for k, files in summary["lacking"].items() for f in files}
    assert lacking == truly
    # Where the design puts it: the site's root, naming the games folder the site uses.
    written = root / "site.toml"
    assert (root / summary["site_toml"]).resolve() == written.resolve()
    mine = tomllib.loads((SITES / name / "site.toml").read_text("utf-8"))
    theirs = tomllib.loads(written.read_text("utf-8"))
    assert theirs["content"]["games"] == mine.get("content", {}).get("games", "games")
    # The category of the game pages, where the folder holds other pages too.
    assert theirs["content"].get("category") == mine.get("content", {}).get("category")
    # validate, run as a user runs it next, agrees: nothing wrong with the site.toml itself,
    # and in the pages the errors the owner's site.toml gives.
    proc = run_cli("validate", "--format", "json", cwd=root)
    checked = json.loads(proc.stdout)
    assert proc.returncode == (1 if owner_errors else 0), proc.stdout
    site_errors = [
        (f["rule"], f["field"])
        for f in checked["findings"]
        if f["severity"] == "error" and f["file"].endswith("site.toml")
    ]
    # Where no page of the site links a store, there is no store to name: site.toml lacks
    # one as the pages do (and init says so).
    linked = any(g["stores"] for g in expected["games"]) or "stores" not in summary["lacking"]
    assert site_errors == ([] if linked or "stores" in theirs else [("missing-field", "stores")])
    assert page_errors(checked["findings"]) == owner_errors
    assert checked["summary"]["games"] == len(expected["games"])
    from catalogctl.content.loader import load

    published = load(root).published()
    keys = ("id", "name", "description", "platforms", "genres")
    assert [{k: g[k] for k in keys} for g in published] == [
        {k: g[k] for k in keys} for g in expected["games"]
    ]
    # Each store link the fixture publishes is published (its attribution aside).
    links = {s["url"].split("?")[0] for g in published for s in g["stores"]}
    assert {s["url"].split("?")[0] for g in expected["games"] for s in g["stores"]} <= links


def test_init_comments_each_guess(tmp_path: Path) -> None:
    root = bare_site("hugo-bundles", tmp_path)
    proc = run_cli("init", root)
    assert proc.returncode == 0, proc.stderr
    text = (root / "site.toml").read_text("utf-8")
    settings = [
        line
        for line in text.splitlines()
        if "=" in line and not line.startswith(("#", "[", "params"))
    ]
    assert settings and all("  # " in line for line in settings if "stores" not in line)
    assert 'base_url = "https://games.tidewater.example"  # from config.toml' in text
    assert 'games = "content/games"' in text
    assert 'icon = "params.icon"' in text and 'appstore = "params.appstore"' in text
    assert "Wrote " in proc.stdout and "a Hugo site" in proc.stdout
    # What the user adds by hand: said once, by validate's finding, with where it goes.
    assert proc.stdout.count("'pt'") == 1 and "provider token" not in proc.stdout
    assert '# pt = "…": your App Store provider token' in text


def test_init_maps_store_links_from_a_list_and_from_a_table(tmp_path: Path) -> None:
    astro = bare_site("astro-collections", tmp_path)
    assert init_json(astro)[0] == 0
    text = (astro / "site.toml").read_text("utf-8")
    assert 'googleplay = "links[platform=googleplay].url"' in text
    assert 'date = "pubDate"' in text
    nextjs = bare_site("nextjs-mdx", tmp_path)
    assert init_json(nextjs)[0] == 0
    site = tomllib.loads((nextjs / "site.toml").read_text("utf-8"))
    assert site["fields"]["stores"] == "storeLinks"
    assert {k: s["kind"] for k, s in site["stores"].items()} == {
        "appStore": "apple",
        "googlePlay": "google-play",
    }


def test_init_lists_the_sites_own_near_miss_keys(tmp_path: Path) -> None:
    root = bare_site("jekyll-collection", tmp_path)
    code, report = init_json(root)
    assert code == 0
    assert not [f for f in report["findings"] if f["rule"] == "unknown-key"]
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["content"]["own_keys"] == ["platform"]


def test_init_names_only_what_the_pages_truly_lack(tmp_path: Path) -> None:
    root = bare_site("eleventy-games", tmp_path)
    games = root / "src" / "games"
    for page in ("moth-lamp.md", "night-tram.md"):
        path = games / page
        text = path.read_text("utf-8")
        path.write_text(
            "".join(line for line in text.splitlines(True) if not line.startswith("genres:")),
            encoding="utf-8",
        )
    code, report = init_json(root)
    assert code == 1
    lacking = report["summary"]["lacking"]
    assert {k: sorted(Path(f).name for f in v) for k, v in lacking.items()} == {
        "genres": ["moth-lamp.md", "night-tram.md"]
    }
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert {f["rule"] for f in errors} == {"missing-field"}
    proc = run_cli("init", root, "--force")
    assert "genres: 2 of 3 pages" in proc.stdout


def test_init_never_replaces_a_site_toml_without_force(tmp_path: Path) -> None:
    root = bare_site("zola-extra", tmp_path)
    (root / "site.toml").write_text("# mine\n", encoding="utf-8")
    proc = run_cli("init", root)
    assert proc.returncode == 2
    assert "--force" in proc.stderr
    assert (root / "site.toml").read_text("utf-8") == "# mine\n"
    assert run_cli("init", root, "--force").returncode == 0
    assert "# mine" not in (root / "site.toml").read_text("utf-8")


@pytest.mark.skipif(os.name == "nt", reason="Windows files have no permission bits to read")
def test_init_writes_site_toml_as_any_new_file_and_keeps_a_replaced_ones_mode(
    tmp_path: Path,
) -> None:
    """site.toml was written 0600 (the temporary file's mode): a server or CI job running as
    another user could not read it. It gets what the umask gives a new file (0644 under the
    usual 022, which the test sets), and with --force the mode of the file it replaces."""
    root = bare_site("zola-extra", tmp_path)
    umask = os.umask(0o022)  # the child inherits it
    try:
        assert run_cli("init", root).returncode == 0
        assert (root / "site.toml").stat().st_mode & 0o777 == 0o644
        (root / "site.toml").chmod(0o640)
        assert run_cli("init", root, "--force").returncode == 0
        assert (root / "site.toml").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(umask)


@pytest.mark.parametrize("where", ["content", "above"])
def test_init_leaves_a_site_that_has_a_site_toml_elsewhere_alone(
    tmp_path: Path, where: str
) -> None:
    """A site.toml in ./content, or in a folder above, is the site's already: a new one would
    take its place for every command run from here."""
    root = bare_site("zola-extra", tmp_path)
    mine = root / "content" / "site.toml" if where == "content" else tmp_path / "site.toml"
    mine.write_text("# mine\n", encoding="utf-8")
    proc = run_cli("init", root)
    assert proc.returncode == 2, proc.stdout
    assert str(mine.name) in proc.stderr and "--force" in proc.stderr
    assert not (root / "site.toml").exists()
    assert mine.read_text("utf-8") == "# mine\n"


def test_init_without_game_pages_asks_for_the_folder(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "about.md").write_text("---\ntitle: About\n---\n", encoding="utf-8")
    proc = run_cli("init", tmp_path)
    assert proc.returncode == 2
    assert "--games" in proc.stderr
    assert not (tmp_path / "site.toml").exists()


def test_init_takes_the_games_folder_it_is_given(tmp_path: Path) -> None:
    root = bare_site("games-collection", tmp_path)
    code, report = init_json(root, "--games", "content/games")
    assert code == 0
    assert report["summary"]["games"] == "content/games"
    missing = run_cli("init", root, "--force", "--games", "content/nothing")
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_init_runs_in_the_current_folder(tmp_path: Path) -> None:
    root = bare_site("hugo-bundles", tmp_path)
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "site.toml").is_file()


def test_init_is_in_the_shell_completions() -> None:
    for shell in ("bash", "zsh", "fish"):
        proc = run_cli("completion", shell)
        assert proc.returncode == 0
        assert "init" in proc.stdout.split() or "'init'" in proc.stdout or "init:" in proc.stdout


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def jekyll_posts_site(root: Path) -> Path:
    """A Jekyll site that keeps its games in _posts with `categories: game` and every store
    link in the text, beside blog posts; keys the catalog maps by their values."""
    files = {"_config.yml": 'title: Pocket Forge\nurl: "https://pocketforge.example"\n'}
    for i, (slug, platforms) in enumerate(
        [("orbit-run", "[iOS, Android]"), ("tide-pool", "[Android]"), ("moss", "[iOS]")]
    ):
        files[f"_posts/2024-0{i + 1}-01-{slug}.md"] = (
            "---\nlayout: post\n"
            f"title: {slug.title()}\ncategories: game\nplatform: {platforms}\n"
            f"tags: [Puzzle, Casual]\nfeatured_image: /images/{slug}.png\n"
            f"excerpt: The {slug} game.\n---\n\n"
            f"[![Get it on Google Play](/badges/play.png)](https://play.google.com/store/apps/"
            f"details?id=com.pocketforge.{slug.replace('-', '')})\n"
            f'<a href="https://apps.apple.com/app/{slug}/id10000000{i}">App Store</a>\n'
        )
    files["_posts/2024-05-01-devlog.md"] = (
        "---\nlayout: post\ntitle: Devlog\ncategories: blog\n---\n\nWe are working on it.\n"
    )
    return write(root, files)


def test_init_finds_games_in_posts_by_their_category_and_maps_keys_by_values(
    tmp_path: Path,
) -> None:
    root = jekyll_posts_site(tmp_path / "site")
    proc = run_cli("init", "--format", "json", cwd=root)
    report = json.loads(proc.stdout)
    summary = report["summary"]
    assert summary["games"] == "_posts"
    text = (root / "site.toml").read_text("utf-8")
    site = tomllib.loads(text)
    # The platform names, the short labels of tags and the image path, by their values.
    assert site["fields"]["platforms"] == "platform"
    assert site["fields"]["genres"] == "tags"
    assert site["fields"]["icon"] == "featured_image"
    assert "values: iOS, Android in 3 of 3 pages" in text
    assert "iOS" in summary["guesses"]["platforms"]
    # `categories: game` says a page is a game, not its genre.
    assert site["fields"]["genres"] != "categories"
    assert "have a game category" in text
    # The devlog beside the games is not one: the category keeps the games only.
    assert site["content"]["category"] == "game"
    assert (summary["category"], summary["outside_category"]) == ("game", 1)
    assert (
        "3 game pages in _posts (1 other page outside the category 'game')"
        in run_cli("init", "--force", cwd=root).stdout
    )
    proc = run_cli("validate", "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stdout
    checked = json.loads(proc.stdout)
    assert not [f for f in checked["findings"] if "devlog" in f["file"]]
    assert checked["summary"]["read"]["outside_category"] == 1
    assert checked["summary"]["games"] == 3


def test_init_does_not_take_portals_for_platforms(tmp_path: Path) -> None:
    root = bare_site("jekyll-collection", tmp_path)
    for page in (root / "collections" / "_showcase").iterdir():
        text = page.read_text("utf-8")
        kept = [line for line in text.splitlines(True) if not line.startswith("platforms:")]
        page.write_text("".join(kept), encoding="utf-8")
    proc = run_cli("init", "--format", "json", cwd=root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    # `platform: [itch.io, Newgrounds]` names portals: left for the user.
    assert site["fields"].get("platforms") != "platform"
    assert "platforms" in json.loads(proc.stdout)["summary"]["lacking"]


def test_init_maps_the_one_date_key_and_comments_schema_stores(tmp_path: Path) -> None:
    root = bare_site("astro-released-games", tmp_path)
    run_cli("init", cwd=root)
    text = (root / "site.toml").read_text("utf-8")
    assert 'date = "sortDate"  # guess: dates in 5 of 5 pages' in text
    # The schema's store keys no page has yet wait as comments: a live one would fail.
    assert '# steam = "steamUrl"' in text and '# ios = "applePlayUrl"' in text
    assert tomllib.loads(text)["fields"]["stores"] == {
        "googleplay": "googlePlayUrl",
        "itch": "itchUrl",
    }


def hugo_game(name: str, link: str) -> str:
    return (
        f"---\ntitle: {name}\ndescription: A game.\nplatforms: [Windows]\ngenres: [Horror]\n"
        f"icon: /{name.lower()}.png\nexternalUrl: {link}\n---\n"
    )


def test_init_gives_each_store_of_a_shared_key_its_own_links(tmp_path: Path) -> None:
    """One key holding an itch.io link on one page and a Steam link on another is read by
    two stores, each link published under the name of its own store."""
    root = write(
        tmp_path,
        {
            "hugo.toml": 'baseURL = "https://ex.example/"\ntitle = "Ex"\n',
            "content/games/_index.md": "---\ntitle: Games\n---\n",
            "content/games/a.md": hugo_game("A", "https://ex.itch.io/a"),
            "content/games/b.md": hugo_game("B", "https://store.steampowered.com/app/1/B/"),
            "content/games/c.md": hugo_game("C", "https://ex.itch.io/c"),
        },
    )
    assert init_json(root)[0] == 0
    text = (root / "site.toml").read_text("utf-8")
    assert 'itch = "externalUrl"  # ex.itch.io links in 2 of 3 pages; each link goes' in text
    assert 'steam = "externalUrl"  # store.steampowered.com links in 1 of 3 pages' in text
    from catalogctl.content.loader import load_catalog

    stores = {g["id"]: [s["name"] for s in g["stores"]] for g in load_catalog(root).games}
    assert stores == {"a": ["itch.io"], "b": ["Steam"], "c": ["itch.io"]}


@pytest.mark.parametrize(
    ("homepage", "base_url"),
    [
        ("https://github.com/acme/site", "https://example.com"),
        ("https://gitlab.com/acme/site", "https://example.com"),
        ("https://games.acme.example/#top", "https://example.com"),
        ("https://games.acme.example/", "https://games.acme.example"),
        # The repository of a GitHub Pages site is served at <owner>.github.io.
        ("https://github.com/Acme/Acme.github.io#readme", "https://acme.github.io"),
        ("https://github.com/acme/other.github.io", "https://example.com"),
    ],
)
def test_init_takes_no_repository_for_the_websites_address(
    tmp_path: Path, homepage: str, base_url: str
) -> None:
    package = {"homepage": homepage, "devDependencies": {"@11ty/eleventy": "^2.0.1"}}
    root = write(
        tmp_path,
        {
            "package.json": json.dumps(package),
            "src/games/a.md": hugo_game("A", "https://ex.itch.io/a"),
        },
    )
    run_cli("init", cwd=root)
    text = (root / "site.toml").read_text("utf-8")
    assert tomllib.loads(text)["base_url"] == base_url
    if base_url != "https://example.com":
        assert "# from package.json's homepage" in text


def labelled_links(name: str, project: str) -> str:
    return (
        f"---\ntitle: {name}\ndescription: A game.\ntags: [puzzle]\nlinks:\n"
        f"- label: Play\n  url: https://studio.itch.io/{name.lower()}\n"
        f"- label: Project\n  url: {project}\n---\n"
    )


def test_init_makes_no_store_of_a_label_whose_links_are_mostly_elsewhere(
    tmp_path: Path,
) -> None:
    """`links[label=Project].url` is an itch.io page in one game of three, a source
    repository in the others: no store; `links[label=Play].url` is itch.io in each."""
    root = write(
        tmp_path,
        {
            "_config.yml": 'title: Ex\nurl: "https://ex.example"\ncollections:\n  games: {}\n',
            "_games/a.md": labelled_links("A", "https://studio.itch.io/a-devlog"),
            "_games/b.md": labelled_links("B", "https://github.com/studio/b"),
            "_games/c.md": labelled_links("C", "https://github.com/studio/c"),
        },
    )
    code, report = init_json(root)
    assert code in (0, 1)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["fields"]["stores"] == {"play": "links[label=Play].url"}
    assert list(site["stores"]) == ["play"]
    assert (
        "links[label=Project].url links a store in 1 of its 3 items, and elsewhere in the "
        "others: not mapped"
    ) in " ".join(report["summary"]["notes"])


def test_init_makes_no_store_of_a_key_whose_links_are_mostly_elsewhere(tmp_path: Path) -> None:
    """`direct_link` is an itch.io page in one game of four, a web build or a repository in
    the others: no store, and a note says why."""
    links = [
        "https://studio.itch.io/a",
        "https://studio.example/b/",
        "https://github.com/studio/c",
        "https://studio.example/d/",
    ]
    files = {"hugo.toml": 'baseURL = "https://studio.example/"\ntitle = "Ex"\n'}
    for name, link in zip("abcd", links, strict=True):
        files[f"content/games/{name}.md"] = (
            f'+++\ntitle = "{name.upper()}"\ndescription = "A game."\n'
            f'image = "/img/{name}.png"\ndirect_link = "{link}"\n+++\n'
        )
    root = write(tmp_path, files)
    code, report = init_json(root)
    assert code == 1
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert "stores" not in site.get("fields", {})
    assert (
        "direct_link links a store in 1 of the 4 pages that give it a value, and elsewhere in "
        "the others: not mapped"
    ) in " ".join(report["summary"]["notes"])


@pytest.mark.parametrize(
    "translated",
    [
        ("games/shark-hunt-fr.md", "games/nest-guard-fr.md"),
        ("games/fr/shark-hunt.md", "games/fr/nest-guard.md"),
    ],
)
def test_init_leaves_out_translations_named_by_hand(
    tmp_path: Path, translated: tuple[str, str]
) -> None:
    """Pages that add a language to another page's name (`shark-hunt-fr.md`), or copy them
    into a folder named as a language (`fr/`), are translations: excluded, with why; a
    category some games carry (`category: Action Game`) while every page asks for the game
    layout is a genre, not what marks the games; and the store other pages of the site
    link in their text (a post's itch.io link) is written."""
    page = "---\nlayout: game\ntitle: {t}\ndescription: A VR game.\nimg: /img/{s}.webp\n{c}---\n"
    files = {
        "_config.yml": 'title: Mineo\nurl: "https://mineo.example"\n',
        "_posts/2021-02-22-vermin.md": "---\ntitle: Out now\n---\n"
        "Play it on [itch.io](https://mineo.itch.io/vermin-exterminator).\n",
        "_posts/2021-03-01-jam.md": "---\ntitle: Our jam\n---\nWe made a game in 48 hours.\n",
        "_posts/2021-04-01-vr.md": "---\ntitle: VR notes\n---\nOn the Quest.\n",
    }
    for slug, category in (("shark-hunt", "category: Action Game\n"), ("nest-guard", "")):
        text = page.format(t=slug.title(), s=slug, c=category)
        files[f"games/{slug}.md"] = text
        files[next(t for t in translated if slug in t)] = text.replace("A VR game.", "Un jeu.")
    root = write(tmp_path, files)
    assert init_json(root)[0] == 1
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    pattern = "*-fr.md" if translated[0].endswith("-fr.md") else "fr/"
    assert site["content"]["exclude"] == [pattern]
    assert "category" not in site["content"]
    assert list(site["stores"]) == ["itch"]
    proc = run_cli("validate", "--format", "json", cwd=root)
    checked = json.loads(proc.stdout)
    read = checked["summary"]["read"]
    assert (read["pages"], read["excluded"]) == (2, 2)
    assert [f["rule"] for f in checked["findings"] if f["file"].endswith("site.toml")] == [
        "unlinked-store"
    ]


@pytest.mark.parametrize(
    ("files", "source"),
    [
        (
            {
                "config/_default/hugo.toml": 'baseURL = "https://ex.example/"\n',
                "config/_default/languages.en.toml": "title = 'Rooster Syndicate'\n"
                "[params]\ndescription = 'I like to make games!'\n",
            },
            "config/_default/languages.en.toml",
        ),
        (
            {
                "config/_default/hugo.toml": 'baseURL = "https://ex.example/"\n'
                'defaultContentLanguage = "fr"\n',
                "config/_default/languages.toml": "[en]\ntitle = 'Wrong'\n"
                "[fr]\ntitle = 'Rooster Syndicate'\n[fr.params]\n"
                "description = 'I like to make games!'\n",
            },
            "config/_default/languages.toml",
        ),
        (
            {
                "hugo.toml": 'baseURL = "https://ex.example/"\ntitle = "Site"\n'
                "[languages.en]\ntitle = 'Rooster Syndicate'\n"
                "[languages.en.params]\ndescription = 'I like to make games!'\n"
            },
            "hugo.toml",
        ),
    ],
)
def test_init_reads_the_title_of_a_hugo_sites_language(
    tmp_path: Path, files: dict[str, str], source: str
) -> None:
    root = write(tmp_path, {**files, "content/games/a.md": hugo_game("A", "https://ex.itch.io/a")})
    run_cli("init", cwd=root)
    text = (root / "site.toml").read_text("utf-8")
    assert f'title = "Rooster Syndicate"  # from {source}' in text
    assert f'description = "I like to make games!"  # from {source}' in text


ASTRO_SCHEMA = """import { defineCollection, z } from "astro:content";
const gamesCollection = defineCollection({
  type: 'content',
  schema: z.object({
    title: z.string(),
    description: z.string().optional(),
    steam: z.string().optional(),
    gamejolt: z.string().optional(),
    team: z.array(z.object({ name: z.string() })),
  })
})
export const collections = { games: gamesCollection };
"""
ASTRO_ROUTE = """---
import { getCollection } from "astro:content";
export async function getStaticPaths() {
  const entries = await getCollection("games");
  return entries.map((entry) => ({ params: { slug: entry.slug }, props: { entry } }));
}
---
"""


def test_init_on_an_astro_site_follows_its_route_and_its_schema(tmp_path: Path) -> None:
    """The collection's pages are served by src/pages/gry/[...slug].astro: game_url follows
    it; `team` beside `steam` is the site's own key; the schema's `gamejolt`, empty in the
    page, waits as a comment."""
    page = (
        '---\ntitle: "Turbo"\ndescription: "A racing game"\n'
        'steam: "https://store.steampowered.com/app/3633880/Turbo/"\ngamejolt: ""\n'
        "team:\n  - name: Kacper\n---\nText.\n"
    )
    root = write(
        tmp_path,
        {
            "astro.config.mjs": 'export default { site: "https://ex.example" };\n',
            "src/content/config.ts": ASTRO_SCHEMA,
            "src/content/games/turbo.md": page,
            "src/pages/gry/[...slug].astro": ASTRO_ROUTE,
            "src/pages/gry/index.astro": "---\n---\n",
        },
    )
    run_cli("init", cwd=root)
    text = (root / "site.toml").read_text("utf-8")
    site = tomllib.loads(text)
    assert site["game_url"] == "{base_url}/gry/{id}/"
    assert site["content"]["own_keys"] == ["team"]
    assert '# gamejolt = "gamejolt"  (and a [stores.gamejolt] table)' in text
    proc = run_cli("validate", "--format", "json", cwd=root)
    assert not [f for f in json.loads(proc.stdout)["findings"] if f["rule"] == "unknown-key"]


def jekyll_post(title: str, categories: str, link: str = "") -> str:
    body = f"Play on [itch.io](https://studio.itch.io/{title.lower()}).\n" if link else "Text.\n"
    return (
        f"---\ntitle: {title}\nexcerpt: A post.\ncategories: {categories}\n"
        f"image: https://studio.example/{title.lower()}.png\n---\n{body}"
    )


def test_init_keeps_the_game_category_past_a_stray_label(tmp_path: Path) -> None:
    """Three game posts say `game` (Jekyll's words: `renpy horror game`), a listicle says
    `games`, a tutorial nothing: the category is `game`, the listicle is named, and the words
    of `categories` are not taken for genres."""
    root = write(
        tmp_path,
        {
            "_config.yml": 'title: studio\nurl: "https://studio.example"\n',
            "_posts/2024-01-04-beta.md": jekyll_post("Beta", "renpy horror game", "link"),
            "_posts/2024-01-05-alpha.md": jekyll_post("Alpha", "godot puzzle game", "link"),
            "_posts/2024-01-06-gamma.md": jekyll_post("Gamma", "pico8 game", "link"),
            "_posts/2024-02-01-free.md": jekyll_post("Free", "free multiplayer games"),
            "_posts/2024-03-01-cli.md": jekyll_post("Cli", "renpy tutorial"),
        },
    )
    code, report = init_json(root)
    assert code == 1, report
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["content"]["category"] == "game"
    assert "genres" not in site.get("fields", {})
    notes = " ".join(report["summary"]["notes"])
    assert "carries another game category than 'game'" in notes
    assert "_posts/2024-02-01-free.md" in notes


def test_init_takes_no_blog_for_games_for_a_post_linking_the_studios_game(
    tmp_path: Path,
) -> None:
    post = (
        "+++\ntitle = 'Hello'\n[taxonomies]\ntags = ['devlog']\n+++\n"
        "Our first release, [Bowling Hills](https://store.steampowered.com/app/2125190/x/).\n"
    )
    root = write(
        tmp_path,
        {
            "config.toml": 'base_url = "https://studio.example"\ntitle = "Studio"\n',
            "content/_index.md": "+++\n+++\n",
            "content/blog/_index.md": "+++\n+++\n",
            "content/blog/2025-04-10-hello.md": post,
            "content/blog/2025-05-06-levels.md": post.replace("Hello", "Levels").split("Our")[0],
        },
    )
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 2
    assert "a store link only in a few of a blog's posts" in proc.stderr
    assert not (root / "site.toml").exists()


@pytest.mark.parametrize("config", ["config.toml", "hugo.toml"])
def test_init_game_url_of_pages_at_the_content_root(tmp_path: Path, config: str) -> None:
    setting = "base_url" if config == "config.toml" else "baseURL"
    root = write(
        tmp_path,
        {
            config: f'{setting} = "https://studio.example"\ntitle = "Studio"\n',
            "content/a.md": hugo_game("A", "https://ex.itch.io/a"),
            "content/b.md": hugo_game("B", "https://ex.itch.io/b"),
        },
    )
    run_cli("init", "--games", "content", cwd=root)
    assert tomllib.loads((root / "site.toml").read_text("utf-8"))["game_url"] == "{base_url}/{id}/"


def test_init_reads_a_nextjs_sites_address_from_next_sitemap(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "package.json": json.dumps({"dependencies": {"next": "14.0.0"}}),
            "next-sitemap.config.js": "module.exports = {\n  siteUrl: process.env.SITE_URL || "
            "'https://studio.example',\n}\n",
            "content/games/a.mdx": hugo_game("A", "https://ex.itch.io/a"),
        },
    )
    run_cli("init", cwd=root)
    text = (root / "site.toml").read_text("utf-8")
    assert 'base_url = "https://studio.example"  # from next-sitemap.config.js' in text


@pytest.mark.parametrize("template", ["content/games/_TEMPLATE.md", "archetypes/games.md"])
def test_init_takes_the_stores_of_the_template_when_no_game_links_one(
    tmp_path: Path, template: str
) -> None:
    """Games not released yet link no store; the page a new game is copied from names the
    site's stores: init writes them (a warning each until a page links it), and the site.toml
    itself validates."""
    game = (
        "---\ntitle: {0}\ndescription: Soon.\ngenre: [Puzzle]\nplatforms: [PC]\n"
        "thumbnail: /images/{0}.jpg\n---\nComing soon.\n"
    )
    root = write(
        tmp_path,
        {
            "hugo.toml": 'baseURL = "https://studio.example/"\ntitle = "Studio"\n',
            template: "---\ntitle: Game Title\nstoreLinks:\n"
            '  steam: "https://store.steampowered.com/app/..."\n'
            '  itch: "https://username.itch.io/game"\n---\n',
            "content/games/_index.md": "---\ntitle: Games\n---\n",
            "content/games/alpha.md": game.format("Alpha"),
            "content/games/beta.md": game.format("Beta"),
        },
    )
    code, report = init_json(root)
    assert code == 1, report
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    # A key per store: one that no page has yet is a warning, where the whole table of a
    # required key that no page has would be an error.
    assert site["fields"]["stores"] == {"steam": "storeLinks.steam", "itch": "storeLinks.itch"}
    assert list(site["stores"]) == ["steam", "itch"]
    assert f"the stores are those of {template}" in " ".join(report["summary"]["notes"])
    proc = run_cli("validate", "--format", "json", cwd=root)
    findings = json.loads(proc.stdout)["findings"]
    # One warning a store, at its [fields.stores] line, for the one cause.
    told = [
        (f["rule"], f["severity"], f["field"]) for f in findings if f["file"].endswith("site.toml")
    ]
    assert sorted(told) == [
        ("unused-mapping", "warning", "fields.stores.itch"),
        ("unused-mapping", "warning", "fields.stores.steam"),
    ]
    assert {(f["rule"], Path(f["file"]).name) for f in findings if f["severity"] == "error"} == {
        ("missing-field", "alpha.md"),
        ("missing-field", "beta.md"),
    }


def test_init_names_no_code_or_social_host_as_a_store_to_add(tmp_path: Path) -> None:
    page = (
        "---\ntitle: {0}\ndescription: A game.\nimage: /{0}.png\n---\n"
        "[Play](https://www.gamepix.com/play/{0}) · [source](https://github.com/studio/{0}) · "
        "[trailer](https://www.youtube.com/watch?v={0})\n"
    )
    root = write(
        tmp_path,
        {
            "hugo.toml": 'baseURL = "https://studio.example/"\ntitle = "Studio"\n',
            "content/games/a.md": page.format("a"),
            "content/games/b.md": page.format("b"),
        },
    )
    notes = " ".join(init_json(root)[1]["summary"]["notes"])
    assert "www.gamepix.com (2 pages)" in notes
    assert "github.com" not in notes and "youtube.com" not in notes


def test_init_names_no_forum_as_a_store_to_add(tmp_path: Path) -> None:
    page = (
        "---\ntitle: {0}\ndescription: A game.\nimage: /{0}.png\n---\n"
        "[Declared the winner](http://forum.bennugd.org/index.php/topic,{0}.html)\n"
    )
    root = write(
        tmp_path,
        {
            "hugo.toml": 'baseURL = "https://studio.example/"\ntitle = "Studio"\n',
            "content/games/a.md": page.format("a"),
            "content/games/b.md": page.format("b"),
        },
    )
    assert "forum.bennugd.org" not in " ".join(init_json(root)[1]["summary"]["notes"])


# What each real site's owner maps, which init must map the same way (beyond what the pages
# lack, which the fixture test compares): the key of each catalog key and of each store.
OWNERS_MAPPING = {
    # `categories = ["game", "rust"]` says what the page is; `tags` holds the genres.
    "hugo-toml-bundles-itch-embeds": {"genres": "tags", "icon": "image"},
    # One platform a page (`platform: "iOS"`); `app_link` is the App Store's link.
    "hugo-apps-one-value-keys": {
        "platforms": "platform",
        "genres": "category",
        "stores": {"ios": "app_link"},
    },
    # `icon` in 7 pages beats `cover` in 8: the catalog's own key.
    "astro-projects-by-category": {"description": "summary", "weight": "order"},
    "jekyll-pages-games-series": {"description": "excerpt"},
    # `steam_page` links Steam in 3 pages and is empty in the 9 others: Steam's key.
    "jekyll-collection-empty-store-keys": {"icon": "logo_img", "stores": {"steam": "steam_page"}},
    "jekyll-pages-folder-cname": {"name": "title", "icon": "header"},
    "hugo-language-folder-itch-profiles": {"name": "title", "icon": "featured_image"},
}


@pytest.mark.parametrize("name", sorted(OWNERS_MAPPING))
def test_init_maps_the_keys_the_owner_maps(tmp_path: Path, name: str) -> None:
    root = bare_site(name, tmp_path)
    init_json(root)
    fields = tomllib.loads((root / "site.toml").read_text("utf-8")).get("fields", {})
    for key, path in OWNERS_MAPPING[name].items():
        assert fields.get(key) == path, (key, fields)
    if name == "astro-projects-by-category":
        assert "icon" not in fields  # read from the pages' own `icon`, not from `cover`


def test_init_counts_only_pages_with_a_value(tmp_path: Path) -> None:
    """`excerpt:` with nothing in 6 of 9 pages: the comment counts the 3 that say something,
    and validate tells the others the key is empty (no "quote it")."""
    root = bare_site("jekyll-pages-games-series", tmp_path)
    init_json(root)
    text = (root / "site.toml").read_text("utf-8")
    assert 'description = "excerpt"  # in 3 of 9 pages' in text
    report = json.loads(run_cli("validate", "--format", "json", cwd=root).stdout)
    empty = [f for f in report["findings"] if f["field"] == "excerpt"]
    assert len(empty) == 6
    assert {f["message"] for f in empty} == {"is empty; give it a value"}


def test_init_says_a_local_base_url_is_local(tmp_path: Path) -> None:
    root = bare_site("hugo-toml-bundles-itch-embeds", tmp_path)
    notes = " ".join(init_json(root)[1]["summary"]["notes"])
    assert "(http://localhost:1313) is a local one" in notes
    # A public address beside it wins: a GitHub Pages site's CNAME.
    (root / "CNAME").write_text("games.mewily.example\n", encoding="utf-8")
    (root / "site.toml").unlink()
    init_json(root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["base_url"] == "https://games.mewily.example"


def test_init_writes_a_store_of_the_sites_own_from_its_table_of_links(tmp_path: Path) -> None:
    """The template names Steam, itch.io and GOG under `storeLinks`; one page links its web
    build there (`storeLinks.web`): a store of kind other, which publishes that game."""
    root = bare_site("nextjs-template-store-table", tmp_path)
    _, report = init_json(root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["fields"]["stores"]["web"] == "storeLinks.web"
    assert site["stores"]["web"] == {"name": "Web", "kind": "other"}
    assert "written as store 'web'" in " ".join(report["summary"]["notes"])
    checked = json.loads(run_cli("validate", "--format", "json", cwd=root).stdout)
    assert checked["summary"]["games"] == 1


BRANCH_APP = (
    "---\ntitle: '{0}'\ndate: 2026-01-28\ndescription: ''\ncover:\n  image: 'images/{0}.png'\n"
    "---\nThe simplest way to care for your plants.\n"
)


def test_init_reads_a_site_whose_each_game_is_a_section(tmp_path: Path) -> None:
    """Each app a branch bundle at the content root (`content/<app>/_index.md` beside its
    privacy.md), no store link anywhere: with no argument init names the section pages;
    `--games content` reads them (sections = true), the privacy pages left out."""
    files = {"hugo.yaml": "baseURL: https://apps.example/\ntitle: Apps\n"}
    for app in ("plant-care", "pill-reminder", "period-tracker"):
        files[f"content/{app}/_index.md"] = BRANCH_APP.format(app)
        files[f"content/{app}/privacy.md"] = PRIVACY
    root = write(tmp_path, files)
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 2
    assert "3 section pages of content" in proc.stderr
    assert "`--games content` reads them" in proc.stderr
    code, report = init_json("--games", "content", root)
    assert code == 1, report
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["content"]["sections"] is True
    checked = json.loads(run_cli("validate", "--format", "json", cwd=root).stdout)
    assert checked["summary"]["read"]["pages"] == 3, checked["summary"]


def test_init_says_a_data_file_lists_the_games(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "_config.yml": "title: Studio\nurl: https://studio.example\n",
            "_data/games.yml": "- name: Sneak In\n  steam: https://store.steampowered.com/app/1\n",
            "index.html": "<h1>Studio</h1>\n",
        },
    )
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 2
    assert "the site lists its games in a data file (_data/games.yml)" in proc.stderr


PRIVACY = "---\ntitle: Privacy policy\n---\nWe collect nothing.\n"


def test_init_takes_no_legal_page_for_a_game(tmp_path: Path) -> None:
    """A games folder holding only its legal pages (the games are cards in its section page)
    has no game pages: init says so, naming what it left out."""
    root = write(
        tmp_path,
        {
            "config.toml": 'base_url = "https://ex.example"\ntitle = "Ex"\n',
            "content/games/_index.md": '+++\ntitle = "Games"\n+++\n<a href="/games/x/">X</a>\n',
            "content/games/legal/_index.md": '+++\ntitle = "Legal"\n+++\n',
            "content/games/legal/privacy.md": PRIVACY,
            "content/games/legal/terms.md": PRIVACY.replace("Privacy policy", "Terms"),
        },
    )
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 2
    assert "2 legal pages left out: content/games/legal/privacy.md" in proc.stderr
    assert not (root / "site.toml").exists()


def test_init_excludes_a_games_own_pages_and_reads_a_game_kept_in_its_section(
    tmp_path: Path,
) -> None:
    """Hugo: `brick/_index.md` (linking its store) beside `brick/privacy-policy.md` is the game;
    a Jekyll-like `<game>/mechanics/*.md` are the game's own pages. init writes `sections`
    and the `exclude` patterns, and validate reads exactly the games."""
    play = "https://play.google.com/store/apps/details?id=com.ex."
    game = (
        "---\ntitle: {0}\ndescription: A game.\nplatforms: [Android]\ngenres: [Arcade]\n"
        "icon: /{1}.png\n---\n[Get it on Google Play]({2}{1})\n"
    )
    root = write(
        tmp_path,
        {
            "hugo.toml": 'baseURL = "https://ex.example/"\ntitle = "Ex"\n',
            "content/games/_index.md": "---\ntitle: Games\n---\n",
            "content/games/brick/_index.md": game.format("Brick", "brick", play),
            "content/games/brick/privacy-policy.md": PRIVACY,
            "content/games/tiles/_index.md": game.format("Tiles", "tiles", play),
            "content/games/tiles/privacy-policy.md": PRIVACY,
            "content/games/mokosh/mokosh.md": game.format("Mokosh", "mokosh", play),
            "content/games/mokosh/mechanics/doors.md": "---\ntitle: Doors\n---\n",
            "content/games/mokosh/mechanics/menus.md": "---\ntitle: Menus\n---\n",
        },
    )
    code, report = init_json(root)
    assert code == 0, report
    text = (root / "site.toml").read_text("utf-8")
    content = tomllib.loads(text)["content"]
    assert content["sections"] is True and content["body_links"] is True
    assert content["exclude"] == ["privacy-policy.md", "*/mechanics/*"]
    assert '"privacy-policy.md",  # legal: content/games/brick/privacy-policy.md' in text
    proc = run_cli("validate", "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stdout
    checked = json.loads(proc.stdout)
    assert checked["summary"]["read"]["excluded"] == 4
    from catalogctl.content.loader import load_catalog

    assert [g["id"] for g in load_catalog(root).games] == ["brick", "mokosh", "tiles"]


@pytest.mark.parametrize("homepage", [None, "https://github.com/acme/acme.github.io"])
def test_init_takes_a_github_pages_sites_own_domain_from_its_cname(
    tmp_path: Path, homepage: str | None
) -> None:
    package: dict[str, Any] = {"devDependencies": {"@11ty/eleventy": "^2.0.1"}}
    if homepage:
        package["homepage"] = homepage
    root = write(
        tmp_path,
        {
            "package.json": json.dumps(package),
            "src/CNAME": "games.acme.example\n",
            "src/games/a.md": hugo_game("A", "https://ex.itch.io/a"),
        },
    )
    run_cli("init", cwd=root)
    text = (root / "site.toml").read_text("utf-8")
    assert tomllib.loads(text)["base_url"] == "https://games.acme.example"


def test_init_chooses_the_games_over_a_blog_linking_the_same_stores(tmp_path: Path) -> None:
    root = bare_site("eleventy-games-json", tmp_path)
    proc = run_cli("init", "--format", "json", cwd=root)
    summary = json.loads(proc.stdout)["summary"]
    assert summary["games"] == "src/games"
    assert summary["body_links"] is True
    chosen = summary["candidates"][0]
    assert chosen["folder"] == "src/games"
    assert any("directory data file (games.json: tags game)" in r for r in chosen["reasons"])
    assert any("in their text" in r for r in chosen["reasons"])
    assert "src/blog" in [c["folder"] for c in summary["candidates"]]
    text = (root / "site.toml").read_text("utf-8")
    # Both stores are known by their hosts (validate reads their links the same way): no
    # `hosts` to write.
    assert "\nbody_links = true  # 4 of 4 pages link their stores in the page text" in text
    site = tomllib.loads(text)
    assert {k: (s["name"], s["kind"]) for k, s in site["stores"].items()} == {
        "playdate": ("Playdate Catalog", "other"),
        "itch": ("itch.io", "other"),
    }
    assert "hosts" not in text


def zola_bundles_site(root: Path, *, links: bool = True) -> Path:
    files = {
        "config.toml": 'base_url = "https://tidepool.example"\ntitle = "Tidepool"\n',
        "content/_index.md": '+++\ntitle = "Home"\n+++\n',
        "content/games/_index.md": '+++\ntitle = "Games"\nsort_by = "weight"\n+++\n',
        "content/blog/_index.md": '+++\ntitle = "Blog"\n+++\n',
        "content/blog/hello.md": '+++\ntitle = "Hello"\n+++\nHello.\n',
    }
    for slug in ("kelp", "reef"):
        link = f"Play it on [itch.io](https://tidepool.itch.io/{slug})." if links else "Soon."
        files[f"content/games/{slug}/index.md"] = (
            f'+++\ntitle = "{slug.title()}"\ndescription = "A {slug} game."\n'
            f'[extra]\ncover_image = "cover.png"\n+++\n\n{link}\n'
        )
        files[f"content/games/{slug}/cover.png"] = ""
    return write(root, files)


def test_init_finds_zola_bundles_whose_links_are_in_the_text(tmp_path: Path) -> None:
    root = zola_bundles_site(tmp_path / "site")
    proc = run_cli("init", "--format", "json", cwd=root)
    summary = json.loads(proc.stdout)["summary"]
    assert summary["games"] == "content/games"
    assert summary["fields"]["icon"] == "extra.cover_image"
    assert [s["key"] for s in summary["stores"]] == ["itch"]


def test_init_without_links_goes_by_the_section_name_and_says_it_is_unsure(
    tmp_path: Path,
) -> None:
    root = zola_bundles_site(tmp_path / "site", links=False)
    proc = run_cli("init", cwd=root)
    assert (root / "site.toml").is_file()
    text = (root / "site.toml").read_text("utf-8")
    assert 'games = "content/games"  # its name, games; a section (_index.md)' in text
    assert "# Not sure: also weighed content (3 pages: nothing says games)" in text
    assert "content/blog (1 page: its name, blog, is a blog's" in text
    assert "the games folder is a guess" in proc.stdout


def test_init_with_nothing_to_go_on_names_the_folders_it_saw(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "content/notes/one.md": "---\ntitle: One\n---\n",
            "content/notes/two.md": "---\ntitle: Two\n---\n",
            "content/about.md": "---\ntitle: About\n---\n",
        },
    )
    proc = run_cli("init", cwd=tmp_path)
    assert proc.returncode == 2
    assert "content/notes (2 pages" in proc.stderr and "--games" in proc.stderr
    assert not (tmp_path / "site.toml").exists()


def test_init_maps_an_icon_kept_in_a_list_of_images(tmp_path: Path) -> None:
    """`images: [{url: …, alt: Game Logo}, {url: …, alt: Screenshot}]` (a Jekyll theme's
    gallery): the icon is the item the pages name alike, with an icon's word first."""
    files = {"_config.yml": 'title: Geared\nurl: "https://geared.example"\n'}
    for name in "abc":
        files[f"_posts/game/2020-01-0{ord(name) - 96}-{name}.md"] = (
            "---\ncategory: game\nimages:\n"
            f"  - url: /assets/{name}-shot.png\n    alt: Screenshot\n"
            f"  - url: /assets/{name}-logo.png\n    alt: Game Logo\n---\n"
            f"[itch.io](https://geared.itch.io/{name})\n"
        )
    root = write(tmp_path, files)
    init_json(root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["fields"]["icon"] == "images[alt=Game Logo].url"
    proc = run_cli("validate", "--format", "json", cwd=root)
    assert not [f for f in json.loads(proc.stdout)["findings"] if f["field"] == "icon"]


def test_init_takes_no_mark_for_a_description(tmp_path: Path) -> None:
    """`subtitle: "📃"` on every page is a mark, not a description: init maps the key with
    words (`summary`), though fewer pages have it."""
    files = {"next.config.js": "module.exports = {}\n"}
    for i, name in enumerate("abc"):
        summary = f"summary: The game {name} in words.\n" if i else ""
        files[f"content/games/{name}.mdx"] = (
            f'---\ntitle: {name}\nsubtitle: "📃"\n{summary}itch: https://ex.itch.io/{name}\n---\n'
        )
    root = write(tmp_path, files)
    init_json(root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["fields"]["description"] == "summary"


def test_init_maps_an_astro_collections_order_to_weight(tmp_path: Path) -> None:
    """`order: 2` (an Astro collection's sort key, ascending as weight is) is weight."""
    files = {"astro.config.mjs": 'export default { site: "https://ex.example" }\n'}
    for i, name in enumerate("abc", 1):
        files[f"src/content/games/{name}.md"] = (
            f"---\ntitle: {name}\norder: {i}\nitchlink: https://ex.itch.io/{name}\n---\n"
        )
    root = write(tmp_path, files)
    init_json(root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["fields"]["weight"] == "order"


@pytest.mark.parametrize(
    ("tokens", "written"), [(("120890297", "120890297"), "120890297"), (("1", "2"), None)]
)
def test_init_takes_the_provider_token_of_the_pages_app_store_links(
    tmp_path: Path, tokens: tuple[str, str], written: str | None
) -> None:
    """The studio's own App Store links carry its provider token (`pt=`): init writes it in
    the store's params (one token in every link), or leaves the comment that asks for it."""
    files = {"_config.yml": 'title: Hong\nurl: "https://hong.example"\ncollections:\n  games: {}\n'}
    for name, pt in zip("ab", tokens, strict=True):
        files[f"_games/{name}.md"] = (
            f"---\ntitle: {name.upper()}\nimage: /i/{name}.png\n---\n"
            f'<a href="https://apps.apple.com/app/x/id{len(name)}23?pt={pt}&ct=site&mt=8">Get</a>\n'
        )
    root = write(tmp_path, files)
    init_json(root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    params = site["stores"]["ios"]["params"]
    assert params.get("pt") == written
    assert params["ct"] == "service_api_game_catalog"
    proc = run_cli("validate", "--format", "json", cwd=root)
    rules = {f["rule"] for f in json.loads(proc.stdout)["findings"]}
    assert ("spec-params" in rules) == (written is None)


def test_init_says_why_no_page_of_the_games_folder_could_be_read(tmp_path: Path) -> None:
    """A game kept as fragments without front matter (an Astro site's `[slug].astro` reads
    them), and pages whose front matter is invalid: init says which, and why, and writes
    nothing; never "run validate after init", which needs the site.toml it did not write."""
    files = {
        "astro.config.mjs": "export default {}\n",
        "src/content/games/psychroma/about.md": "Psychroma is a game.\n",
        "src/content/games/psychroma/links.md": "[Steam](https://store.steampowered.com/app/1/)\n",
        "_games/a.md": '---\ntitle: "A \\udce9"\n---\n',
    }
    root = write(tmp_path, files)
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 2 and not (root / "site.toml").exists()
    said = " ".join(proc.stderr.split())
    assert "2 Markdown files have no front matter (src/content/games/psychroma/about.md" in said
    proc = run_cli("init", "--games", "src/content/games", cwd=root)
    assert proc.returncode == 2 and not (root / "site.toml").exists()
    said = " ".join(proc.stderr.split())
    assert "no page in src/content/games could be read: 2 Markdown files have no front" in said
    assert "validate" not in said
    proc = run_cli("init", "--games", "_games", cwd=root)
    said = " ".join(proc.stderr.split())
    assert "the front matter of 1 page is invalid (_games/a.md: line 2: invalid YAML" in said


def test_init_takes_no_title_that_is_half_a_character(tmp_path: Path) -> None:
    """`title: "Studio \\ud83c"` in _config.yml (half a character, which no file can hold,
    and libyaml, Jekyll's parser, refuses): the configuration is unreadable, the title and
    the address are guessed, and site.toml is written."""
    files = {
        "_config.yml": 'title: "Studio \\ud83c"\nurl: "https://ex.example"\n',
        "_games/a.md": "---\ntitle: A\nstore: https://studio.itch.io/a\n---\n",
        "_games/b.md": "---\ntitle: B\nstore: https://studio.itch.io/b\n---\n",
    }
    root = write(tmp_path, files)
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 1, proc.stderr
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["title"] == root.name and site["base_url"] == "https://example.com"


def test_init_reports_what_it_could_not_read(tmp_path: Path) -> None:
    root = bare_site("hugo-games-itch", tmp_path)
    games = root / "content" / "games"
    (games / "loop").symlink_to(games, target_is_directory=True)
    (games / "broken.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    proc = run_cli("init", "--format", "json", cwd=root)
    summary = json.loads(proc.stdout)["summary"]
    assert summary["games"] == "content/games"
    unread = {u["file"]: u["reason"] for u in summary["unread"]}
    assert "not followed" in unread["content/games/loop"]
    assert "does not parse" in unread["content/games/broken.md"]
    assert any("could not be read" in n for n in summary["notes"])


def test_init_reports_a_folder_it_could_not_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As root every folder can be listed: make listing fail where the walk lists."""
    import os

    from catalogctl.content.scaffold import survey

    root = bare_site("hugo-games-itch", tmp_path)
    locked = root / "content" / "games" / "locked"
    locked.mkdir()
    (locked / "hidden.md").write_text("---\ntitle: H\n---\n", encoding="utf-8")
    scandir = os.scandir

    def refuse(path: Any = ".") -> Any:
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    found = survey.scan(root, ("content",))
    assert ("content/games/locked", "Permission denied") in found.unread
    assert found.pages and not [p for p in found.pages if "locked" in p.file]


@pytest.mark.parametrize("pages", [3, 4])
def test_init_reads_at_most_its_bound_of_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pages: int
) -> None:
    from catalogctl.content.scaffold import survey
    from catalogctl.content.scaffold.generators import detect

    root = bare_site("hugo-games-itch", tmp_path)
    monkeypatch.setattr(survey, "MAX_SCAN_PAGES", pages)
    found = survey.scan(root, detect(root).search)
    # content/ holds 4 pages the walk reads (the section pages are not read).
    assert len(found.pages) == min(pages, 4)
    assert bool(found.bounds) == (pages < 4)


def test_init_reads_store_links_as_validate_reads_them(tmp_path: Path) -> None:
    """init finds the store links of page bodies with validate's scanner and hosts table:
    every link validate takes from a body with init's site.toml is one init saw there."""
    from catalogctl.content.loader import load
    from catalogctl.content.scaffold.generators import detect
    from catalogctl.content.scaffold.survey import scan

    compared = 0
    for name in sorted(LAYOUTS):
        root = bare_site(name, tmp_path)
        if run_cli("init", cwd=root).returncode not in (0, 1):
            continue
        if not tomllib.loads((root / "site.toml").read_text("utf-8"))["content"].get("body_links"):
            continue
        found = scan(root, detect(root).search)
        seen = {
            (page.file, link.line, link.column, link.url)
            for page in (*found.pages, *found.sections)  # a game kept in its section's page
            for link in page.body
        }
        taken = {
            (e.file, b.line, b.column, b.url)
            for e in load(root, display=".").entries
            for b in e.body_links
        }
        assert taken and taken <= seen, name
        compared += 1
    assert compared >= 4


def page_info(labels: tuple[str, ...], linked: bool = False) -> Any:
    from catalogctl.content.scaffold.survey import PageInfo

    return PageInfo("_posts", f"_posts/{len(labels)}.md", linked, (), False, labels)


@pytest.mark.parametrize(
    ("pages", "label", "why"),
    [
        # every page a game, or too few: no category to write
        ([("game",), ("game",)], None, ""),
        ([("game",), (), (), ()], None, ""),
        ([(), ()], None, ""),
        # most pages of one label, the others none: written as the pages spell it
        ([("Game",), ("Game",), ("game",), ()], "Game", ""),
        # two game labels: left to the user, who is told
        ([("game",), ("app",), ()], None, "game (1), app (1)"),
    ],
)
def test_init_writes_a_category_only_for_games_among_other_pages(
    pages: list[tuple[str, ...]], label: str | None, why: str
) -> None:
    from catalogctl.content.scaffold.choose import game_category

    chosen = game_category("_posts", [page_info(p) for p in pages])
    assert chosen.label == label
    assert why in chosen.why and bool(chosen.why) == bool(why)


def test_init_names_pages_outside_the_category_that_link_a_store() -> None:
    from catalogctl.content.scaffold.choose import game_category

    pages = [page_info(("game",)), page_info(("game",)), page_info((), linked=True)]
    chosen = game_category("_posts", pages)
    assert chosen.label == "game"
    assert "1 page of _posts links a store but lacks the category 'game'" in chosen.why


def test_init_on_games_among_blog_posts_keeps_the_games_and_names_other_stores(
    tmp_path: Path,
) -> None:
    """The studio's _posts: 23 games (categories: game) and a blog post; eight games are sold
    only on web portals catalogctl does not know."""
    root = bare_site("jekyll-posts-category", tmp_path)
    proc = run_cli("init", cwd=root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["content"] == {"games": "_posts", "category": "game", "body_links": True}
    assert list(site["stores"]) == ["ios", "android", "itch", "steam"]
    assert "23 game pages in _posts (1 other page outside the category 'game')" in proc.stdout
    # Each thing said once: the missing platforms under what the pages lack, not again below.
    assert [line for line in proc.stdout.splitlines() if "platforms" in line] == [
        "  - platforms: all 23 pages; no key of theirs looked like it: add platforms to them, or "
        "map the key that holds it in [fields]"
    ]
    assert (
        "8 pages link no store catalogctl knows; their text links www.gamepix.com (7 pages)"
        in proc.stdout
    )
    assert 'hosts = ["www.gamepix.com"]' in proc.stdout
    assert "1 Markdown file without front matter was not taken for a page (privacy_policy.md)" in (
        proc.stdout
    )
    # The findings other than missing keys are shown, not only counted.
    others = proc.stdout.split("Validate also finds:\n", 1)[1].splitlines()
    assert [line.split(" · ")[0].split(": ")[1] for line in others] == [
        "warning spec-params",
        "error duplicate-id",
        "error duplicate-id",
    ]


def test_init_shows_the_first_other_findings_and_counts_the_rest(tmp_path: Path) -> None:
    root = bare_site("hugo-apps-section", tmp_path)
    apps = root / "content" / "apps"
    for page in list(apps.glob("*.md")):
        if page.name != "_index.md":
            for i in range(3):
                shutil.copy(page, apps / f"{page.stem}-{i}.md")
    proc = run_cli("init", cwd=root)
    others = proc.stdout.split("Validate also finds:\n", 1)[1].splitlines()
    assert len(others) == 9  # eight findings, and the line that counts the others
    assert others[-1] == "  … and 9 more: `catalogctl validate .` lists them"
    assert "wrong-type · category: must be a list" in others[1]


def test_init_takes_no_studio_or_jam_page_for_a_games_store_link(tmp_path: Path) -> None:
    """itch.io's jam and profile pages, a studio's own itch.io page and a developer page on
    Google Play are no game's link, for init as for validate (one table decides)."""
    root = zola_bundles_site(tmp_path / "site", links=False)
    for slug in ("kelp", "reef"):
        page = root / "content" / "games" / slug / "index.md"
        page.write_text(
            page.read_text("utf-8").replace(
                "Soon.",
                "Made for [a jam](https://itch.io/jam/tidepool-jam) by "
                "[us](https://tidepool.itch.io/); more on "
                "[Google Play](https://play.google.com/store/apps/dev?id=123).",
            ),
            encoding="utf-8",
        )
    code, report = init_json(root)
    summary = report["summary"]
    assert summary["games"] == "content/games"  # by its name and section
    assert summary["body_links"] is False and summary["stores"] == []
    assert not any("link a store" in r for r in summary["candidates"][0]["reasons"])
    assert any(n.startswith("no store link found in the pages") for n in summary["notes"])
    # The pages lack their links; site.toml's missing stores are the note's, said once.
    assert code == 1
    assert sorted(Path(f).parent.name for f in summary["lacking"]["stores"]) == ["kelp", "reef"]
    text = run_cli("init", "--force", cwd=root).stdout
    assert "none of them with a store link" in text
    assert "  - stores: both pages; add a link to the game's store page" in text
    assert "site.toml:1:1: error missing-field" not in text


@pytest.mark.parametrize("posts", ["_posts", "_posts/game", "game/_posts"])
@pytest.mark.parametrize(
    ("permalink", "url", "note"),
    [
        ("/:title/", "/{id}/", None),
        ("/games/:slug", "/games/{id}/", None),
        ("pretty", "/{id}/", "follow the permalink 'pretty' of _config.yml"),
        ("/:year/:month/:title/", "/{id}/", "follow the permalink '/:year/:month/:title/'"),
        (None, "/{id}/", "without a permalink in _config.yml, Jekyll gives the posts addresses"),
    ],
)
def test_init_says_when_game_url_cannot_follow_jekylls_posts(
    tmp_path: Path, permalink: str | None, url: str, note: str | None, posts: str
) -> None:
    """Posts, in `_posts` or a folder of it (`_posts/game`, `game/_posts`): game_url from
    the site's permalink where it holds only the name, else a note saying why it cannot."""
    from catalogctl.content.scaffold.generators import detect
    from catalogctl.content.scaffold.pageurl import page_url

    config = "title: X\n" + (f"permalink: {permalink}\n" if permalink else "")
    (tmp_path / "_config.yml").write_text(config, encoding="utf-8")
    found = page_url(detect(tmp_path), tmp_path, posts)
    assert found.path == url
    assert (found.note is None) if note is None else (note in (found.note or ""))


@pytest.mark.parametrize(
    "content_dir",
    ['"a\\u0000b"', '"{outside}"', '"../outside"', '"/"', '"' + "n" * 300 + '"'],
    ids=["nul", "absolute", "parent", "root", "too-long"],
)
def test_init_surveys_only_folders_inside_the_website(tmp_path: Path, content_dir: str) -> None:
    """A contentDir that is not a folder of the website (a NUL, an absolute path elsewhere,
    `..`, a name no file system takes) is not followed: the pages of Hugo's own content/
    are, and nothing outside the website is read or named."""
    outside = write(
        tmp_path / "outside",
        {
            "games/_index.md": "---\ntitle: Elsewhere\n---\n",
            "games/far.md": game_page("Far", "https://apps.apple.com/app/far/id9"),
        },
    )
    root = write(
        tmp_path / "site",
        {
            "hugo.toml": 'baseURL = "https://studio.example/"\n'
            f"contentDir = {content_dir.replace('{outside}', outside.as_posix())}\n",
            "content/games/_index.md": "---\ntitle: Games\n---\n",
            "content/games/kelp.md": game_page("Kelp", "https://apps.apple.com/app/kelp/id1"),
            "content/games/reef.md": game_page("Reef", "https://apps.apple.com/app/reef/id2"),
        },
    )
    proc = run_cli("init", "--format", "json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["summary"]["games"] == "content/games"
    said = proc.stdout + proc.stderr
    assert outside.as_posix() not in said and "../outside" not in said and "Far" not in said


def game_page(name: str, store: str) -> str:
    return (
        f"---\ntitle: {name}\ndescription: The {name} game.\nimage: /img/{name}.png\n"
        f"platforms: [iOS]\ngenres: [Puzzle]\nios: {store}\n---\n"
    )


HOSTILE_INIT = {
    "icon-comment": ('cover_photo: "\\n[api.v1]\\nstatus = \\"deprecated\\"#/img/a.png"\n', None),
    "platforms-comment": (
        'devices: [iOS, "Android\\n[api.v1]\\nstatus = \\"deprecated\\"#"]\n',
        None,
    ),
    "folder-comment": ("", 'games\n[api.v1]\nstatus = "deprecated"#'),
    "del-in-key": ('"play\\x7fstore": https://play.google.com/store/apps/details?id=x.y\n', None),
    "dotted-key": ('"app.store": https://apps.apple.com/app/x/id7\n', None),
}


@pytest.mark.parametrize("case", list(HOSTILE_INIT))
def test_init_writes_what_it_says_whatever_the_pages_hold(tmp_path: Path, case: str) -> None:
    """A value a comment quotes, a folder's name, a key with DEL or a dot: site.toml is valid
    TOML holding only what init proposes (no table a page's value slipped in), and a key a
    [fields] path would read as another (`app.store`) is not proposed."""
    extra, folder = HOSTILE_INIT[case]
    games = folder or "games"
    files = {"hugo.toml": 'baseURL = "https://studio.example/"\ntitle = "Studio"\n'}
    for i in (1, 2, 3):
        page = game_page(f"G{i}", f"https://apps.apple.com/app/g{i}/id{i}")
        files[f"content/{games}/g{i}.md"] = page.replace("---\n", "---\n" + extra, 1)
    root = write(tmp_path / "site", files)
    proc = run_cli("init", cwd=root)
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1), proc.stderr
    written = tomllib.loads((root / "site.toml").read_text(encoding="utf-8"))
    assert "api" not in written
    assert "app.store" not in json.dumps(written)
    check = run_cli("validate", cwd=root)
    assert "Traceback" not in check.stderr and check.returncode in (0, 1)


ASTRO_PAGE = (
    "---\ntitle: A\ndescription: A game.\nplatforms: [iOS]\ngenres: [Puzzle]\nicon: /a.png\n"
    "appstore: https://apps.apple.com/app/a/id1\n---\n"
)
HOSTILE_CONFIGS: dict[str, dict[str, str]] = {
    # An Astro route folder nested past any walk's depth (a recursive walk overflowed).
    "deep-routes": {
        "astro.config.mjs": 'export default { site: "https://studio.example" };\n',
        "src/content/games/a.md": ASTRO_PAGE,
        "src/pages/" + "a/" * 300 + "[slug].astro": 'getCollection("games")\n',
    },
    # A long word in a configuration the schema and collection patterns read (was quadratic).
    "long-word": {
        "astro.config.mjs": 'export default { site: "https://studio.example" };\n',
        "src/content/config.ts": 'const x = "' + "A" * 200_000 + '";\n',
        "src/content/games/a.md": ASTRO_PAGE,
    },
    "many-site-urls": {
        "package.json": '{"dependencies": {"next": "14"}}',
        "next-sitemap.config.js": "siteUrl: " * 25_000 + "\n",
        "content/games/a.md": ASTRO_PAGE,
    },
    # A language no file name can hold, and one that is no language.
    "long-language": {
        "config/_default/hugo.toml": 'baseURL = "https://studio.example/"\n'
        f'defaultContentLanguage = "{"x" * 300}"\n',
        "content/games/a.md": ASTRO_PAGE,
    },
    "language-path": {
        "hugo.toml": 'baseURL = "https://studio.example/"\n'
        'defaultContentLanguage = "../../etc/x"\n',
        "content/games/a.md": ASTRO_PAGE,
    },
    # Addresses validate would refuse: init says so instead of writing them.
    "http-homepage": {
        "package.json": '{"homepage": "http://studio.example", "dependencies": {"next": "14"}}',
        "content/games/a.md": ASTRO_PAGE,
    },
    "template-site-url": {
        "package.json": '{"dependencies": {"next": "14"}}',
        "next-sitemap.config.js": "module.exports = { siteUrl: `https://${process.env.HOST}` }\n",
        "content/games/a.md": ASTRO_PAGE,
    },
    "long-cname": {
        "package.json": '{"dependencies": {"next": "14"}}',
        "CNAME": ("a" * 60 + ".") * 5 + "example\n",
        "content/games/a.md": ASTRO_PAGE,
    },
    # Keys that are not text in a generator's YAML (a traceback at `k.lower()`), its
    # language's table too, and in the pages.
    "odd-yaml-keys": {
        "hugo.yaml": "baseURL: https://studio.example\n1: x\n~: y\ntitle: T\n"
        "languages:\n  en:\n    2024-01-01: x\n    title: Y\n",
        "content/games/a.md": ASTRO_PAGE.replace("---\n", "---\n1: x\n~: y\n1.5: z\n", 1),
        "content/games/b.md": ASTRO_PAGE.replace("title: A", "title: B"),
    },
    # Explicit tags whose constructors refuse their values (IndexError, KeyError in
    # PyYAML's safe_load): the configuration is unreadable, as a page's front matter is.
    "yaml-tags": {
        "_config.yml": 'title: !!float ""\nurl: https://studio.example\nweight: !!int "-"\n'
        "on: !!bool maybe\nwhen: !!timestamp garbage\ncollections:\n  games: {}\n",
        "_games/a.md": ASTRO_PAGE,
        "_games/b.md": ASTRO_PAGE.replace("title: A", "title: B"),
    },
    # A collections block opened ten thousand times, never closed (each scanned as far as
    # its bound: seconds, once).
    "astro-open-collections": {
        "package.json": '{"dependencies": {"astro": "4"}}',
        "src/content/config.ts": "export const collections = {" * 9800,
        "src/content/games/a.md": ASTRO_PAGE,
    },
}


@needs_rlimits
@pytest.mark.parametrize("case", list(HOSTILE_CONFIGS))
def test_init_on_hostile_configurations_writes_a_site_toml_validate_accepts(
    tmp_path: Path, case: str
) -> None:
    """Quickly (each is bounded), without a traceback, and with a site.toml in which validate
    finds nothing wrong of init's making."""
    root = write(tmp_path / "site", HOSTILE_CONFIGS[case])
    done = measure(cli("init", root, "--format", "json"))
    assert done.proc.returncode in (0, 1), done.proc.stderr
    assert done.seconds < 20, done.seconds
    check = run_cli("validate", "--format", "json", cwd=root)
    assert "Traceback" not in check.stderr
    site_errors = [
        f
        for f in json.loads(check.stdout)["findings"]
        if f["severity"] == "error" and f["file"].endswith("site.toml")
    ]
    assert site_errors == []


def test_init_refuses_a_games_folder_whose_name_is_not_utf8(tmp_path: Path) -> None:
    root = tmp_path / "site"
    write(root, {"hugo.toml": 'baseURL = "https://studio.example/"\n'})
    games = os.fsencode(root / "content") + b"/g\xe9mes"  # a name no UTF-8 decoding gives
    (root / "content" / os.fsdecode(b"g\xe9mes")).mkdir(parents=True)
    for i in (1, 2):
        page = game_page(f"G{i}", f"https://apps.apple.com/app/g{i}/id{i}")
        fd = os.open(games + f"/g{i}.md".encode(), os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, page.encode())
        os.close(fd)
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 2, proc.stderr
    assert "not UTF-8" in proc.stderr and "Traceback" not in proc.stderr
    assert not (root / "site.toml").exists()


def test_init_weighs_each_folder_on_its_own_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each game in a folder of its own, folders below it: the pages weighed, summed over
    every folder, are the pages times the folders above each (linear), not every page for
    every folder (600 games: 360,000)."""
    from catalogctl.content.scaffold import choose as chooser
    from catalogctl.content.scaffold.generators import detect

    page = "---\ntitle: Game {0}\nios: https://apps.apple.com/app/x/id{0}\n---\n"
    files = {"hugo.toml": 'baseURL = "https://ex.example/"\n'}
    for i in range(600):
        files[f"content/games/g{i}/d/game.md"] = page.format(1000 + i)
    root = write(tmp_path, files)
    weighed: list[int] = []  # pages weighed, and pages tested for being inside a folder
    weigh, inside = chooser._weigh, chooser._inside

    def counted_weigh(folder: str, pages: list[Any], *rest: Any) -> Any:
        weighed.append(len(pages))
        return weigh(folder, pages, *rest)

    def counted_inside(page_folder: str, folder: str) -> bool:
        weighed.append(1)
        return inside(page_folder, folder)

    monkeypatch.setattr(chooser, "_weigh", counted_weigh)
    monkeypatch.setattr(chooser, "_inside", counted_inside)
    choice = chooser.choose(root, detect(root))
    assert choice.folder == "content/games"
    assert sum(weighed) <= 2 * 600 * 5  # each page in ., content, content/games, g<i>, g<i>/d


def test_init_names_the_bound_it_stopped_at(tmp_path: Path) -> None:
    deep = "content/" + "/".join(f"d{i}" for i in range(12))
    root = write(
        tmp_path,
        {
            "hugo.toml": 'baseURL = "https://ex.example/"\n',
            f"{deep}/g.md": "---\ntitle: G\nios: https://apps.apple.com/app/x/id1\n---\n",
        },
    )
    proc = run_cli("init", cwd=root)
    assert proc.returncode == 2
    assert "the walk stopped at a bound: content/d0/d1/d2/d3/d4/d5/d6/d7: deeper than" in (
        proc.stderr
    )


def test_init_reads_a_store_key_left_empty_where_a_game_is_not_in_the_store(
    tmp_path: Path,
) -> None:
    """`steam_page` links Steam in 3 games and is left empty in the others (`steam_page:`):
    it is Steam's key (store `steam`, not `steam_page`), and the one game whose only store is
    an itch.io embed in its text is read from its body."""
    root = bare_site("jekyll-collection-empty-store-keys", tmp_path)
    _, report = init_json(root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["fields"]["stores"] == {"steam": "steam_page"}
    assert site["content"]["body_links"] is True
    assert list(site["stores"]) == ["steam", "itch"]
    assert "steam_page links a store" not in " ".join(report["summary"]["notes"])


def test_init_takes_the_cname_domain_over_an_http_address(tmp_path: Path) -> None:
    """_config.yml's `url: http://tangramgames.dk` cannot be a base URL; the CNAME file's
    domain, with https, is. Without the CNAME file the same host with https is the guess,
    named under Check. The pages are a folder of the site, not a collection: Jekyll publishes
    each at its path."""
    root = bare_site("jekyll-pages-folder-cname", tmp_path)
    _, report = init_json(root)
    text = (root / "site.toml").read_text("utf-8")
    assert 'base_url = "https://tangramgames.dk"  # from the CNAME file' in text
    assert (
        'game_url = "{base_url}/games/{id}/"  # guess: Jekyll\'s URL of a page games/<id>/index.md'
        in text
    )
    notes = " ".join(report["summary"]["notes"])
    # Jam entries and a licence are no store of the games.
    assert "ludumdare.com" not in notes and "creativecommons.org" not in notes
    (root / "CNAME").unlink()
    (root / "site.toml").unlink()
    _, report = init_json(root)
    text = (root / "site.toml").read_text("utf-8")
    assert 'base_url = "https://tangramgames.dk"  # from _config.yml, with https' in text
    assert (
        "base_url is https://tangramgames.dk: _config.yml gives http://tangramgames.dk"
        in " ".join(report["summary"]["notes"])
    )


@pytest.mark.parametrize("folder", ["juegos", "jeux", "spiele", "our-games"])
def test_init_knows_a_games_folder_in_another_language(tmp_path: Path, folder: str) -> None:
    page = "---\ntitle: {0}\ndescription: A game.\n---\nA game about {0}.\n"
    post = "---\ntitle: {0}\ndate: 2024-01-01\n---\nNews.\n"
    files = {"hugo.toml": 'baseURL = "https://studio.example/"\ntitle = "Ex"\n'}
    for name in ("a", "b"):
        files[f"content/{folder}/{name}.md"] = page.format(name)
        files[f"content/notes/{name}.md"] = post.format(name)
    root = write(tmp_path, files)
    init_json(root)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["content"]["games"] == f"content/{folder}"


def test_init_names_html_game_pages_and_a_games_data_file(tmp_path: Path) -> None:
    """A Jekyll site whose games are listed in _data/games.yml and shown by HTML pages with
    front matter (`games/gravv/index.html`): init says both, catalogctl reads neither."""
    root = write(
        tmp_path,
        {
            "_config.yml": "title: Corundum\n",
            "_data/games.yml": "- name: Gravv\n",
            "_posts/core-samples/2011-12-29-intro.md": "---\ntitle: Intro\n---\nHello.\n",
            "games/index.html": "---\nlayout: page\ntitle: Games\n---\n",
            "games/gravv/index.html": "---\nlayout: page\ntitle: Gravv\n---\n",
        },
    )
    proc = run_cli("init", root)
    assert proc.returncode == 2
    message = proc.stderr
    assert "games/gravv/index.html is an HTML page with front matter" in message
    assert "games/index.html" not in message
    assert "_data/games.yml" in message


@needs_fifos
def test_init_never_waits_on_a_fifo_named_as_an_html_page(tmp_path: Path) -> None:
    """A FIFO (or a device) named like an HTML page in a games folder is not opened to see
    whether it has front matter: init answers at once, naming the real HTML page."""
    root = write(
        tmp_path,
        {"_config.yml": "title: S\n", "games/real.html": "---\nlayout: game\n---\n"},
    )
    os.mkfifo(root / "games" / "zz.html")
    (root / "games" / "sub").mkdir()
    os.mkfifo(root / "games" / "sub" / "index.html")
    proc = run_cli("init", root, timeout=30)
    assert proc.returncode == 2, proc.stderr
    assert "games/real.html is an HTML page with front matter" in proc.stderr
    assert "zz.html" not in proc.stderr and "sub/index.html" not in proc.stderr


@pytest.mark.parametrize(
    ("layout", "config", "url"),
    [
        ("{id}.md", "", "{base_url}/games/{id}.html"),
        ("{id}.md", "permalink: pretty\n", "{base_url}/games/{id}/"),
        ("{id}/index.md", "", "{base_url}/games/{id}/"),
    ],
)
def test_init_gives_jekyll_pages_in_a_folder_the_address_jekyll_gives_them(
    tmp_path: Path, layout: str, config: str, url: str
) -> None:
    """Jekyll publishes a page games/alpha.md at /games/alpha.html (at /games/alpha/ with
    `permalink: pretty`), and games/alpha/index.md at /games/alpha/."""
    page = (
        "---\ntitle: {id}\ndescription: d\nplatforms: [iOS]\ngenres: [Puzzle]\nicon: /i.png\n"
        "appstore: https://apps.apple.com/app/{id}/id12345\n---\n"
    )
    files = {"_config.yml": 'url: "https://x.example"\n' + config}
    for slug in ("alpha", "beta", "gamma"):
        files["games/" + layout.format(id=slug)] = page.replace("{id}", slug)
    root = write(tmp_path, files)
    assert run_cli("init", cwd=root).returncode in (0, 1)
    site = tomllib.loads((root / "site.toml").read_text("utf-8"))
    assert site["game_url"] == url
