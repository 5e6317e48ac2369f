"""Network access of `diff` and `check-links`: where they may connect, how much they read, how long.

URLs come from content authors and from servers nobody here controls, so every request obeys:

- The address policy. A host is looked up once per run and its answer kept, so the address
  that was checked is the address connected to (no second lookup to rebind). An answer holding
  a link-local (169.254.0.0/16, fe80::/10), multicast or unspecified (0.0.0.0/8, ::) address is
  refused before any connection: those are cloud metadata endpoints and other machines' local
  services. A redirect from a public host to a loopback, private or otherwise non-public one is
  refused unless `allow_private` (an intranet catalog). IP literals are checked the same way.
- A byte limit per response body, counted on the wire and again after decompression, which
  catalogctl does itself with a bounded inflater (`Accept-Encoding: gzip` only).
- A deadline for a whole operation (`deadline()`), not only per read: a server that drips one
  byte a second is cut off when the time is up.

Imported only by the commands that go on the network. aiohttp is imported only where a client
session is made: check-links connects through the policy without it.
May import: catalogctl.sources and the layers below.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import zlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import aiohttp
    from aiohttp.abc import ResolveResult

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Reach = Literal["public", "private"]

MiB = 1024 * 1024
DEFAULT_MAX_BODY = 64 * MiB  # a few times the largest real catalog document
MAX_REDIRECTS = 10
REDIRECTS = frozenset({301, 302, 303, 307, 308})
CHUNK = 64 * 1024
# The response head: bounded by the HTTP client, stated here so the bound is ours.
MAX_HEADER_LINE = 8190
MAX_HEADERS = 128
ACCEPT_ENCODING = "gzip"

_ZERO_NET = ipaddress.ip_network("0.0.0.0/8")


class NetworkRefused(Exception):
    """A request the address policy does not allow; the message says why."""


class BodyError(Exception):
    """A response body that is too large, truncated or in an encoding not asked for;
    `over_limit` when it is too large (a larger limit would read it)."""

    def __init__(self, message: str, *, over_limit: bool = False) -> None:
        super().__init__(message)
        self.over_limit = over_limit


# --- addresses ------------------------------------------------------------------------------------


def parse_address(text: str) -> Address | None:
    try:
        ip = ipaddress.ip_address(text.removeprefix("[").removesuffix("]"))
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        mapped = ip.ipv4_mapped or ip.sixtofour
        if mapped is not None:
            return mapped  # ::ffff:169.254.169.254 is 169.254.169.254
    return ip


def forbidden(ip: Address) -> str | None:
    """Why `ip` is never connected to, or None."""
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_unspecified or (isinstance(ip, ipaddress.IPv4Address) and ip in _ZERO_NET):
        return "an unspecified address"
    if isinstance(ip, ipaddress.IPv4Address) and ip == ipaddress.IPv4Address("255.255.255.255"):
        return "the broadcast address"
    return None


def default_reach(host: str, ip: Address) -> Reach:
    """Public: globally routable. Everything else (loopback, private, CGNAT, ...) is private."""
    del host
    return "public" if ip.is_global else "private"


# --- the policy and its resolver ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NetworkPolicy:
    """What a run may connect to.

    `hosts` answers names without DNS (like /etc/hosts); `reach` classifies an address of a host
    as public or private. Both exist so that a caller (or a test that must stay on 127.0.0.1)
    can say how names resolve and which hosts count as public.
    """

    allow_private: bool = False
    hosts: Mapping[str, Sequence[str]] = field(default_factory=dict)
    reach: Callable[[str, Address], Reach] = default_reach


class PolicyResolver:
    """A resolver that looks each host up once per run and refuses forbidden answers (aiohttp's
    resolver interface, `resolve` and `close`, through `session`)."""

    def __init__(self, policy: NetworkPolicy) -> None:
        self.policy = policy
        self._answers: dict[str, asyncio.Future[list[Address]]] = {}

    async def _lookup(self, host: str) -> list[Address]:
        if host in self.policy.hosts:
            found = [parse_address(a) for a in self.policy.hosts[host]]
            return [a for a in found if a is not None]
        # The system resolver in a worker thread, as aiohttp's ThreadedResolver asks it.
        answers = await asyncio.get_running_loop().getaddrinfo(
            host, 0, type=socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG
        )
        found = [parse_address(str(sockaddr[0])) for *_, sockaddr in answers]
        return list(dict.fromkeys(a for a in found if a is not None))

    async def addresses(self, host: str) -> list[Address]:
        """Every address of `host` (an IP literal is its own answer), looked up once per run."""
        literal = parse_address(host)
        if literal is not None:
            return [literal]
        key = host.lower().removesuffix(".")
        future = self._answers.get(key)
        if future is None:
            future = self._answers[key] = asyncio.get_running_loop().create_future()
            try:
                future.set_result(await self._lookup(key))
            except BaseException as exc:
                del self._answers[key]  # a failed lookup may be tried again (a retry)
                future.set_exception(exc)
                future.exception()  # retrieved: the waiters re-raise it
                raise
        return await asyncio.shield(future)

    async def refusal(self, host: str, *, redirected_from: str | None = None) -> str | None:
        """Why a request to `host` is refused (None: allowed).

        Raises OSError when the host cannot be looked up.
        """
        addresses = await self.addresses(host)
        if not addresses:
            return f"{host} has no address"
        for ip in addresses:
            why = forbidden(ip)
            if why is not None:
                shown = host if str(ip) == host.strip("[]") else f"{host} resolves to {ip},"
                return f"{shown} {why}; catalogctl never connects there"
        if redirected_from is None or self.policy.allow_private:
            return None
        reach = self.policy.reach
        source = await self.addresses(redirected_from)
        if not all(reach(redirected_from, ip) == "public" for ip in source):
            return None
        for ip in addresses:
            if reach(host, ip) != "public":
                where = host if str(ip) == host.strip("[]") else f"{host} ({ip})"
                return (
                    f"a redirect from the public host {redirected_from} to the private address "
                    f"{where} is refused (--allow-private allows it)"
                )
        return None

    # aiohttp.abc.AbstractResolver
    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        why = await self.refusal(host)
        if why is not None:
            raise OSError(why)
        out: list[ResolveResult] = []
        for ip in await self.addresses(host):
            fam = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
            if family not in (socket.AF_UNSPEC, fam):
                continue
            out.append(
                {
                    "hostname": host,
                    "host": str(ip),
                    "port": port,
                    "family": fam,
                    "proto": 0,
                    "flags": socket.AI_NUMERICHOST,
                }
            )
        if not out:
            raise OSError(f"{host} has no address of the family asked for")
        return out

    async def close(self) -> None:
        """Nothing to release (the interface of aiohttp's resolvers)."""


def session(
    resolver: PolicyResolver, *, headers: Mapping[str, str], limit: int = 100, per_host: int = 0
) -> aiohttp.ClientSession:
    """A client session that connects only through `resolver` and inflates nothing itself."""
    import aiohttp
    from aiohttp.abc import AbstractResolver

    class Resolver(AbstractResolver):
        """`resolver` as aiohttp's interface names it."""

        async def resolve(
            self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
        ) -> list[ResolveResult]:
            return await resolver.resolve(host, port, family)

        async def close(self) -> None:
            await resolver.close()

    connector = aiohttp.TCPConnector(
        resolver=Resolver(),
        limit=limit,
        limit_per_host=per_host,
        ttl_dns_cache=None,  # the resolver keeps each answer for the whole run
    )
    return aiohttp.ClientSession(
        connector=connector,
        headers=dict(headers),
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=False,
        trust_env=False,
        max_line_size=MAX_HEADER_LINE,
        max_field_size=MAX_HEADER_LINE,
        max_headers=MAX_HEADERS,
    )


# --- bounded bodies and deadlines -----------------------------------------------------------------


def size_text(n: int) -> str:
    if n >= MiB and n % MiB == 0:
        return f"{n // MiB} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n:,} bytes"


class _Inflater:
    """gzip/deflate decoding whose output never exceeds `limit` bytes."""

    def __init__(self, encoding: str, limit: int) -> None:
        self.wbits = 16 + zlib.MAX_WBITS if encoding in ("gzip", "x-gzip") else zlib.MAX_WBITS
        self.limit = limit
        self.size = 0
        self.parts: list[bytes] = []
        self.d = zlib.decompressobj(self.wbits)

    def feed(self, data: bytes) -> None:
        while data:
            room = self.limit - self.size + 1  # one byte more than allowed: detects the excess
            out = self.d.decompress(data, room)
            self.size += len(out)
            if self.size > self.limit:
                raise BodyError(f"inflates to more than {size_text(self.limit)}", over_limit=True)
            self.parts.append(out)
            data = self.d.unconsumed_tail
            if self.d.eof and self.d.unused_data:  # the next gzip member
                data = self.d.unused_data
                self.d = zlib.decompressobj(self.wbits)

    def finish(self) -> bytes:
        if not self.d.eof:
            raise BodyError("ends in the middle of its compressed data")
        return b"".join(self.parts)


async def read_body(resp: aiohttp.ClientResponse, limit: int) -> bytes:
    """The body of `resp`, decoded, at most `limit` bytes on the wire and after decoding.

    Raises `BodyError` with a reason to append to the URL.
    """
    encoding = resp.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("identity", "", "gzip", "x-gzip", "deflate"):
        raise BodyError(f"is sent with Content-Encoding {encoding!r}, which was not asked for")
    declared = resp.content_length
    if declared is not None and declared > limit:
        raise BodyError(
            f"is {declared:,} bytes long; the limit is {size_text(limit)}", over_limit=True
        )
    inflater = None if encoding in ("identity", "") else _Inflater(encoding, limit)
    parts: list[bytes] = []
    wire = 0
    async for chunk in resp.content.iter_chunked(CHUNK):
        wire += len(chunk)
        if wire > limit:
            raise BodyError(f"is longer than {size_text(limit)}", over_limit=True)
        if inflater is None:
            parts.append(chunk)
        else:
            try:
                inflater.feed(chunk)
            except zlib.error as exc:
                raise BodyError(f"is not valid {encoding} data ({exc})") from None
    if inflater is None:
        return b"".join(parts)
    return inflater.finish()


@asynccontextmanager
async def deadline(seconds: float) -> AsyncIterator[None]:
    """Everything inside must finish within `seconds`, or TimeoutError is raised."""
    async with asyncio.timeout(seconds):
        yield


def client_error_text(exc: BaseException) -> str:
    """A short reason for a client or resolver error."""
    import aiohttp

    if isinstance(exc, aiohttp.ClientConnectorError):
        os_error: Any = exc.os_error
        if isinstance(os_error, ConnectionRefusedError):
            return "connection refused"
        if isinstance(os_error, socket.gaierror):
            return f"host not found ({os_error.strerror or os_error})"
        return str(os_error.strerror or os_error)
    return str(exc) or type(exc).__name__


__all__ = [
    "ACCEPT_ENCODING",
    "DEFAULT_MAX_BODY",
    "MAX_REDIRECTS",
    "REDIRECTS",
    "BodyError",
    "NetworkPolicy",
    "NetworkRefused",
    "PolicyResolver",
    "deadline",
    "default_reach",
    "forbidden",
    "read_body",
    "session",
    "size_text",
]
