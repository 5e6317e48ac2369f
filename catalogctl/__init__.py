"""catalogctl: build, validate and serve a public, read-only game catalog API."""

__version__ = "0.1.0"
