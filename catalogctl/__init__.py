"""catalogctl: build, validate and serve a public, read-only game catalog API."""

__version__ = "0.1.0"

# The documentation site. pyproject.toml ([project.urls] Documentation) and mkdocs.yml
# (site_url) name the same address; a test holds the three together.
DOCS_URL = "https://catalogctl.github.io/catalogctl/"


def docs_url(page: str) -> str:
    """The address of a docs page on the site: `reference/rules.md#syntax` →
    `https://…/reference/rules/#syntax` (MkDocs' directory URLs; `index.md` is its folder)."""
    path, _, anchor = page.partition("#")
    path = path.removesuffix(".md")
    path = "" if path == "index" else path.removesuffix("/index") + "/"
    return DOCS_URL + path + (f"#{anchor}" if anchor else "")
