"""Reloading a catalog for `serve` in a fresh interpreter.

A running server handles signals (SIGTERM, SIGHUP, ...) through handlers and a wake-up fd,
and its supervisor may hold signals. Loading a big content tree forks worker pools, and a
forked child would inherit all of that: its pool's SIGTERM could reach the server as its own,
or be held forever. A reload therefore loads and renders in a spawned process (a clean
exec, default signal handling) and sends the finished `Site` back.

This module stays light (no aiohttp) because the spawned process imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from catalogctl.errors import CatalogError

if TYPE_CHECKING:
    from catalogctl.render import Site
    from catalogctl.server import Source


def describe(exc: CatalogError) -> str:
    """The message of an error, with its error findings (for a log line)."""
    findings = getattr(exc, "findings", None)
    if not findings:
        return exc.message
    parts = [
        f"{f.file}{f':{f.line}' if f.line else ''}: {f.field + ': ' if f.field else ''}{f.message}"
        for f in findings
        if f.severity == "error"
    ]
    return exc.message + "; " + "; ".join(parts[:20]) + ("; …" if len(parts) > 20 else "")


def _load(source: Source) -> tuple[Site | None, str | None]:
    # Exceptions with extra constructor arguments do not survive pickling: send text back.
    try:
        return source.load(), None
    except CatalogError as exc:
        return None, describe(exc)


def load_isolated(source: Source) -> Site:
    """`source.load()` in a spawned interpreter; raises `CatalogError` with the findings."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        site, failure = pool.submit(_load, source).result()
    if failure is not None or site is None:
        raise CatalogError(failure or "the catalog could not be loaded")
    return site
