"""The dplab command line, app/cli.py (moved from tests/test_queries_certify_cli.py)."""

from __future__ import annotations

import json

import pytest

from app import cli


# ---- command line ----------------------------------------------------------------------------
def test_cli_certify_json(capsys):
    rc = cli.main(["certify", "--query", "mean", "--n", "32", "--B", "1", "--sigma", "10",
                   "--eps", "10", "--delta", "0", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["underflow"] is True and out["passes"] is False
    assert out["log10_delta"] == pytest.approx(-2223595.4904, abs=5e-5)


@pytest.mark.parametrize(("lang", "word"), [("en", "fail"), ("ko", "실패")])
def test_cli_certify_text(capsys, lang, word):
    rc = cli.main(["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "1",
                   "--eps", "1", "--delta", "0.126", "--lang", lang])
    assert rc == 0
    out = capsys.readouterr().out
    assert word in out and "0.1269367375" in out and "-0.8964" in out


def test_cli_calibrate(capsys):
    assert cli.main(["calibrate", "--eps", "1", "--delta", "1e-5", "--sensitivity", "1",
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sigma"] == pytest.approx(3.7306, abs=1e-4)
    assert cli.main(["calibrate", "--eps", "1", "--delta", "1e-5", "--query", "mean",
                     "--n", "4", "--B", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sensitivity"] == 0.25 and out["sigma"] == pytest.approx(3.7306 / 4, abs=1e-4)


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "-1", "--eps", "1",
          "--delta", "0.1"], "sigma"),
        (["certify", "--query", "sum", "--n", "0", "--B", "1", "--sigma", "1", "--eps", "1",
          "--delta", "0.1"], "n"),
        (["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "1", "--eps", "nan",
          "--delta", "0.1"], "epsilon"),
        (["calibrate", "--eps", "1", "--delta", "2", "--sensitivity", "1"], "delta"),
        (["calibrate", "--eps", "1", "--delta", "0.1", "--sensitivity", "abc"], "sensitivity"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(capsys, argv, name):
    # (in this process; tests/app/test_cli_attack.py runs the command as a process too)
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    got = capsys.readouterr()
    assert code == 2, got.out
    lines = got.err.strip().splitlines()
    assert len(lines) == 1 and name in lines[0], got.err


# ---- exact inputs, log-space claims, the third verdict ------------------------------------
@pytest.mark.parametrize(("lang", "words"), [("en", "below the double range"),
                                             ("ko", "배정밀도 범위보다 작음")])
def test_cli_prints_an_underflowing_sensitivity_from_its_log(capsys, lang, words):
    assert cli.main(["certify", "--query", "mean", "--n", "1e30", "--B", "1e-300", "--sigma",
                     "1e-300", "--eps", "0", "--delta", "1e-30", "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert "1.000000000e-330" in out and words in out


def test_cli_too_close_shows_both_numbers(capsys):
    import mpmath as mp

    with mp.workdps(120):  # delta(1) for h = 1: Phi(-1/2) - e Phi(-3/2), to 90 digits
        exact = mp.nstr(mp.ncdf(mp.mpf(-0.5)) - mp.e * mp.ncdf(mp.mpf(-1.5)), 90)
    assert cli.main(["certify", "--query", "sum", "--n", "4", "--B", "1", "--sigma", "1",
                     "--eps", "1", "--delta", exact, "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "too close to call" in out and exact in out
    assert "required delta = 0.1269367375066439458008296" in out
