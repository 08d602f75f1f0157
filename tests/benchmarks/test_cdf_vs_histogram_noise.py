"""benchmarks/cdf_vs_histogram.py --noise-study (issue 40): every tree of the study has the same
leaves (a count that would give the branchings different trees is refused), the block says
the command and the leaves, and --update replaces only its own marked block."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks import cdf_vs_histogram as cvh


def test_the_study_leaves_are_equal_only_at_a_common_power() -> None:
    assert set(cvh.noise_leaves(4096).values()) == {4096}
    got = cvh.noise_leaves(512)  # 8^3, but 16^3 = 64^2 = 4096
    assert got[8] == 512 and got[16] == got[64] == 4096


def test_a_count_that_mixes_tree_sizes_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cvh.main(["--noise-study", "1024", "--shapes", "beta", "--n", "2000", "--eps", "1"])
    with pytest.raises(SystemExit):
        cvh.main(["--noise-study", "512", "--shapes", "beta", "--n", "2000", "--eps", "1"])
    assert "different leaf counts" in capsys.readouterr().err


def test_the_study_writes_its_own_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "r.md"
    doc.write_text("head\n<!-- begin cdf_vs_histogram -->\nkept\n<!-- end cdf_vs_histogram -->\n",
                   encoding="utf-8")
    args = ["--noise-study", "4096", "--shapes", "beta", "--n", "2000", "--eps", "1",
            "--seeds", "1", "--workers", "1", "--update", str(doc)]
    assert cvh.main(args) == 0
    out = capsys.readouterr().out
    assert "exactly 4096 leaves" in out and "--noise-study 4096" in out
    assert out.count("| 1e-06 |") == len(cvh.NOISE_TREES)
    text = doc.read_text(encoding="utf-8")
    assert "kept" in text and text.count(cvh.NOISE_BEGIN) == 1
    assert cvh.main(args) == 0  # again: the block is replaced, not appended
    assert doc.read_text(encoding="utf-8").count(cvh.NOISE_BEGIN) == 1
