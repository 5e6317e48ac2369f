"""The error answers the nginx configuration and the Worker send: RFC 9457 problem documents.

Every error they produce (but the 403 page for methods and the 404 page outside /api/, which
are HTML, contract §7) is `application/problem+json` with the contract's error headers
(`ERROR_HEADERS`: no-store, nosniff, CORS); docs/reference/http.md lists when each is sent.
May import: catalogctl.contract.
"""

from __future__ import annotations

import json

PROBLEM_JSON = "application/problem+json"

# status → (title: the RFC 9110 reason phrase, detail)
PROBLEMS: dict[int, tuple[str, str]] = {
    400: ("Bad Request", "The request could not be understood."),
    408: ("Request Timeout", "The request did not arrive in time."),
    411: ("Length Required", "A request with content needs a Content-Length."),
    412: ("Precondition Failed", "A precondition of the request (If-Match) does not hold."),
    413: ("Content Too Large", "This service takes no request content."),
    414: ("URI Too Long", "The request target is too long."),
    416: ("Range Not Satisfiable", "This service sends whole documents only."),
    417: ("Expectation Failed", "The only expectation this service meets is 100-continue."),
    431: ("Request Header Fields Too Large", "The request head is too large."),
    500: ("Internal Server Error", "The document could not be read; please try again later."),
    501: ("Not Implemented", "The request uses a transfer coding this service does not know."),
    505: ("HTTP Version Not Supported", "This service speaks HTTP/1.0 and HTTP/1.1."),
}


def problem_body(status: int) -> bytes:
    """The problem document of `status` (one of `PROBLEMS`), as sent."""
    title, detail = PROBLEMS[status]
    doc = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    return json.dumps(doc, separators=(",", ":")).encode("ascii")
