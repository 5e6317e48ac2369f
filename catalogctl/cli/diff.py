"""`catalogctl diff`: what a release changes between two catalog sources, and what breaks."""

from typing import Annotated

import typer

from catalogctl.cli.common import (
    NETWORK_PANEL,
    AllowPrivateOpt,
    FormatOpt,
    OutputOpt,
    check_seconds,
    parse_size,
    source_reads,
)
from catalogctl.diff.core import FailOn
from catalogctl.errors import ExitCode
from catalogctl.output.console import Format, keep_from_output, status, use_format
from catalogctl.sources.core import DEFAULT_MAX_BODY

SOURCE_HELP = (
    "Content tree, build directory, games JSON file, or http(s) base URL of a deployment "
    "(reads {base}/api/v1/games and {base}/openapi.json)."
)


def diff(
    old: Annotated[str, typer.Argument(help="The catalog as it is. " + SOURCE_HELP)],
    new: Annotated[str, typer.Argument(help="The catalog to release. " + SOURCE_HELP)],
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    fail_on: Annotated[
        FailOn,
        typer.Option(
            "--fail-on",
            help="Exit 1 on: any difference, warnings (and breaking changes), or breaking "
            "contract changes only.",
        ),
    ] = FailOn.any,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            min=0.001,
            callback=check_seconds,
            help="Seconds reading a URL source may take in all (every request and body).",
            rich_help_panel=NETWORK_PANEL,
        ),
    ] = 30.0,
    max_body: Annotated[
        int,
        typer.Option(
            "--max-body",
            parser=parse_size,
            metavar="SIZE",
            show_default="64MiB",
            help="Largest document read from a URL source, on the wire and inflated (e.g. 256MiB).",
            rich_help_panel=NETWORK_PANEL,
        ),
    ] = DEFAULT_MAX_BODY,
    allow_private: AllowPrivateOpt = False,
) -> None:
    """Show what a release changes, and whether it breaks clients.

    Games added, removed, changed (field by field) and reordered, by id; warnings for a
    probable id rename, changed store attribution and a platform that lost its store link;
    and, when both sides carry an OpenAPI document (build directories, URLs), the contract
    check: removed fields, changed types or new required parameters need /api/v2. A URL
    source is never read from a link-local, multicast or unspecified address.

    Exit 0 when there is no difference, 1 when there are (see --fail-on), 2 when a source
    cannot be read or is not a valid catalog.

    Examples

      catalogctl diff https://games.example.com content     # what ships?
      catalogctl diff dist-old dist --fail-on breaking          # CI gate
      catalogctl diff old-games.json dist --format markdown > release-notes.md
      catalogctl diff dist http://127.0.0.1:8000 -f json | jq '.changes[].id'
      catalogctl diff dist-old dist --fail-on breaking --format github
    """
    import gc

    from catalogctl.diff.core import compare
    from catalogctl.output.diff import diff_report
    from catalogctl.output.reports import write
    from catalogctl.sources.core import is_url, load_source

    use_format("diff", fmt, output)
    # Both catalogs live until exit and hold no cycles: keep the collector from walking
    # their millions of objects again and again (a large diff would take twice as long).
    gc.disable()
    policy = None
    if is_url(old) or is_url(new):
        from catalogctl.sources.net import NetworkPolicy

        policy = NetworkPolicy(allow_private=allow_private)
    from catalogctl.sources.locate import Located, locate

    sides: list[str | Located] = [
        spec if is_url(spec) else locate(spec, command="diff") for spec in (old, new)
    ]
    keep_from_output([r for s in sides if isinstance(s, Located) for r in source_reads(s)])
    before = load_source(sides[0], timeout=timeout, max_body=max_body, policy=policy)
    after = load_source(sides[1], timeout=timeout, max_body=max_body, policy=policy)
    for side in (before, after):
        if side.note:  # a folder inside a site was named: say which site was read
            status("·", "", side.note)
    result = compare(before, after)
    gc.freeze()
    gc.enable()
    report = diff_report(result, fail_on=fail_on)
    write(report, fmt)
    raise typer.Exit(int(ExitCode.OK if report.ok else ExitCode.FINDINGS))
