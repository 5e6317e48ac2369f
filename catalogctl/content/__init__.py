"""Content trees: discovery, front matter, settings, rules. May import: contract, base."""
