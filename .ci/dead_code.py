"""Name every function of catalogctl that no test and no entry point reached.

Run after the suite ran under coverage (`coverage run -m pytest`, configured in pyproject.toml,
subprocesses included): `python .ci/dead_code.py`. A function counts as reached when any
statement of its body ran. Exits 1 naming each unreached function, unless it is listed below
with the reason it cannot run in the suite; an entry that is reached after all must go too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import coverage

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "catalogctl"

# module:qualified name -> why no test reaches it (each one a platform or a failure that the
# machine running CI cannot produce).
UNREACHABLE: dict[str, str] = {
    "catalogctl.sources.net:session.Resolver.close": (
        "aiohttp's AbstractResolver requires the method, but aiohttp closes only a resolver it "
        "made itself; the policy resolver is closed by its owner (sources/core.py fetch)"
    ),
}


def _functions(tree: ast.AST) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, node) of every function and method, nested ones included, outside
    `if TYPE_CHECKING:` blocks and without `@overload`."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit_else(child, prefix)
                continue
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {ast.unparse(d) for d in child.decorator_list}
                if not names & {"overload", "typing.overload"}:
                    found.append((prefix + child.name, child))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    def visit_else(node: ast.If, prefix: str) -> None:
        for stmt in node.orelse:
            visit(ast.Module(body=[stmt], type_ignores=[]), prefix)

    visit(tree, "")
    return found


def _body_lines(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) for s in body):
        return set()  # `...`: a stub, nothing to run
    return {stmt.lineno for stmt in body}


def main() -> int:
    cov = coverage.Coverage()
    cov.combine(keep=False)
    cov.save()
    data = cov.get_data()
    measured = {Path(f).resolve(): set(data.lines(f) or ()) for f in data.measured_files()}
    unreached, stale = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts or path.name == "_schemas.py":
            continue
        ran = measured.get(path.resolve(), set())
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for qualname, func in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            lines = _body_lines(func)
            key = f"{module}:{qualname}"
            if lines and not lines & ran:
                if key not in UNREACHABLE:
                    unreached.append(f"{path.relative_to(ROOT)}:{func.lineno} {qualname}")
            elif key in UNREACHABLE:
                stale.append(key)
    for line in unreached:
        print(f"unreached: {line}")
    for key in stale:
        print(f"listed as unreachable but reached: {key} (remove it from .ci/dead_code.py)")
    if unreached or stale:
        print(f"{len(unreached)} unreached function(s): test them, or delete them")
        return 1
    print("every function of catalogctl is reached by the tests or an entry point")
    return 0


if __name__ == "__main__":
    sys.exit(main())
