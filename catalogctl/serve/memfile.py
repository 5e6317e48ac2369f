"""Large answers sent from a file in memory with `sendfile`, as nginx sends static files.

Writing an answer copies it into the socket's buffers; with the games document (76 KB gzip)
and 2,000 connections that copy was 40% of a worker's CPU time (`perf`: `_copy_from_iter`),
where nginx hands the kernel the pages of the file (`sendfile`) and copies nothing. So an
answer of `SENDFILE_MIN` bytes or more is written once into a file, head and body together,
and each request for it is one `sendfile` from there: one system call, as a `write` was, and
no copy.

Which file: one without a name (`O_TMPFILE`) in `SPOOL`, where the system allows it, else an
anonymous file in memory (`memfd_create`). Both stay in memory (the page cache); the
difference is the size of the pieces the kernel keeps them in. A file written in one piece on
XFS, or on ext4 from Linux 6.16, is kept in large folios, so `sendfile` hands the socket a few
large pieces; a memory file (tmpfs) is kept page by page, 4 KiB each: on this project's
benchmark the games document took 7 to 16% less CPU a request from /var/tmp on ext4
(docs/deploy/serve.md). Elsewhere the two cost the same. The kernel writes a file's pages to
disk once they have been dirty for 30 s (`vm.dirty_expire_centisecs`); a file is appended to
for at most `FILE_SECONDS`, then closed, and the pages of a file without a name are dropped
unwritten when it is closed, so nothing reaches the disk unless the system runs short of
memory. A worker that cannot write to the file in `SPOOL` (the disk is full) uses a memory
file from then on.

The file is only ever appended to: the kernel may still be sending a page of an answer while
later ones are written, so nothing written is changed. An answer's head holds the Date, so it
is appended again in each second it is asked for. When a second begins with the file past
`FILE_MAX` bytes or `FILE_SECONDS` old, a new one is started and the old one closed (the
pages still being sent stay with the kernel until they are); within a second the file only
grows, so answers asked for in turn are never written again in that second, however large
they are: a worker holds at most FILE_MAX bytes and one second's large answers. Where the
system has no `memfd_create` or `sendfile` (macOS, Windows), or no file can be made or grown
(no descriptor or memory left), answers are written as before.
"""

from __future__ import annotations

import os

SENDFILE_MIN = 16 * 1024  # bytes; smaller answers are written (copying them costs little)
FILE_MAX = 16 * 1024 * 1024  # bytes in one file past which the next second starts a new one
FILE_SECONDS = 20  # seconds a file is appended to, under the kernel's 30 s before writeback
# Where a file without a name is made (on disk: large folios, see above); having no name, it
# cannot be replaced, opened by its name or left behind.
SPOOL = "/var/tmp"  # noqa: S108
AVAILABLE = hasattr(os, "memfd_create") and hasattr(os, "sendfile")


class MemoryFile:
    """One worker's file of large answers: `offset()` places an answer (once a second)."""

    __slots__ = ("fd", "offsets", "opened", "second", "size", "spool")

    def __init__(self) -> None:
        self.fd = -1
        self.size = 0
        self.second = -1
        self.opened = -1  # the second the file was made in
        self.offsets: dict[bytes, int] = {}  # this second's answers → where they start
        self.spool: str | None = SPOOL  # None once a file there could not be written to

    def offset(self, message: bytes, second: int) -> int:
        """Where `message` (the answer of this `second`) starts in the file, appending it the
        first time; -1 when it cannot be placed (then it is written to the socket)."""
        if second != self.second:
            self.offsets.clear()  # last second's answers hold last second's Date
            self.second = second
            if self.size > FILE_MAX or second - self.opened >= FILE_SECONDS:
                self.close()
        found = self.offsets.get(message)
        if found is not None:
            return found
        if self.fd < 0:
            try:
                self.fd = new_file(self.spool)
            except OSError:  # out of descriptors or memory: written until the next second
                self.offsets[message] = -1
                return -1
            self.opened = second
        try:
            _write_all(self.fd, message, self.size)
        except OSError:  # out of memory or disk: the file's end is unknown, so a new one is
            self.close()  # started, in memory from now on
            self.spool = None
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


def new_file(spool: str | None) -> int:
    """A new file for answers: without a name in directory `spool` where the system makes one
    there, else an anonymous file in memory."""
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if spool is not None and tmpfile:
        try:
            return os.open(spool, os.O_RDWR | tmpfile | os.O_CLOEXEC, 0o600)
        except OSError:  # no such directory, read-only, a file system without O_TMPFILE
            pass
    return os.memfd_create("catalogctl-answers", os.MFD_CLOEXEC)


def _write_all(fd: int, data: bytes, at: int) -> None:
    view = memoryview(data)
    while view:
        wrote = os.pwrite(fd, view, at)
        if not wrote:
            raise OSError(f"the memory file took none of {len(view)} bytes")
        view, at = view[wrote:], at + wrote
