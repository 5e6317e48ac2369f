"""What a worker's engine shares with the worker, whichever engine it is."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from catalogctl.serve.accesslog import AccessLog
    from catalogctl.serve.responses import Table


class Traffic:
    """The table being served (swapped on reload), the access log, and the counts the
    metrics report (responses by status, body bytes)."""

    def __init__(self, table: Table, access_log: AccessLog | None) -> None:
        self.table = table
        self.access_log = access_log
        self.stopping = False
        self.statuses: dict[int, int] = {}
        self.bytes_sent = 0

    def serve(self, table: Table) -> None:
        """Serve `table` from the next request on (a reload)."""
        self.table = table

    def count(self, status: int, body_bytes: int) -> None:
        statuses = self.statuses
        statuses[status] = statuses.get(status, 0) + 1
        self.bytes_sent += body_bytes
