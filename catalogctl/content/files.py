"""Reading one file of a site: bounded in size, never blocking, never following a symlink.

Every page, site.toml, generator configuration and cache file is read through `read_head`: a
FIFO or a device put where a file belongs is refused (opened without blocking, its type read
from the open file), and no more than the limit is read however large the file is.
"""

import os
import stat

__all__ = ["read_head"]

_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)  # Windows: the bytes as they are, no "\r\n" or Ctrl+Z rules
)


def read_head(path: str, limit: int) -> tuple[bytes, bool]:
    """The first `limit` bytes of a regular file, and whether that is the whole file.

    Opened without following a symlink (the walk resolved it) and without blocking (a FIFO put
    in place after the walk is refused, not waited on).
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, "not a regular file")
        # One read asks for what the file holds by its size, plus a byte: os.read allocates the
        # whole request, so asking for the most a page may hold would cost more than reading it.
        # Getting less than asked for, but all that fstat counted, is the end of the file (a
        # second read to see it would be a system call per page for nothing).
        want = min(st.st_size + 1, limit + 1)
        first = os.read(fd, want)
        if st.st_size <= len(first) < want:
            return first, True
        # The file changed size since fstat (or the read stopped short): read on to its end.
        chunks = [first]
        size = len(first)
        while size < limit:
            chunk = os.read(fd, min(1 << 20, limit - size, 1 << 16))
            if not chunk:
                return b"".join(chunks), True
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        return data[:limit], len(data) <= limit and not os.read(fd, 1)
    finally:
        os.close(fd)
