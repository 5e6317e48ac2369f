"""The HTTP server of `catalogctl serve`, never printing. May import: site and below."""
