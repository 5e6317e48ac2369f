"""diff: the catalog diff and the OpenAPI contract check, returning a `DiffResult`; never
printing (`catalogctl.output.diff` renders it).

May import: sources and below.
"""
