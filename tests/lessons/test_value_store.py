"""The lessons' computed values kept between processes (lessons.keep_values_in)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import lessons

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(lessons, "_STORE", None)
    lessons.keep_values_in(tmp_path / "store")
    yield tmp_path / "store"
    lessons.keep_values_in(None)


def test_a_process_reads_what_another_computed_with_the_same_code(store: Path) -> None:
    want = lessons._computed("gaussian")
    assert lessons.values("gaussian") == want
    path = store / f"gaussian-{lessons.code_key()}.json"
    assert json.loads(path.read_text(encoding="utf-8")) == want
    # another process of the same code finds it there and does not compute
    code = ("import sys, lessons, pathlib; lessons.keep_values_in(pathlib.Path(sys.argv[1])); "
            "import lessons.values_gaussian as m; m.values = None; "
            "print(lessons.values('gaussian')['sim_max'])")
    r = subprocess.run([sys.executable, "-c", code, str(store)], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == want["sim_max"]


def test_a_damaged_or_foreign_file_is_computed_again(store: Path) -> None:
    path = store / f"gaussian-{lessons.code_key()}.json"
    store.mkdir(parents=True, exist_ok=True)
    path.write_text('{"sim_max": 7}', encoding="utf-8")  # not text: not taken
    assert lessons.values("gaussian") == lessons._computed("gaussian")
    lessons.keep_values_in(store)
    path.write_text("{half", encoding="utf-8")
    assert lessons.values("gaussian") == lessons._computed("gaussian")


def test_a_store_others_may_write_is_not_used(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    (shared / f"gaussian-{lessons.code_key()}.json").write_text(
        json.dumps({"sim_max": "forged"}), encoding="utf-8")
    monkeypatch.setattr(lessons, "_STORE", None)
    lessons.keep_values_in(shared)
    try:
        assert lessons.values("gaussian")["sim_max"] != "forged"
    finally:
        lessons.keep_values_in(None)


def test_the_key_changes_with_the_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = lessons.code_key()
    copy = tmp_path / "tree"
    for top in ("dpcore", "lessons"):
        shutil.copytree(ROOT / top, copy / top)
    (copy / "dpcore" / "gaussian.py").write_text(
        (ROOT / "dpcore" / "gaussian.py").read_text(encoding="utf-8") + "\n# changed\n",
        encoding="utf-8")
    monkeypatch.setattr(lessons, "LESSON_DIR", copy / "lessons")
    lessons.code_key.cache_clear()
    try:
        assert lessons.code_key() != key
    finally:
        monkeypatch.undo()
        lessons.code_key.cache_clear()
    assert lessons.code_key() == key


def test_processes_starting_together_compute_once(tmp_path: Path) -> None:
    """Two processes of the same code asking for the same lesson with an empty store (as
    serve-prod's workers at their start): one computes, the other waits and reads its file.
    Each computation is made to take a second here, so that both ask while the first computes
    (without the lock both compute: this test then fails)."""
    store = tmp_path / "store"
    store.mkdir()
    code = ("import sys, time, pathlib, lessons\n"
            "lessons.keep_values_in(pathlib.Path(sys.argv[1]))\n"
            "real = lessons._computed\n"
            "def slow(lesson):\n"
            "    print('computed', flush=True); time.sleep(1.0); return real(lesson)\n"
            "lessons._computed = slow\n"
            "print(lessons.values('gaussian')['sim_max'], flush=True)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(store)], cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e[-2000:] for _, e in outs]
    lines = [o.split() for o, _ in outs]
    assert sum(line.count("computed") for line in lines) == 1, lines
    assert lines[0][-1] == lines[1][-1] == lessons._computed("gaussian")["sim_max"], lines
