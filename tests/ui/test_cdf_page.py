"""Browser tests of /cdf: data sources, the free degree slider (keyboard), the ledger, uploads,
two isolated sessions, the address both ways, both languages.  Screenshots in test-artifacts/.

Expected numbers come from dpcore (same data, same seeds) or from the page itself before and
after an action; polling with expect() (no fixed sleeps).
"""

from __future__ import annotations

import re
import subprocess
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import numpy as np
from playwright.sync_api import expect

from app.cdf.views import g
from app.shell.i18n import t
from dpcore import accounting, gaussian
from ui.conftest import ROOT, Server, shot


def open_cdf(page: Any, server: Server, query: str = "lang=en") -> None:
    page.goto(f"{server.url}/cdf?{query}")
    expect(page.locator(".dp-cdf-ks")).to_be_visible()
    expect(page.locator(".dp-cdf-plot svg.dp-svg path.dp-cdf-ref").first).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]seed="))  # the state was written to the address


def text(page: Any, cls: str) -> str:
    return page.locator(f".{cls}").first.inner_text()


def query(page: Any) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def set_text(page: Any, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")


def test_default_page_is_a_pp_release_with_the_slider_live(page: Any, server: Server) -> None:
    open_cdf(page, server)
    expect(page.locator(".dp-cdf-eps")).to_have_text("1")
    expect(page.locator(".dp-cdf-delta")).to_have_text("1e-06")
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("1")
    expect(page.locator(".dp-cdf-table tbody tr")).to_have_count(5)
    expect(page.locator(".dp-cdf-table")).to_contain_text("NOT private")
    # the slider shows the degree in use (the automatic one) and is not disabled
    degree = text(page, "dp-cdf-degree")
    expect(page.locator(".dp-cdf-degree-slider")).to_contain_text(degree)
    expect(page.locator(".dp-cdf-degree-slider input[type=range]")).not_to_have_attribute(
        "disabled", re.compile(".*"))
    expect(page.locator(".dp-cdf-degree-plot svg.dp-svg path.dp-deg-expected").first
           ).to_be_visible()
    expect(page.locator(".dp-cdf-degree-table")).to_contain_text("expected total")
    expect(page.locator(".dp-cdf-secret")).to_contain_text("secret source")
    shot(page, "cdf-default-en")


def test_degree_slider_by_keyboard_costs_no_privacy(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=en&data=bimodal&n=20000")
    eps, delta = text(page, "dp-cdf-eps"), text(page, "dp-cdf-delta")
    total, total_d = text(page, "dp-cdf-total-eps"), text(page, "dp-cdf-total-delta")
    auto_k = int(text(page, "dp-cdf-degree"))
    table0 = page.locator(".dp-cdf-table tbody").inner_text()
    handle = page.locator(".dp-cdf-degree-slider input[type=range]")
    handle.focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    expect(page.locator(".dp-cdf-degree")).to_have_text(str(auto_k - 3))
    expect(page.locator(".dp-cdf-auto input[type=checkbox]")).not_to_be_checked()
    expect(page).to_have_url(re.compile(f"degree={auto_k - 3}(&|$)"))
    # the curve changed (its text equivalent), the guarantee and the ledger did not
    expect(page.locator(".dp-cdf-table tbody")).not_to_have_text(table0)
    expect(page.locator(".dp-cdf-eps")).to_have_text(eps)
    expect(page.locator(".dp-cdf-delta")).to_have_text(delta)
    expect(page.locator(".dp-cdf-total-eps")).to_have_text(total)
    expect(page.locator(".dp-cdf-total-delta")).to_have_text(total_d)
    row = page.locator(".dp-cdf-degree-table .dp-cdf-current-row td").nth(1)
    expect(row).to_have_text(str(auto_k - 3))
    shot(page, "cdf-degree-moved-en")
    # the toggle moves the handle back to the automatic choice
    box = page.locator(".dp-cdf-auto input[type=checkbox]")
    box.focus()
    page.keyboard.press("Space")
    expect(box).to_be_checked()
    expect(page.locator(".dp-cdf-degree")).to_have_text(str(auto_k))
    expect(page.locator(".dp-cdf-degree-slider")).to_contain_text(str(auto_k))
    expect(page.locator(".dp-cdf-total-eps")).to_have_text(total)


def test_three_overlapping_releases_compose_exactly(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=en&data=uniform&n=10000")
    label = t("cdf.ctl.n", "en")
    for n in ("10100", "10200"):
        set_text(page, label, n)
        expect(page).to_have_url(re.compile(f"n={n}"))
    mus = [accounting.gaussian_mu(1 / n, gaussian.calibrate_sigma(1.0, 1e-6, 1 / n))
           for n in (10_000, 10_100, 10_200)]
    exact = accounting.gdp_epsilon(1e-6, accounting.gdp_compose(mus))
    expect(page.locator(".dp-cdf-total-eps")).to_have_text(g(exact, 6))
    expect(page.locator(".dp-cdf-total-delta")).to_have_text("1e-06")
    expect(page.locator(".dp-cdf-privacy-pane")).to_contain_text("Total of all 3 releases")
    expect(page.locator(".dp-cdf-rule")).to_contain_text("μ = √Σμᵢ²")
    expect(page.locator(".dp-cdf-basic")).to_contain_text("ε = 3, δ = 3e-06")
    shot(page, "cdf-three-releases-en")
    # a new class data set is a fresh source with a fresh ledger
    page.get_by_role("button", name=t("cdf.ctl.new_data", "en")).click()
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("1")
    expect(page.locator(".dp-cdf-sources tbody tr")).to_have_count(2)


def test_new_noise_grows_the_ledger(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=en&data=beta&n=5000")
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("1")
    page.get_by_role("button", name=t("cdf.ctl.new_noise", "en")).click()
    expect(page.locator(".dp-cdf-privacy-pane")).to_contain_text("Total of all 2 releases")
    mu = accounting.gaussian_mu(1 / 5000, gaussian.calibrate_sigma(1.0, 1e-6, 1 / 5000))
    exact = accounting.gdp_epsilon(1e-6, accounting.gdp_compose([mu, mu]))
    expect(page.locator(".dp-cdf-total-eps")).to_have_text(g(exact, 6))
    expect(page).to_have_url(re.compile("[?&]seed=2(&|$)"))
    expect(page.get_by_label(t("cdf.ctl.noise_seed", "en"), exact=True)).to_have_value("2")


def test_each_data_source_and_the_auto_histogram_note(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=en&method=auto")
    select = page.get_by_label(t("cdf.ctl.dataset", "en"), exact=True)
    units = {"beta": "no unit", "uniform": "no unit", "anes96_age": "years",
             "diabetes_age": "years", "penguins_mass": "g"}
    for name, unit in units.items():
        select.select_option(label=t(f"cdf.data.{name}", "en"))
        expect(page).to_have_url(re.compile(f"data={name}"))
        expect(page.locator(".dp-cdf-table")).to_contain_text(f"x ({unit})")
        expect(page.locator(".dp-cdf-total-eps")).to_have_text("1")  # a fresh source each
    # ANES under auto (n·ε = 944): the two-level tree, the reason, and the PP view as a new
    # release (below n·ε = 300 auto releases a histogram: test_cdf_auto_ui.py)
    select.select_option(label=t("cdf.data.anes96_age", "en"))
    note = page.locator(".dp-cdf-auto-band").first
    expect(note).to_contain_text("n·ε = 944")
    expect(page.locator(".dp-cdf-degree")).to_have_count(0)
    shot(page, "cdf-anes-auto-band-tree-en")
    page.get_by_role("button", name=t("cdf.ctl.pp_view", "en")).click()
    expect(page).to_have_url(re.compile("method=pp"))
    expect(page.locator(".dp-cdf-degree")).to_have_count(1)
    expect(page.locator(".dp-cdf-privacy-pane")).to_contain_text("Total of all 2 releases")
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("2")


def test_all_methods_side_by_side(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=en&n=5000&method=all")
    expect(page.locator(".dp-cdf-compare tbody tr")).to_have_count(5)
    expect(page.locator(".dp-cdf-privacy-pane")).to_contain_text("Total of all 5 releases")
    expect(page.locator(".dp-cdf-table thead th")).to_have_count(7)
    shot(page, "cdf-all-methods-en")


def test_stream_batches_pp_once_aq_every_time(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=en&n=6000&parts=3")
    add = page.get_by_role("button", name=t("cdf.stream.add.batches", "en"))
    for k in (1, 2, 3):
        add.click()
        expect(page.locator(".dp-cdf-stream-table tbody tr")).to_have_count(k)
    last = page.locator(".dp-cdf-stream-table tbody tr").last.locator("td")
    expect(last.nth(3)).to_have_text("1")  # PP: eps per record, parallel composition
    expect(last.nth(7)).to_have_text("3")  # AQ: three runs on the first batch's records
    expect(add).to_be_disabled()
    expect(page).to_have_url(re.compile("[?&]batches=3(&|$)"))
    expect(page.locator(".dp-cdf-stream-plot svg.dp-svg path.dp-stream-pp").first).to_be_visible()
    shot(page, "cdf-stream-en")


def _upload(page: Any, name: str, payload: bytes) -> None:
    page.locator(".dp-cdf-upload-input").set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": payload}])


BAD_UPLOADS = [
    ("utf16.csv", "nom,âge\nA,20\n".encode("utf-16"), "cdf.up.err.encoding", {}),
    ("cities.csv", b"name,city\nA,Seoul\nB,Busan\n", "cdf.up.err.no_numeric", {}),
    ("cells.csv", b"x\n1\nNaN\ninf\nabc\n5\n", None, "3 cells that are not finite numbers"),
    ("one.csv", b"x\n42\n", None, "only 1 value"),
    ("huge.csv", b"x\n1\n1e999\n3\n", None, "number too large"),
]


def test_good_and_bad_uploads_keep_the_page_working(page: Any, server: Server) -> None:
    open_cdf(page, server)
    status = page.locator(".dp-cdf-upload-status")
    for name, payload, key, expected in BAD_UPLOADS:
        _upload(page, name, payload)
        if key is not None:
            expect(status).to_contain_text(t(key, "en"))
        else:
            expect(status).to_contain_text(str(expected))
        expect(page.locator("[role=alert]").first).to_be_visible()
    # too big: refused in the browser before sending (the session stays open)
    _upload(page, "big.csv", b"1\n" * (5 * 2**20 + 10))
    expect(status).to_contain_text("The file is too large (10.0 MB)")
    # a good file: pick bounds (from meaning), release, ledger of the file
    rng = np.random.default_rng(5)
    heights = rng.normal(165, 9, 800).round(1)
    good = "id,height\n" + "".join(f"{i},{h}\n" for i, h in enumerate(heights))
    _upload(page, "class.csv", good.encode())
    expect(status).to_contain_text("class.csv: read 800 data rows")
    expect(page.locator(".dp-cdf-error")).to_contain_text(t("cdf.up.err.bounds_missing", "en"))
    page.get_by_label(t("cdf.up.column", "en"), exact=True).select_option(label="height")
    set_text(page, t("cdf.up.lo", "en"), "120")
    set_text(page, t("cdf.up.hi", "en"), "210")
    set_text(page, t("cdf.up.unit", "en"), "cm")
    expect(page.locator(".dp-cdf-total-eps")).to_have_text("1")
    expect(page.locator(".dp-cdf-table")).to_contain_text("x (cm)")
    expect(page.locator(".dp-cdf-privacy-pane")).to_contain_text("uploaded file class.csv")
    expect(page).to_have_url(re.compile("[?&]data=upload(&|$)"))
    shot(page, "cdf-upload-good-en")
    # data range button: fills the bounds and warns that they are not private
    page.get_by_role("button", name=t("cdf.up.use_range", "en")).click()
    expect(page.get_by_text("bounds taken from the data are not private")).to_be_visible()
    expect(page.get_by_label(t("cdf.up.lo", "en"), exact=True)).to_have_value(
        repr(float(heights.min())))


def test_two_sessions_are_isolated(page: Any, context: Any, server: Server,
                                   tmp_path: Path) -> None:
    token = f"secret{uuid.uuid4().hex[:12]}"
    marker = tmp_path / "started"
    marker.write_text("")
    open_cdf(page, server)
    other = context.new_page()
    other.goto(f"{server.url}/cdf?lang=en")
    expect(other.locator(".dp-cdf-ks")).to_be_visible()
    payload = f"{token}\n" + "".join(f"{i % 90 + 5}\n" for i in range(500))
    _upload(page, f"{token}.csv", payload.encode())
    expect(page.locator(".dp-cdf-upload-status")).to_contain_text(f"{token}.csv")
    set_text(page, t("cdf.up.lo", "en"), "0")
    set_text(page, t("cdf.up.hi", "en"), "100")
    expect(page.locator(".dp-cdf-sources")).to_contain_text(token)
    # the other session sees nothing of it
    other.reload()
    expect(other.locator(".dp-cdf-ks")).to_be_visible()
    select = other.get_by_label(t("cdf.ctl.dataset", "en"), exact=True)
    assert all(token not in o for o in select.locator("option").all_inner_texts())
    expect(other.locator(".dp-cdf-sources")).not_to_contain_text(token)
    assert token not in other.content()
    # an address with data=upload does not carry the file
    other.goto(f"{server.url}/cdf?lang=en&data=upload")
    expect(other.locator(".dp-cdf-notices")).to_contain_text(t("cdf.url.upload", "en"))
    other.close()
    # nothing was written to disk: no regular file changed since the test started holds the token
    listed = subprocess.run(
        ["find", "/tmp", str(ROOT), "-xdev", "(", "-path", str(ROOT / ".venv"), "-o", "-path",
         str(ROOT / ".git"), ")", "-prune", "-o", "-type", "f", "-newer", str(marker),
         "-size", "-50M", "-print"], capture_output=True, text=True, timeout=120, check=False)
    hits = []
    for name in listed.stdout.splitlines():
        try:
            with open(name, "rb") as fh:
                if token.encode() in fh.read():
                    hits.append(name)
        except OSError:
            continue
    assert hits == []


def test_url_round_trip(page: Any, context: Any, server: Server) -> None:
    open_cdf(page, server, "lang=en&data=beta&n=4321&eps=0.37&delta=2e-7&method=pp&degree=9"
                           "&seed=42")
    expect(page.locator(".dp-cdf-degree")).to_have_text("9")
    expect(page.locator(".dp-cdf-eps")).to_have_text("0.37")
    expect(page.locator(".dp-cdf-delta")).to_have_text("2e-07")
    handle = page.locator(".dp-cdf-degree-slider input[type=range]")
    handle.focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile("degree=10"))
    set_text(page, t("cdf.ctl.eps", "en"), "0.5")
    expect(page).to_have_url(re.compile("eps=0.5"))
    expect(page.locator(".dp-cdf-eps")).to_have_text("0.5")
    url = page.url
    shown = {c: text(page, c) for c in ("dp-cdf-ks", "dp-cdf-w1", "dp-cdf-energy",
                                        "dp-cdf-degree", "dp-cdf-eps", "dp-cdf-delta")}
    cells = page.locator(".dp-cdf-table tbody td").all_inner_texts()
    q = query(page)
    assert {k: q[k] for k in ("data", "n", "eps", "delta", "method", "degree", "seed")} == {
        "data": "beta", "n": "4321", "eps": "0.5", "delta": "2e-07", "method": "pp",
        "degree": "10", "seed": "42"}
    again = context.new_page()
    again.goto(url)
    for c, v in shown.items():
        expect(again.locator(f".{c}").first).to_have_text(v)
    expect(again.locator(".dp-cdf-table tbody td")).to_have_text(cells)
    again.close()


def test_korean_page(page: Any, server: Server) -> None:
    open_cdf(page, server, "lang=ko&data=penguins_mass&method=pp")
    expect(page.locator(".dp-cdf-table")).to_contain_text("보호되지 않음")
    expect(page.locator(".dp-cdf-table")).to_contain_text("x (g)")
    expect(page.locator(".dp-cdf-privacy-pane")).to_contain_text("프라이버시 장부")
    expect(page.get_by_label(t("cdf.ctl.method", "ko"), exact=True)).to_be_visible()
    body = page.locator(".dp-cdf-privacy-pane").inner_text()
    assert not re.search(r"\b(release|Total|ledger)\b", body)
    shot(page, "cdf-penguins-ko")
    page.get_by_label(t("cdf.ctl.method", "ko"), exact=True).select_option(
        label=t("cdf.method.all", "ko"))
    expect(page.locator(".dp-cdf-compare tbody tr")).to_have_count(5)
    expect(page.locator(".dp-cdf-compare")).to_contain_text("시간 (ms)")
    shot(page, "cdf-all-ko")
