"""Exports of the lab in the browser (issue 8): every file's numbers match dpcore.

PNG (made in the browser from Bokeh's canvas), JSON (= ``dplab certify --json``), Markdown and
the curve CSV, for the underflow release (the hardest numbers: δ is 0 as a double, log10 δ is
−2223595.49…). Plus the pure writers without a browser.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from app.cdf.export import cdf_csv
from app.cli import main as cli_main
from app.lab import export
from app.lab.state import LabState
from dpcore import certify, gaussian
from ui.conftest import ARTIFACTS, Server, shot, show_curve

UNDERFLOW = ("mean", 32, 1.0, 10.0, 10.0, 0.0)  # query, n, B, sigma, eps, claimed delta
UNDERFLOW_URL = "q=mean&n=32&B=1&sigma=10&eps=10&delta=0"


def cli_json(query: str, n: int, B: float, sigma: float, eps: float, delta: float) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli_main(["certify", "--query", query, "--n", str(n), "--B", repr(B),
                           "--sigma", repr(sigma), "--eps", repr(eps), "--delta", repr(delta),
                           "--json"])
    assert status == 0
    return out.getvalue()


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    chunks, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in {kind!r}"
        chunks.append((kind, body))
        pos += 12 + length
    return chunks


def png_description(data: bytes) -> str:
    for kind, body in png_chunks(data):
        if kind == b"iTXt":
            keyword, rest = body.split(b"\0", 1)
            if keyword == b"Description":
                assert rest[:2] == b"\0\0"  # uncompressed
                _lang, _translated, text = rest[2:].split(b"\0", 2)
                return text.decode("utf-8")
    raise AssertionError("no iTXt Description chunk")


def download(pg: Any, cls: str, tmp: Path) -> Path:
    with pg.expect_download() as info:
        pg.locator(f"button.{cls}").click()
    d = info.value
    path = tmp / d.suggested_filename
    d.save_as(path)
    return path


# ---------------------------------------------------------------------------------------------
# pure writers (no browser)
# ---------------------------------------------------------------------------------------------
def test_json_is_the_cli_json() -> None:
    c = certify.certify(*UNDERFLOW)
    assert export.certification_json(c) + "\n" == cli_json(*UNDERFLOW)
    assert json.loads(export.certification_json(c))["log10_delta"] == c.log10_delta


def test_curve_csv_matches_dpcore() -> None:
    s = LabState()
    s.apply_url({"q": "mean", "n": "32", "B": "1", "sigma": "10", "eps": "10", "delta": "0"})
    text = export.curve_csv(s)
    head = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert any("query=mean n=32 B=1 sigma=10" in h for h in head)
    rows = [ln.split(",") for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert rows[0] == ["eps", "delta", "log10_delta"] and len(rows) == export.CURVE_POINTS + 1
    eps = [float(r[0]) for r in rows[1:]]
    assert eps[0] == s.eps_lo and eps[-1] == s.eps_hi
    ref = gaussian.log_delta(eps, 1 / 32, 10.0)
    for r, ld in zip(rows[1:], ref, strict=True):
        assert float(r[2]) == pytest.approx(ld / math.log(10), rel=1e-15, abs=1e-15)
        assert float(r[1]) == math.exp(ld)  # 0.0 exactly where the double underflows


def test_markdown_in_both_languages() -> None:
    s = LabState()
    s.apply_url({"q": "mean", "n": "32", "B": "1", "sigma": "10", "eps": "10", "delta": "0"})
    c = certify.certify(*UNDERFLOW)
    en = export.certification_markdown(s, c, "en")
    ko = export.certification_markdown(s, c, "ko")
    for md in (en, ko):
        assert "| -2223595.4904 |" in md
        assert "≈ 10^\u22122223595.49" in md
        assert "/lab?q=mean&n=32&B=1&sigma=10&eps=10&delta=0" in md
    assert "✗ fail" in en and "underflow" in en
    assert "실패" in ko and "언더플로" in ko


def test_cdf_csv_header_has_eps_delta() -> None:
    text = cdf_csv([0.0, 0.5, 1.0], [0.0, 0.25, 1.0], eps=1.0, delta=1e-6,
                          header=["n=100 bounds=[0, 1]"])
    lines = text.splitlines()
    assert lines[0] == "# dplab private CDF: eps=1.0 delta=1e-06"
    assert lines[2] == "x,cdf" and lines[-1] == "1.0,1.0"


# ---------------------------------------------------------------------------------------------
# in the browser
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_each_export_matches_dpcore(page: Any, server: Server, lang: str,
                                    tmp_path: Path) -> None:
    page.goto(f"{server.url}/lab?{UNDERFLOW_URL}&lang={lang}")
    expect(page.locator(".dp-log10-delta")).to_have_text("-2223595.4904")
    show_curve(page)
    c = certify.certify(*UNDERFLOW)
    cli = cli_json(*UNDERFLOW)
    # The card: "0 (underflow) ≈ 10^−2223595.49" with a badge, the 0 still in its own span.
    req = page.locator(".dp-required-delta").locator("xpath=..")
    expect(req).to_contain_text("≈ 10^\u22122223595.49")
    expect(page.locator(".dp-underflow-badge")).to_be_visible()
    assert page.locator(".dp-required-delta").inner_text() == "0"
    shot(page, f"export-underflow-card-{lang}")

    # JSON: language-neutral, byte for byte what `dplab certify --json` prints.
    p = download(page, "dp-export-json", tmp_path)
    assert p.suffix == ".json"
    assert p.read_text(encoding="utf-8") == cli.rstrip("\n")
    assert json.loads(p.read_text(encoding="utf-8")) == json.loads(cli)

    # Markdown, in the page's language.
    p = download(page, "dp-export-md", tmp_path)
    md = p.read_text(encoding="utf-8")
    assert "| -2223595.4904 |" in md and "≈ 10^\u22122223595.49" in md
    assert ("✗ fail" if lang == "en" else "✗ 실패") in md

    # CSV of the curve: every row recomputed with dpcore.
    p = download(page, "dp-export-csv", tmp_path)
    rows = [ln.split(",") for ln in p.read_text(encoding="utf-8").splitlines()
            if ln and not ln.startswith("#")][1:]
    assert len(rows) == export.CURVE_POINTS
    eps = [float(r[0]) for r in rows]
    ref = gaussian.log_delta(eps, c.sensitivity, c.sigma)
    assert all(float(r[2]) == pytest.approx(ld / math.log(10), rel=1e-15)
               for r, ld in zip(rows, ref, strict=True))

    # PNG of each figure, drawn in the browser; the certification travels inside the file.
    from PIL import Image

    for cls, name in (("dp-export-png-density", "densities"), ("dp-export-png-curve", "curve")):
        p = download(page, cls, tmp_path)
        data = p.read_bytes()
        assert p.name.endswith(f"-{name}.png")
        assert json.loads(png_description(data)) == json.loads(cli)
        img = Image.open(io.BytesIO(data)).convert("RGB")
        fig = page.locator(f".dp-{'density' if name == 'densities' else 'curve'}-plot").first
        box = fig.bounding_box()
        assert box and abs(img.width - box["width"]) <= 2 and img.height >= 300
        colours = img.getcolors(maxcolors=1 << 16)
        assert colours is None or len(colours) > 20, "an empty picture"
        if lang == "en":
            (ARTIFACTS / f"export-{name}.png").write_bytes(data)
    # Nothing went to the network: the conftest page fixture checks every request.
    assert re.fullmatch(r"dplab-mean-n32-B1-sigma10-eps10-curve\.png", p.name)


def test_the_curve_saved_as_png_before_it_was_scrolled_to(page: Any, server: Server,
                                                          tmp_path: Path) -> None:
    """The curve below the first screen, never scrolled to: its save button, pressed without
    scrolling (a keyboard or assistive-technology click), saves the whole figure."""
    from PIL import Image

    page.goto(f"{server.url}/lab?{UNDERFLOW_URL}&lang=en")
    expect(page.locator(".dp-density-plot svg.dp-svg path.dp-dens-d0").first).to_be_visible()
    with page.expect_download() as info:
        page.locator("button.dp-export-png-curve").dispatch_event("click")
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    data = path.read_bytes()
    assert path.name == "dplab-mean-n32-B1-sigma10-eps10-curve.png"
    assert json.loads(png_description(data)) == json.loads(cli_json(*UNDERFLOW))
    img = Image.open(io.BytesIO(data)).convert("RGB")
    box = page.locator(".dp-curve-plot").first.bounding_box()
    assert box and abs(img.width - box["width"]) <= 2 and img.height >= 300
    colours = img.getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 20, "an empty picture"


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_cdf_figure_saved_as_png(page: Any, server: Server, lang: str,
                                     tmp_path: Path) -> None:
    """/cdf's curves as PNG, drawn in the browser from the figure's SVG (legend inside: the
    reference is marked not private); the release's method and (ε, δ) travel in the file."""
    from PIL import Image

    page.goto(f"{server.url}/cdf?lang={lang}&data=bimodal&n=2000&eps=1&method=pp&seed=3")
    expect(page.locator(".dp-cdf-plot svg.dp-svg path.dp-cdf-ref").first).to_be_visible()
    p = download(page, "dp-export-png-cdf", tmp_path)
    assert p.name == "dplab-cdf-bimodal-pp.png"
    data = p.read_bytes()
    meta = json.loads(png_description(data))
    assert (meta["method"], meta["eps"], meta["seed"]) == ("pp", 1.0, 3)
    assert meta["data"] == "bimodal" and "not private" in meta["reference"]
    img = Image.open(io.BytesIO(data)).convert("RGB")
    box = page.locator(".dp-cdf-plot").first.bounding_box()
    assert box and abs(img.width - box["width"]) <= 2 and img.height >= 300
    colours = img.getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 20, "an empty picture"
