"""The HTTP server of `catalogctl serve`, never printing. May import: site and below.

`server.serve()` is the entry point. `semantics` decides what a request gets (the HTTP
behaviour both engines share), `responses` holds the prepared answers; the engines are
`protocol` (httptools, the default) and `app` (the aiohttp application, also mountable in a
studio's own aiohttp service); `worker` runs one serving process and `supervisor` the workers.
"""
