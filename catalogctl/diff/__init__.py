"""diff: core and report, never printing. May import: sources and below."""
