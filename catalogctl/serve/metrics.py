"""Counters every worker shares, and `--metrics HOST:PORT`: Prometheus text on its own listener.

The counters live in one anonymous shared memory map, made before the workers are forked:
each worker owns a slot and copies its totals into it once a second (and when it stops);
when a worker is gone its slot is folded into the retired totals, so counters never go back.
The supervisor keeps the catalog's figures (reloads, ETag, game count) in the same map. The
endpoint reads the map; it is served by aiohttp on a listener of its own, never on the
public port.
"""

from __future__ import annotations

import mmap
import socket

STATUSES = (200, 304, 400, 403, 404, 412, 413, 414, 417, 431, 500, 501, 505)
_OTHER = len(STATUSES)
# slot layout (unsigned 64-bit fields)
_USED, _PID = 0, 1
_STATUS0 = 2
_BYTES = _STATUS0 + len(STATUSES) + 1
_OPEN = _BYTES + 1
_DROPPED = _OPEN + 1
_ACCEPTING = _DROPPED + 1  # 1 while the worker accepts connections
_ACCEPTED = _ACCEPTING + 1  # connections it has accepted (the others see it take them)
_FIELDS = _ACCEPTED + 1
_TOTALLED = [f for f in range(_STATUS0, _DROPPED + 1) if f != _OPEN]  # kept when it retires
# global area, after the slots
_RELOADS, _FAILED, _GAMES, _STARTS, _CRASHES = range(5)
_ETAG_BYTES = 64


