"""The only place that prints: tables, text and machine formats. May import: the cores and below."""
