"""The time as a server shows it, formatted once a second: the Date header and log stamps.

One clock read per response: `tick()` reads the wall clock and, when a new second has begun,
formats the Date line (RFC 9110 §6.6.1: to the second) and the access log's stamps at once;
between ticks they are plain attributes.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import time


class Clock:
    __slots__ = ("clf", "date_line", "iso", "second")

    def __init__(self) -> None:
        self.second = -1
        self.date_line = b""  # b"Date: Wed, 25 Nov 2026 09:30:00 GMT\r\n"
        self.clf = ""  # 25/Nov/2026:09:30:00 +0000 (local time, as nginx's $time_local)
        self.iso = ""  # 2026-11-25T09:30:00 (UTC, without the fraction)

    def tick(self) -> int:
        """The current second (Unix time), the formatted forms brought up to it."""
        now = int(time.time())
        if now != self.second:
            self.date_line = f"Date: {email.utils.formatdate(now, usegmt=True)}\r\n".encode()
            self.clf = dt.datetime.fromtimestamp(now).astimezone().strftime("%d/%b/%Y:%H:%M:%S %z")
            self.iso = dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
            self.second = now
        return now


CLOCK = Clock()
