"""output: the only place that writes to the terminal or to --output FILE.

Each command's result becomes a `Report` (`model.py`) in the module named for it
(`validate.py`, `diff.py`, `links.py`; build and serve write their own lines in `build.py`
and `serve.py`); `reports.write` writes a `Report` in the format asked for, failures
included, and each machine format is one module (`envelope.py`, `sarif.py`, `junit.py`,
`github.py`). `console.py` holds the destinations. May import: the cores and below.
"""
