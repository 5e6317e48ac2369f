"""The sample content validates and builds."""

from __future__ import annotations

from pathlib import Path

from catalogctl.content import load, load_catalog


def test_sample_validates(sample: Path) -> None:
    content = load(sample)
    assert content.errors == []
    assert len(content.entries) >= 12


def test_generated_catalog_validates(generated) -> None:  # type: ignore[no-untyped-def]
    root = generated(300)
    content = load(root)
    assert content.errors == [], content.errors[:3]
    assert len(load_catalog(root).games) == 300
