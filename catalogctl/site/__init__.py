"""Documents, build directories and host configs. May import: content, contract, base."""
