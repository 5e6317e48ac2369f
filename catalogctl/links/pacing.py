"""Per-host pacing: how many requests a host gets at once, how far apart they start, and the
pauses it asks for.

Every request waits here for its host's turn. A host starts with `--host-concurrency` requests
in flight and no gap between them. A 429 answer slows that host alone, once per round of
requests (the requests already under way when it came back do not slow it again):

- half as many requests in flight (at least one);
- a gap between two request starts: 50 ms at first, then twice as long each time (bounded by
  `--max-retry-wait`);
- a pause in which no request starts: the host's Retry-After, else a backoff of 0.5 s that
  doubles with each 429 in a row (also bounded by `--max-retry-wait`).

Each other answer wins pace back: one more request in flight after as many answers as the
limit, and a rate one request a second faster each second (the gap shrinks by at most a tenth
per answer). Waiting requests are served oldest link first, so a link a 429 sent back is next in
line. Other hosts never wait for this one.
"""

from __future__ import annotations

import asyncio
import email.utils
import heapq
import itertools
import time

FIRST_GAP = 0.05  # seconds between request starts after a host's first 429
FIRST_BACKOFF = 0.5  # the pause after a 429 without Retry-After
_TOLERANCE = 0.001  # timers may fire this early (uvloop counts milliseconds)
_order = itertools.count()


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class HostPace:
    """The pace of one host: its turns, its limit, its gap and its pause."""

    def __init__(self, ceiling: int, max_pause: float) -> None:
        self.ceiling = ceiling  # --host-concurrency
        self.max_pause = max_pause  # bound on the gap and on a backoff pause
        self.limit = ceiling  # requests in flight allowed now
        self.in_flight = 0
        self.gap = 0.0  # seconds between two request starts
        self.next_start = 0.0  # loop time before which no request starts (the gap)
        self.resume_at = 0.0  # loop time before which no request starts (the pause)
        self.round = 0  # raised by each slow-down; a 429 from an older round is not counted
        self.answers = 0  # answers since the limit last grew
        self.backoff = 0.0
        self.limited = 0  # 429 answers
        self._waiting: list[tuple[int, int, asyncio.Future[int]]] = []
        self._timer: asyncio.TimerHandle | None = None

    async def turn(self, rank: int) -> int:
        """Wait for this host's turn (lowest `rank` first); the round the request starts in.

        Every turn is ended by `answered` or `release`.
        """
        loop = asyncio.get_running_loop()
        now = loop.time()
        if (
            not self._waiting
            and self.in_flight < self.limit
            and now >= self.resume_at
            and now >= self.next_start
        ):
            self._start(now)
            return self.round
        future: asyncio.Future[int] = loop.create_future()
        heapq.heappush(self._waiting, (rank, next(_order), future))
        self._wake()
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # given the turn, then cancelled before taking it
            raise

    def release(self) -> None:
        """A turn ended without an answer (a connection error, a timeout)."""
        self.in_flight -= 1
        self._wake()

    def answered(self, round_: int, *, limited: bool, pause: float | None = None) -> float:
        """A turn ended with an answer: 429 (`limited`, with the host's Retry-After `pause`)
        or any other. Returns the loop time from which the host takes requests again."""
        self.in_flight -= 1
        now = asyncio.get_running_loop().time()
        if limited:
            self._slow_down(round_, pause, now)
        else:
            self._speed_up()
        self._wake()
        return max(self.resume_at, now)

    def _slow_down(self, round_: int, pause: float | None, now: float) -> None:
        self.limited += 1
        if round_ == self.round:  # the first 429 of this round
            self.round += 1
            self.limit = max(1, self.limit // 2)
            self.gap = min(self.max_pause, max(FIRST_GAP, self.gap * 2))
            self.backoff = min(self.max_pause, max(FIRST_BACKOFF, self.backoff * 2))
            self.answers = 0
        wait = self.backoff if pause is None else pause
        self.resume_at = max(self.resume_at, now + wait)

    def _speed_up(self) -> None:
        self.backoff = 0.0
        self.answers += 1
        if self.answers >= self.limit:
            self.answers = 0
            self.limit = min(self.ceiling, self.limit + 1)
        if self.gap:
            # One request a second faster each second: rate + 1/rate per answer, at most +10%.
            self.gap /= 1 + min(self.gap * self.gap, 0.1)
            if self.gap < _TOLERANCE:
                self.gap = 0.0

    def _start(self, now: float) -> None:
        self.in_flight += 1
        self.next_start = now + self.gap

    def _wake(self) -> None:
        """Give turns to the waiting requests that may start now; a timer for the next one."""
        waiting = self._waiting
        if not waiting or self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        while waiting and self.in_flight < self.limit:
            at = max(self.resume_at, self.next_start)
            if at - now > _TOLERANCE:
                self._timer = loop.call_at(at, self._on_timer)
                return
            future = heapq.heappop(waiting)[2]
            if future.done():  # its task was cancelled while it waited
                continue
            self._start(now)
            future.set_result(self.round)

    def _on_timer(self) -> None:
        self._timer = None
        self._wake()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class Pacing:
    """The pace of every host of a run, each made on its first request."""

    def __init__(self, host_concurrency: int, max_pause: float) -> None:
        self.host_concurrency = host_concurrency
        self.max_pause = max_pause
        self.hosts: dict[str, HostPace] = {}

    def host(self, key: str) -> HostPace:
        pace = self.hosts.get(key)
        if pace is None:
            pace = self.hosts[key] = HostPace(self.host_concurrency, self.max_pause)
        return pace

    @property
    def limited(self) -> int:
        return sum(h.limited for h in self.hosts.values())

    def close(self) -> None:
        for pace in self.hosts.values():
            pace.close()


__all__ = ["HostPace", "Pacing", "retry_after"]
