"""`catalogctl init`: write a site.toml for a website, guessed from its own files."""

from pathlib import Path
from typing import Annotated

import typer

from catalogctl.cli.common import BasicFormatOpt
from catalogctl.errors import ExitCode
from catalogctl.output.console import BasicFormat, use_format


def init(
    directory: Annotated[
        Path | None,
        typer.Argument(
            metavar="DIR", help="The website's root folder. Default: here.", show_default=False
        ),
    ] = None,
    games: Annotated[
        str | None,
        typer.Option(
            "--games",
            metavar="FOLDER",
            help="The folder of game pages, relative to DIR (default: the folder whose pages, "
            "name and configuration say games).",
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a site.toml that is there already.")
    ] = False,
    fmt: BasicFormatOpt = BasicFormat.table,
) -> None:
    """Write a site.toml for a website: its generator, games folder, keys and stores guessed.

    Recognises Hugo, Zola, Jekyll, Eleventy, Astro and Next.js sites, finds the folder of game
    pages (store links in front matter or page text, its name, the generator's collections
    and sections, a game category), maps the catalog's keys to the keys the pages use (by name,
    then by what their values look like) and the stores to where they keep their links, each
    guess with a comment. Then it validates the site and says what the pages still lack.
    Exit 0 when the site validates, 1 when the pages lack something, 2 when nothing is
    written (a site.toml is there already: --force replaces it).

    Examples

      catalogctl init                      # the website in this folder
      catalogctl init ~/sites/studio
      catalogctl init --games content/apps
      catalogctl init --force              # replace the site.toml
    """
    from catalogctl.content.scaffold.run import init_site
    from catalogctl.output.init import report_init

    use_format("init", fmt)
    root = directory if directory is not None else Path()
    if not force:
        _refuse_a_second_site(root)
    result = init_site(root, games=games, force=force, display=str(directory or "."))
    ok = report_init(result, fmt)
    raise typer.Exit(int(ExitCode.OK if ok else ExitCode.FINDINGS))


def _refuse_a_second_site(root: Path) -> None:
    """A site.toml of `root`'s site elsewhere (in `content/`, or in a folder above) is left in
    charge: a new one here would take its place for every command run here."""
    from catalogctl.errors import InputError
    from catalogctl.paths import is_file
    from catalogctl.sources.locate import SITE_FILE, site_above
    from catalogctl.text import path_text

    inner = root / "content" / SITE_FILE
    above = site_above(root)
    existing = inner if is_file(inner) else (above / SITE_FILE if above is not None else None)
    if existing is not None:
        raise InputError(
            f"this website has a site.toml already: {path_text(existing)}; a new one in "
            f"{path_text(root)} would take "
            "its place for every command run here (`catalogctl validate` checks the one there; "
            "--force writes one here anyway)"
        )
