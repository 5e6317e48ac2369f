"""JUnit XML, as GitLab (`artifacts:reports:junit`) and Jenkins (`junit` step) read it.

`<testsuites>` holding one `<testsuite>` per command, one `<testcase>` per game or link
(`classname`, `name`, `file`), a `<failure>` for what fails the check (its message the first
problem, its text every problem with file and line), `<skipped/>` for what was not checked,
and warnings that do not fail the check in `<system-out>`. Text is cleaned of control
characters, which XML 1.0 cannot carry at all. May import: the base layer.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from catalogctl.output.model import Case, Result
from catalogctl.text import clean


def _where(result: Result) -> str:
    loc = result.location
    if loc.file:
        line = f":{loc.line}" if loc.line is not None else ""
        col = f":{loc.column}" if loc.line is not None and loc.column is not None else ""
        return f"{loc.file}{line}{col}: "
    return f"{loc.logical}: " if loc.logical else ""


def _line(result: Result) -> str:
    return clean(f"{_where(result)}[{result.rule}] {result.level}: {result.message}")


def _text(text: str) -> str:
    return clean(text, newlines=True)


def junit_xml(
    command: str,
    cases: Sequence[Case],
    *,
    seconds: float | None = None,
    error: str | None = None,
) -> str:
    """The report as a JUnit XML document (`error`: the command could not do its work)."""
    name = f"catalogctl {command}"
    failures = sum(bool(c.failures) for c in cases)
    skipped = sum(c.skipped is not None for c in cases)
    errors = 1 if error is not None else 0
    tests = len(cases) + errors
    counts = {
        "tests": str(tests),
        "failures": str(failures),
        "errors": str(errors),
        "skipped": str(skipped),
        "time": f"{seconds or 0:.3f}",
    }
    root = ET.Element("testsuites", {"name": name, **counts})
    suite = ET.SubElement(root, "testsuite", {"name": name, **counts})
    for case in cases:
        attrs = {"classname": _text(case.classname), "name": _text(case.name), "time": "0"}
        if case.file:
            attrs["file"] = _text(case.file)
        element = ET.SubElement(suite, "testcase", attrs)
        failing = case.failures
        if failing:
            first = failing[0]
            failure = ET.SubElement(
                element, "failure", {"message": _text(first.message), "type": first.rule}
            )
            failure.text = "\n".join(_line(r) for r in failing) + "\n"
        elif case.skipped is not None:
            ET.SubElement(element, "skipped", {"message": _text(case.skipped)})
        others = [r for r in case.results if not r.failing]
        if others:
            ET.SubElement(element, "system-out").text = "\n".join(_line(r) for r in others) + "\n"
    if error is not None:
        element = ET.SubElement(suite, "testcase", {"classname": command, "name": command})
        ET.SubElement(element, "error", {"message": _text(error), "type": "error"}).text = (
            _text(error) + "\n"
        )
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
