"""`dplab attack` and `dplab calibrate --tpr --fpr` (app/cli.py, dpcore/tradeoff.py): numbers,
both languages, --json, and bad input as one line with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from app import cli
from app.shell.i18n import t
from dpcore import gaussian, tradeoff


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ("allowed 5 false alarms in 100, it catches at most 26 in 100", "0.3829249225")),
    ("ko", ("거짓 경보를 100번 중 5번까지 허용하면 100번 중 많아야 26번 맞힘", "최댓값")),
])
def test_attack_text(capsys: pytest.CaptureFixture[str], lang: str,
                     words: tuple[str, str]) -> None:
    assert cli.main(["attack", "--sensitivity", "1", "--sigma", "1", "--fpr", "0.05",
                     "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert "0.2595110228" in out and "0.2095110228" in out  # TPR and TPR − FPR
    for w in words:
        assert w in out
    assert len(out.strip().splitlines()) == 4


def test_attack_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["attack", "--sensitivity", "2", "--sigma", "4", "--fpr", "1e-300",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mu"] == 0.5 and out["fpr"] == 1e-300
    assert out["tpr"] == tradeoff.tpr(1e-300, 0.5) and out["tpr"] > 1e-300
    assert out["best_advantage"] == pytest.approx(0.197412651365847, rel=1e-14)  # 2Φ(1/4) − 1
    # FPR = 0: ln TPR = -inf is written as text (JSON has no infinity)
    assert cli.main(["attack", "--sensitivity", "1", "--sigma", "1", "--fpr", "0",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tpr"] == 0.0 and out["log_tpr"] == "-inf"


def test_calibrate_tpr_json_is_conservative(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["calibrate", "--tpr", "0.26", "--fpr", "0.05", "--sensitivity", "1",
                     "--delta", "1e-5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sigma"] == pytest.approx(0.998494049748, rel=1e-11)
    assert out["tpr"] <= 0.26 and out["tpr_target"] == 0.26
    assert out["eps"] == gaussian.epsilon(1e-5, 1.0, out["sigma"])  # dpcore's own inverse
    # without --delta: no epsilon
    assert cli.main(["calibrate", "--tpr", "0.26", "--fpr", "0.05", "--sensitivity", "1",
                     "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["eps"] is None


def test_calibrate_tpr_from_a_query(capsys: pytest.CaptureFixture[str]) -> None:
    # the sensitivity may come from --query/--n/--B as for (eps, delta): mean of 4 in [0, 1]
    assert cli.main(["calibrate", "--tpr", "0.26", "--fpr", "0.05", "--query", "mean",
                     "--n", "4", "--B", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sensitivity"] == 0.25
    assert out["sigma"] == pytest.approx(0.998494049748 / 4, rel=1e-11)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_calibrate_tpr_text(capsys: pytest.CaptureFixture[str], lang: str) -> None:
    assert cli.main(["calibrate", "--tpr", "0.26", "--fpr", "0.05", "--sensitivity", "1",
                     "--delta", "1e-5", "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert "0.998494049748" in out and "1e-5" in out and "4.38482274" in out
    assert cli.main(["calibrate", "--tpr", "0.26", "--fpr", "0.05", "--sensitivity", "1",
                     "--lang", lang]) == 0
    assert t("cli.calibrated_tpr_no_delta", lang) in capsys.readouterr().out
    # TPR = FPR: only infinite noise
    assert cli.main(["calibrate", "--tpr", "0.05", "--fpr", "0.05", "--sensitivity", "1",
                     "--lang", lang]) == 0
    assert "sigma = inf" in capsys.readouterr().out


def test_calibrate_eps_delta_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["calibrate", "--eps", "1", "--delta", "1e-5", "--sensitivity", "1",
                     "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sigma"] == pytest.approx(3.7306, abs=1e-4)


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["attack", "--sensitivity", "1", "--sigma", "0", "--fpr", "0.1"], "sigma"),
        (["attack", "--sensitivity", "-1", "--sigma", "1", "--fpr", "0.1"], "sensitivity"),
        (["attack", "--sensitivity", "1", "--sigma", "1", "--fpr", "1.5"], "fpr"),
        (["attack", "--sensitivity", "1", "--sigma", "1", "--fpr", "abc"], "fpr"),
        (["attack", "--sensitivity", "1", "--sigma", "1"], "--fpr"),
        (["attack", "--sensitivity", "1e300", "--sigma", "1e-300", "--fpr", "0.1"], "sigma"),
        (["calibrate", "--tpr", "0.01", "--fpr", "0.05", "--sensitivity", "1"], "tpr"),
        (["calibrate", "--tpr", "0.3", "--fpr", "0", "--sensitivity", "1"], "fpr"),
        (["calibrate", "--tpr", "0.3", "--sensitivity", "1"], "--fpr"),
        (["calibrate", "--tpr", "0.3", "--fpr", "0.05", "--eps", "1", "--sensitivity", "1"],
         "--eps"),
        (["calibrate", "--delta", "1e-5", "--sensitivity", "1"], "--eps"),
        (["calibrate", "--tpr", "0.3", "--fpr", "0.05"], "--sensitivity"),
        (["calibrate", "--tpr", "0.3", "--fpr", "0.05", "--sensitivity", "1", "--delta", "2"],
         "delta"),
        (["calibrate", "--tpr", "0.3", "--fpr", "0.05", "--sensitivity", "1", "--delta",
          "1e-400"], "delta"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_bad_input_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                     word: str, lang: str) -> None:
    # (in this process: an exception the CLI lets through fails the test; the command as a
    # process is run once below)
    try:
        code = cli.main([*argv, "--lang", lang])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    got = capsys.readouterr()
    assert code == 2, got.out
    lines = got.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dplab: error: "), got.err
    assert word in lines[0]


@pytest.mark.parametrize(("argv", "word"), [
    (["attack", "--sensitivity", "1", "--sigma", "1", "--fpr", "abc"], "fpr"),
    (["calibrate", "--tpr", "0.3", "--fpr", "0.05", "--sensitivity", "1", "--delta",
      "1e-400"], "delta"),
])
def test_bad_input_as_a_process_is_one_line_exit_2(argv: list[str], word: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "app.cli", *argv, "--lang", "ko"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dplab: error: "), proc.stderr
    assert word in lines[0] and "Traceback" not in proc.stderr
