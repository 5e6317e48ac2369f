"""A wheelhouse of the test environment, so pip can install catalogctl without the network.

pre-commit installs a `language: python` hook with `pip install .` in a new virtualenv: pip
needs catalogctl's dependencies and its build backend. Tests never reach a package index, so
each distribution installed here is packed back into a wheel (its files and metadata, as
listed in its RECORD) and pip is pointed at them with `--no-index --find-links`.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import re
import zipfile
from importlib import metadata
from pathlib import Path

# Installed here, unneeded in a wheel: pip writes them again when it installs.
_INSTALL_ONLY = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode()}"


def _wheel_tag(dist: metadata.Distribution) -> str:
    text = dist.read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]
    if not tags:
        return "py3-none-any"
    return "-".join(".".join(sorted({t.split("-")[i] for t in tags})) for i in range(3))


def pack(dist: metadata.Distribution, out: Path) -> Path | None:
    """Write `dist` as a wheel into `out`; None for an editable or file-less install."""
    files = dist.files or []
    if not files or (dist.read_text("direct_url.json") or "").find('"editable": true') >= 0:
        return None
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"]).lower()
    version = dist.version
    info = f"{name}-{version}.dist-info"
    wheel = out / f"{name}-{version}-{_wheel_tag(dist)}.whl"
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as zf:
        for file in files:
            parts = Path(str(file)).parts
            if parts[0] == ".." or "__pycache__" in parts or parts[-1].endswith(".pyc"):
                continue  # console scripts (pip makes them anew) and bytecode
            if parts[0].endswith(".dist-info"):
                if parts[-1] in _INSTALL_ONLY:
                    continue
                arcname = "/".join((info, *parts[1:]))
            else:
                arcname = "/".join(parts)
            path = Path(str(dist.locate_file(file)))
            if not path.is_file():
                continue
            data = path.read_bytes()
            zf.writestr(arcname, data)
            writer.writerow([arcname, _record_hash(data), len(data)])
        writer.writerow([f"{info}/RECORD", "", ""])
        zf.writestr(f"{info}/RECORD", record.getvalue())
    return wheel


def closure(names: list[str]) -> list[metadata.Distribution]:
    """The installed distributions `names` need, with their dependencies (markers evaluated)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        dist = metadata.distribution(name)
        seen[name] = dist
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return list(seen.values())


def build_wheelhouse(out: Path, names: list[str]) -> Path:
    """`names` and their dependencies, as installed here, as wheels in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    for dist in closure(names):
        pack(dist, out)
    return out
