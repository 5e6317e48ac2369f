"""A page's categories, for `[content] category`: the pages of one category are the games.

Jekyll, Hugo and Eleventy sites label their pages in `categories`, `category` or `tags`: a
string (Jekyll splits one on white space: `categories: game puzzle`), or a list of labels.
A label is compared without regard to case.

May import: nothing of catalogctl.
"""

from __future__ import annotations

from typing import Any

CATEGORY_KEYS = ("categories", "category", "tags")
MAX_LABELS = 200  # labels looked at of one key


def page_labels(data: dict[str, Any]) -> list[str]:
    """The labels of a page's `categories`, `category` and `tags`, as written: a string and
    each of its words, each string item of a list."""
    out: list[str] = []
    for key in CATEGORY_KEYS:
        value = data.get(key)
        if isinstance(value, str):
            out.append(value.strip())
            words = value.split()
            if len(words) > 1:
                out += words[:MAX_LABELS]
        elif isinstance(value, list):
            out += [v.strip() for v in value[:MAX_LABELS] if isinstance(v, str)]
    return [label for label in out if label]


def in_category(data: dict[str, Any], category: str) -> bool:
    """Whether a page's front matter holds `category` among its labels (any case)."""
    wanted = category.strip().casefold()
    return any(label.casefold() == wanted for label in page_labels(data))
