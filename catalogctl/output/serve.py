"""serve's start-up lines on stderr: where it listens, as text for people or a JSON event.

The server's own log lines (reloads, errors) are written by its logging set-up
(`catalogctl.serve.server.configure_logging`); the access log by `catalogctl.serve.accesslog`.
May import: the cores and below.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from catalogctl.output.console import err
from catalogctl.text import clean, path_text, plural

if TYPE_CHECKING:
    from catalogctl.serve.options import Ready


def open_files_hint(limit: int | None) -> str | None:
    """What to change when the open-file limit caps each worker at few connections."""
    from catalogctl.serve.acceptor import LOW_OPEN_FILES

    if limit is None or limit >= LOW_OPEN_FILES:
        return None
    return (
        f"open files: at most {limit:,} per worker (its hard limit), so about as many "
        "connections; raise the hard limit: LimitNOFILE= in the systemd unit, "
        "`docker run --ulimit nofile=N:N`, or `ulimit -Hn N` in the shell that starts serve "
        "(see docs/deploy/serve.md)"
    )


def write_ready(ready: Ready, *, log_format: str, is_build: bool) -> None:
    """The line saying serve listens (with JSON logs: a `listening` event), and hints."""
    hint = open_files_hint(ready.open_files)
    if log_format == "json":
        import json

        event = {
            "event": "listening",
            "url": ready.url,
            "games": ready.games,
            "etag": ready.etag,
            "workers": ready.workers,
            "pid": ready.pid,
            "metrics": ready.metrics_url,
            "open_files": ready.open_files,
        }
        if hint is not None:
            event["warning"] = hint
        sys.stderr.write(json.dumps(event) + "\n")
        sys.stderr.flush()
        return
    from rich.text import Text

    workers = f", {plural(ready.workers, 'worker')}" if ready.workers > 1 else ""
    # Paths and URLs are text, never rich markup.
    err().print(
        Text.assemble(
            ("✓", "green"),
            f" serving {plural(ready.games, 'game')} from {clean(path_text(ready.source))} at ",
            (ready.url, "bold"),
            f" ({ready.url}/api/v1/games{workers}); Ctrl+C stops",
        ),
        soft_wrap=True,
    )
    if ready.metrics_url:
        err().print(Text(f"  metrics at {ready.metrics_url}"), soft_wrap=True)
    if ready.base_url != ready.url and ready.url.startswith("http"):
        # A build keeps the base URL it was rendered for: serve cannot change it.
        fix = f"catalogctl build --base-url {ready.url}" if is_build else f"--base-url {ready.url}"
        err().print(
            Text(
                f"  links in the documents point to {clean(ready.base_url)}; {fix} makes them local"
            ),
            soft_wrap=True,
        )
    if hint is not None:
        err().print(Text(f"  {hint}", style="yellow"), soft_wrap=True)
