"""The rules of `validate`: one registry table, and the modules that apply each family.

May import: catalogctl.findings, catalogctl.urls, catalogctl.text, and the content modules below
the rules (settings, limits, frontmatter, fields).
"""
