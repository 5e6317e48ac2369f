"""Large answers sent from a file in memory with `sendfile`, as nginx sends static files.

Writing an answer copies it into the socket's buffers; with the games document (76 KB gzip)
and 2,000 connections that copy was 40% of a worker's CPU time (`perf`: `_copy_from_iter`),
where nginx hands the kernel the pages of the file (`sendfile`) and copies nothing. So an
answer of `SENDFILE_MIN` bytes or more is written once into an anonymous file in memory
(`memfd_create`), head and body together, and each request for it is one `sendfile` from
there: one system call, as a `write` was, and no copy.

The file is only ever appended to: the kernel may still be sending a page of an answer while
later ones are written, so nothing written is changed. An answer's head holds the Date, so it
is appended again in each second it is asked for. When a second begins with the file past
`FILE_MAX` bytes, a new one is started and the old one closed (the pages still being sent
stay with the kernel until they are); within a second the file only grows, so answers asked
for in turn are never written again in that second, however large they are: a worker holds
at most FILE_MAX bytes and one second's large answers. Where the system has no
`memfd_create` or `sendfile` (macOS, Windows), or the file cannot be made or grown (no
descriptor or memory left), answers are written as before.
"""

from __future__ import annotations

import os

SENDFILE_MIN = 16 * 1024  # bytes; smaller answers are written (copying them costs little)
FILE_MAX = 16 * 1024 * 1024  # bytes in one file past which the next second starts a new one
AVAILABLE = hasattr(os, "memfd_create") and hasattr(os, "sendfile")


class MemoryFile:
    """One worker's file of large answers: `offset()` places an answer (once a second)."""

    __slots__ = ("fd", "offsets", "second", "size")

    def __init__(self) -> None:
        self.fd = -1
        self.size = 0
        self.second = -1
        self.offsets: dict[bytes, int] = {}  # this second's answers → where they start

    def offset(self, message: bytes, second: int) -> int:
        """Where `message` (the answer of this `second`) starts in the file, appending it the
        first time; -1 when it cannot be placed (then it is written to the socket)."""
        if second != self.second:
            self.offsets.clear()  # last second's answers hold last second's Date
            self.second = second
            if self.size > FILE_MAX:
                self.close()
        found = self.offsets.get(message)
        if found is not None:
            return found
        if self.fd < 0:
            try:
                self.fd = os.memfd_create("catalogctl-answers", os.MFD_CLOEXEC)
            except OSError:  # out of descriptors or memory: written until the next second
                self.offsets[message] = -1
                return -1
        try:
            _write_all(self.fd, message, self.size)
        except OSError:  # out of memory: the file's end is unknown, so a new one is started
            self.close()
            self.offsets[message] = -1
            return -1
        found = self.offsets[message] = self.size
        self.size += len(message)
        return found

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
        self.fd = -1
        self.size = 0
        self.offsets.clear()


def _write_all(fd: int, data: bytes, at: int) -> None:
    view = memoryview(data)
    while view:
        wrote = os.pwrite(fd, view, at)
        if not wrote:
            raise OSError(f"the memory file took none of {len(view)} bytes")
        view, at = view[wrote:], at + wrote
