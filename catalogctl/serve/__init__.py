"""The HTTP server of `catalogctl serve`, never printing. May import: site and below.

`server.serve()` is the entry point; `protocol` speaks HTTP/1.1 on httptools, `responses`
holds the prepared answers, `worker` runs one serving process and `supervisor` the workers.
"""
