"""The link check's HTTP/1.1 client against a raw server on 127.0.0.1: what it sends, how it
reads answers that are odd but valid, and how it refuses those that are not."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from catalogctl.links.http import MAX_FIELDS, Client, RequestFailed, target
from catalogctl.sources.net import NetworkPolicy, PolicyResolver
from tests.processes import wait_until_async

Answerer = Callable[[bytes], bytes]  # request head → raw answer


@dataclass
class RawServer:
    """Answers each request with the raw bytes of `answers[path]`; counts connections."""

    answers: dict[str, bytes | Answerer]
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0
    hung_up: int = 0  # connections the client closed (or the server did)
    close_after: set[str] = field(default_factory=set)  # paths after which it hangs up
    port: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                self.requests.append(head)
                path = head.split(b" ", 2)[1].decode()
                answer = self.answers[path.partition("?")[0]]
                writer.write(answer(head) if callable(answer) else answer)
                await writer.drain()
                if path in self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()
        self.hung_up += 1

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
async def raw() -> AsyncIterator[RawServer]:
    server = RawServer({})
    listener = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    server.port = listener.sockets[0].getsockname()[1]
    async with listener:
        yield server
        listener.close()


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    policy = NetworkPolicy(hosts={"xn--bcher-kva.test": ["127.0.0.1"]})
    c = Client(PolicyResolver(policy), user_agent="catalogctl-test/1")
    yield c
    c.close()


OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\n"


async def ask(client: Client, url: str, method: str = "HEAD", limit: int | None = None) -> int:
    answer = await asyncio.wait_for(client.request(method, target(url), body_limit=limit), 10)
    return answer.status


async def test_client_sends_a_plain_request_line_and_host(raw: RawServer, client: Client) -> None:
    raw.answers["/p/caf%C3%A9"] = OK
    assert await ask(client, f"{raw.base}/p/café?q=a b&r=%20") == 200
    (head,) = raw.requests
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HEAD /p/caf%C3%A9?q=a%20b&r=%20 HTTP/1.1"
    assert lines[1] == f"Host: 127.0.0.1:{raw.port}"
    assert "User-Agent: catalogctl-test/1" in lines
    assert "Accept-Encoding: identity" in lines


async def test_client_sends_an_international_host_in_its_ascii_form(
    raw: RawServer, client: Client
) -> None:
    raw.answers["/"] = OK
    assert await ask(client, f"http://bücher.test:{raw.port}/") == 200
    assert f"Host: xn--bcher-kva.test:{raw.port}".encode() in raw.requests[0]


async def test_client_keeps_a_connection_alive_between_answers(
    raw: RawServer, client: Client
) -> None:
    raw.answers["/a"] = raw.answers["/b"] = OK
    for path in ("/a", "/b", "/a"):
        assert await ask(client, raw.base + path) == 200
    assert raw.connections == 1


async def test_client_asks_again_on_a_new_connection_when_a_kept_one_was_closed(
    raw: RawServer, client: Client
) -> None:
    raw.answers["/a"] = raw.answers["/b"] = OK
    raw.close_after.add("/a")  # hangs up after answering, without saying so
    assert await ask(client, raw.base + "/a") == 200
    assert await ask(client, raw.base + "/b") == 200
    assert raw.connections == 2


async def test_client_skips_interim_answers(raw: RawServer, client: Client) -> None:
    raw.answers["/"] = b"HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n" + OK
    assert await ask(client, raw.base + "/") == 200


async def test_client_does_not_reuse_a_connection_after_a_body_to_head(
    raw: RawServer, client: Client
) -> None:
    raw.answers["/"] = OK + b"hi"  # a HEAD answer with the body it should not have
    assert await ask(client, raw.base + "/") == 200
    assert await ask(client, raw.base + "/") == 200
    assert raw.connections == 2
    # The first connection is closed at once, not left open until it is collected.
    await wait_until_async(lambda: _true(raw.hung_up == 1), what="the first connection closed")


async def _true(value: bool) -> bool:
    return value


async def test_client_counts_a_body_that_ends_with_the_connection(
    raw: RawServer, client: Client
) -> None:
    raw.answers["/i"] = b"HTTP/1.0 200 OK\r\nContent-Type: image/png\r\n\r\n" + b"x" * 5000
    raw.close_after.add("/i")
    answer = await client.request("GET", target(raw.base + "/i"), body_limit=1 << 20)
    assert (answer.body, answer.over) == (5000, False)
    over = await client.request("GET", target(raw.base + "/i"), body_limit=4096)
    assert (over.body, over.over) == (None, True)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n",
            f"the answer has more than {MAX_FIELDS} header fields",
        ),
        (
            b"HTTP/1.1 200 OK\r\nX-Big: " + b"x" * 70_000 + b"\r\n\r\n",
            "the answer's head is longer than 64 KiB",
        ),
        (b"HTTP/1.1 2x0 OK\r\n\r\n", "Invalid status code"),
        (b"SSH-2.0-OpenSSH_9.6\r\n\r\n", "Expected HTTP/"),
    ],
)
async def test_client_refuses_an_answer_it_cannot_trust(
    raw: RawServer, client: Client, answer: bytes, message: str
) -> None:
    raw.answers["/"] = answer
    with pytest.raises(RequestFailed) as failed:
        await ask(client, raw.base + "/")
    assert failed.value.kind == "invalid"
    assert message in str(failed.value)


async def test_client_reports_a_connection_dropped_before_the_answer(
    raw: RawServer, client: Client
) -> None:
    raw.answers["/"] = b""
    raw.close_after.add("/")
    with pytest.raises(RequestFailed) as failed:
        await ask(client, raw.base + "/")
    assert failed.value.kind == "dropped"
