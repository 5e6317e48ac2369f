"""diff: the catalog diff, the OpenAPI contract check and the report, never printing.

May import: sources and below.
"""