class Counters:
    """A shared map of per-worker slots, retired totals and the catalog's figures."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._globals = (slots + 1) * _FIELDS  # slot `slots` holds the retired totals
        size = (self._globals + 8) * 8 + _ETAG_BYTES
        # Anonymous memory; on POSIX the default flags are MAP_SHARED, so the workers forked
        # after this share it. (Windows serves in one process: nothing to share there, and
        # its mmap takes no flags.)
        self._map = mmap.mmap(-1, size)
        self._q = memoryview(self._map).cast("Q")
        self.slot = -1  # in a worker: its own

    # --- supervisor side ---------------------------------------------------------------------

    def claim(self, pid: int = 0) -> int:
        """A free slot for a new worker (or -1 when all are taken: it then goes uncounted)."""
        q = self._q
        for slot in range(self.slots):
            base = slot * _FIELDS
            if not q[base + _USED]:
                q[base : base + _FIELDS] = memoryview(bytes(_FIELDS * 8)).cast("Q")
                q[base + _USED] = 1
                q[base + _PID] = pid
                return slot
        return -1

    def set_pid(self, slot: int, pid: int) -> None:
        if slot >= 0:
            self._q[slot * _FIELDS + _PID] = pid

    def retire(self, slot: int) -> None:
        """Fold a finished worker's counts into the totals and free its slot."""
        if slot < 0:
            return
        q, base, total = self._q, slot * _FIELDS, self.slots * _FIELDS
        for field in _TOTALLED:
            q[total + field] += q[base + field]
        q[base : base + _FIELDS] = memoryview(bytes(_FIELDS * 8)).cast("Q")

    def catalog(self, etag: str, games: int) -> None:
        q = self._q
        q[self._globals + _GAMES] = games
        raw = etag.encode("ascii", "replace")[:_ETAG_BYTES].ljust(_ETAG_BYTES, b"\0")
        start = (self._globals + 8) * 8
        self._map[start : start + _ETAG_BYTES] = raw

    def add(self, which: str) -> None:
        index = {"reloads": _RELOADS, "failed": _FAILED, "starts": _STARTS, "crashes": _CRASHES}
        self._q[self._globals + index[which]] += 1

    # --- worker side -------------------------------------------------------------------------

    def publish(
        self, statuses: dict[int, int], bytes_sent: int, open_connections: int, dropped: int
    ) -> None:
        """A worker's totals so far, copied into its slot."""
        if self.slot < 0:
            return
        q, base = self._q, self.slot * _FIELDS
        other = 0
        for status, count in statuses.items():
            if status in STATUSES:
                q[base + _STATUS0 + STATUSES.index(status)] = count
            else:
                other += count
        q[base + _STATUS0 + _OTHER] = other
        q[base + _BYTES] = bytes_sent
        q[base + _OPEN] = open_connections
        q[base + _DROPPED] = dropped

    # --- how workers share connections (catalogctl.serve.acceptor) -----------------------------

    def accepting(self, accepting: bool) -> None:
        """Say whether this worker accepts connections now."""
        if self.slot >= 0:
            self._q[self.slot * _FIELDS + _ACCEPTING] = int(accepting)

    def holding(self, held: int) -> None:
        """This worker holds `held` connections now."""
        if self.slot >= 0:
            self._q[self.slot * _FIELDS + _OPEN] = held

    def accepted(self, held: int) -> None:
        """This worker accepted a connection and now holds `held`."""
        if self.slot >= 0:
            q, base = self._q, self.slot * _FIELDS
            q[base + _OPEN] = held
            q[base + _ACCEPTED] += 1

    def others_held(self) -> list[int]:
        """How many connections each other worker that accepts holds."""
        q, mine = self._q, self.slot
        return [
            int(q[slot * _FIELDS + _OPEN])
            for slot in range(self.slots)
            if slot != mine and q[slot * _FIELDS + _USED] and q[slot * _FIELDS + _ACCEPTING]
        ]

    def others_accepted(self) -> int:
        """How many connections the other workers have accepted, all told."""
        q, mine = self._q, self.slot
        return sum(
            int(q[slot * _FIELDS + _ACCEPTED])
            for slot in range(self.slots)
            if slot != mine and q[slot * _FIELDS + _USED]
        )

    # --- the exposition ----------------------------------------------------------------------

    def _live_slots(self) -> list[int]:
        q = self._q
        return [s for s in range(self.slots) if q[s * _FIELDS + _USED]]

    def render(self) -> str:
        """Prometheus text exposition format 0.0.4."""
        q, total = self._q, self.slots * _FIELDS
        live = self._live_slots()

        def summed(field: int) -> int:
            return int(q[total + field]) + sum(int(q[s * _FIELDS + field]) for s in live)

        start = (self._globals + 8) * 8
        etag = bytes(self._map[start : start + _ETAG_BYTES]).rstrip(b"\0").decode("ascii")
        etag = etag.replace("\\", "\\\\").replace('"', '\\"')
        g = self._globals
        out = [
            "# HELP catalogctl_requests_total Responses sent, by status code.",
            "# TYPE catalogctl_requests_total counter",
        ]
        for i, status in enumerate(STATUSES):
            out.append(f'catalogctl_requests_total{{code="{status}"}} {summed(_STATUS0 + i)}')
        out.append(f'catalogctl_requests_total{{code="other"}} {summed(_STATUS0 + _OTHER)}')
        out += [
            "# HELP catalogctl_response_body_bytes_total Response body bytes sent.",
            "# TYPE catalogctl_response_body_bytes_total counter",
            f"catalogctl_response_body_bytes_total {summed(_BYTES)}",
            "# HELP catalogctl_connections_open Client connections open now.",
            "# TYPE catalogctl_connections_open gauge",
            f"catalogctl_connections_open {sum(int(q[s * _FIELDS + _OPEN]) for s in live)}",
            "# HELP catalogctl_access_log_dropped_total Access log lines dropped (slow reader).",
            "# TYPE catalogctl_access_log_dropped_total counter",
            f"catalogctl_access_log_dropped_total {summed(_DROPPED)}",
            "# HELP catalogctl_workers Worker processes running now.",
            "# TYPE catalogctl_workers gauge",
            f"catalogctl_workers {len(live)}",
            "# HELP catalogctl_worker_restarts_total Workers that exited unexpectedly.",
            "# TYPE catalogctl_worker_restarts_total counter",
            f"catalogctl_worker_restarts_total {q[g + _CRASHES]}",
            "# HELP catalogctl_reloads_total Catalog reloads that took effect.",
            "# TYPE catalogctl_reloads_total counter",
            f"catalogctl_reloads_total {q[g + _RELOADS]}",
            "# HELP catalogctl_reloads_failed_total Reloads that kept the previous catalog.",
            "# TYPE catalogctl_reloads_failed_total counter",
            f"catalogctl_reloads_failed_total {q[g + _FAILED]}",
            "# HELP catalogctl_catalog_games Games in the catalog being served.",
            "# TYPE catalogctl_catalog_games gauge",
            f"catalogctl_catalog_games {q[g + _GAMES]}",
            "# HELP catalogctl_catalog_info The catalog being served (ETag of /api/v1/games).",
            "# TYPE catalogctl_catalog_info gauge",
            f'catalogctl_catalog_info{{etag="{etag}"}} 1',
        ]
        return "\n".join(out) + "\n"


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


async def start_endpoint(sock: socket.socket, counters: Counters) -> object:
    """Serve `GET /metrics` (and `/`) on `sock` with aiohttp; returns the runner to clean up."""
    from aiohttp import web

    async def metrics(request: web.Request) -> web.Response:
        return web.Response(
            body=counters.render().encode("utf-8"),
            headers={"Content-Type": CONTENT_TYPE, "Cache-Control": "no-store"},
        )

    app = web.Application()
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/", metrics)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    return runner
