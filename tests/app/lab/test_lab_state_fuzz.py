"""Fuzz (hypothesis) of the lab state and the CDF page state, as a student could drive them.

Random sequences of typed text, slider moves, preset clicks, query choices and URL parameters go
through :class:`app.lab.state.LabState` (and :class:`app.cdf.state.CDFState`). After every step:
no exception has escaped, the state is valid (every parameter in its range, the claim readable,
D consistent with n and B, Delta/sigma in the verified range), every stored error or notice is
a catalogue message that formats in both languages, and every number the certification card
shows equals what dpcore returns for that state (recomputed independently from the state's
parameters and the claim's text).

DPLAB_FUZZ_EXAMPLES=2000 for a thorough run; the suite's default keeps it quick.
"""

from __future__ import annotations

import html
import math
import os
import re
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import log_ndtr

from app.cdf.inputs import (
    DATA_CHOICES,
    DEGREE_MAX,
    DELTA_RANGE,
    EPS_RANGE,
    METHOD_CHOICES,
    N_RANGE,
    PARTS_RANGE,
    STREAM_MODES,
)
from app.cdf.state import CDFState
from app.cdf.views import privacy_html
from app.lab import compute as lc
from app.lab.card import card_html
from app.lab.state import (
    B_MAX,
    B_MIN,
    DATA_EDIT_MAX,
    EPS_MAX,
    H_MAX,
    H_MIN,
    N_MAX,
    PRESETS,
    SIGMA_MAX,
    SIGMA_MIN,
    URL_NAMES,
    LabState,
)
from app.lab.values import VALUE_NAMES, LabValues
from app.shell.i18n import LANGUAGES, catalogue, t
from app.shell.numbers import fmt_delta, fmt_log10, fmt_num
from dpcore import certify, gaussian, queries

EXAMPLES = int(os.environ.get("DPLAB_FUZZ_EXAMPLES", "40"))
SET = settings(max_examples=EXAMPLES, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ---- what a student can type -------------------------------------------------------------------
_num = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=0.0, max_value=2.0),
    st.floats(min_value=1e-8, max_value=1e8),
    st.integers(min_value=-10, max_value=2_000_000),
    st.sampled_from([0.0, -0.0, 1.0, 0.13, 0.126, 1e-6, 1e-300, 5e-324, 1e308, 1e3, 1e-3]),
)


def _fmt_any(x: float | int, style: int) -> str:
    if isinstance(x, int):
        return str(x)
    return [repr(x), f"{x:g}", f"{x:.3e}", f"{x:.17g}".replace(".", ","),
            f" {x} ", f"{x}".replace("-", "\u2212")][style % 6]


_text = st.one_of(
    st.builds(_fmt_any, _num, st.integers(0, 5)),
    st.sampled_from(["", " ", "-0", "0", "1e-400", "1e-99999", "1e400", "nan", "inf", "-inf",
                     "abc", "1,5", "0.5.5", "1e", "--1", "0x10", "1_000", "½", "١", "∞",
                     "0.12693673750664386", "0.12693673750664394", "1" + "0" * 400]),
    st.text(alphabet=string.printable + "가나다−", max_size=30),
)
_data_text = st.one_of(
    st.lists(st.builds(_fmt_any, _num, st.integers(0, 5)), max_size=8).map(", ".join),
    st.text(max_size=40),
)
TEXT_CONTROLS = ("n", "B", "sigma", "eps", "delta", "record", "replacement", "eps_lo", "eps_hi",
                 "sim_n")
SLIDERS = ("sigma", "eps", "delta", "B", "n", "eps_lo", "eps_hi")


def _slider_value(control: str, u: float) -> float:
    """What the page's slider sends (log sliders send 10**position, rounded to 3 digits)."""
    if control in ("sigma", "B"):
        return float(f"{10 ** (-6 + 12 * u):.3g}")
    if control == "delta":
        return float(f"{10 ** (-30 * (1 - u)):.3g}") if u < 1 else 1.0
    if control == "n":
        return float(round(1 + u * 1000))
    return round(u * 20.0, 4)


_action = st.one_of(
    st.tuples(st.just("text"), st.sampled_from(TEXT_CONTROLS), _text),
    st.tuples(st.just("data"), st.just("data"), _data_text),
    st.tuples(st.just("slider"), st.sampled_from(SLIDERS), st.floats(0.0, 1.0)),
    st.tuples(st.just("value"), st.sampled_from(TEXT_CONTROLS), _num),
    st.tuples(st.just("preset"), st.sampled_from([p.key for p in PRESETS]), st.none()),
    st.tuples(st.just("query"), st.sampled_from([*queries.QUERIES, "median", ""]), st.none()),
    st.tuples(st.just("url"), st.just("url"),
              st.dictionaries(st.sampled_from([*URL_NAMES, "lang", "zzz"]), _text, max_size=6)),
)


def _apply(s: LabState, action: tuple[str, str, object]) -> None:
    kind, control, arg = action
    if kind in ("text", "data"):
        s.set_text(control, arg)  # type: ignore[arg-type]
    elif kind == "slider":
        s.set_value(control, _slider_value(control, arg))  # type: ignore[arg-type]
    elif kind == "value":
        s.set_value(control, float(arg))  # type: ignore[arg-type]
    elif kind == "preset":
        s.load_preset(control)
    elif kind == "query":
        s.set_query(control)
    else:
        s.apply_url(arg)  # type: ignore[arg-type]


# ---- the checks -------------------------------------------------------------------------------
def _message_formats(key: str, fields: dict[str, object]) -> None:
    for lang in LANGUAGES:
        assert key in catalogue(lang), key
        assert t(key, lang, **fields).strip()


def _check_valid(s: LabState) -> None:
    assert s.query in queries.QUERIES
    assert 1 <= s.n <= N_MAX and B_MIN <= s.B <= B_MAX and SIGMA_MIN <= s.sigma <= SIGMA_MAX
    assert 0.0 <= s.eps <= EPS_MAX and 0.0 <= s.eps_lo < s.eps_hi <= EPS_MAX
    sens = queries.sensitivity(s.query, s.n, s.B)
    assert sens == 0.0 or H_MIN <= sens / s.sigma <= H_MAX
    claim = certify.Claim.parse(s.delta_text)  # the typed claim is always readable...
    assert claim.value == s.delta and claim.text == s.delta_text  # ...and is the state's delta
    assert s.delta_text != "-0" and 0.0 <= s.delta <= 1.0
    assert len(s.data) == s.n and all(0.0 <= x <= s.B for x in s.data)
    assert 1 <= s.record <= s.n and 0.0 <= s.replacement <= s.B
    for key, fields in s.errors.values():
        _message_formats(key, fields)
    for key, fields in s.notices:
        _message_formats(key, fields)
    if s.n <= DATA_EDIT_MAX:
        assert s.data_text
    _check_values(s)


def _check_values(s: LabState) -> None:
    """The plain values the views read (``LabState.values``, made once per change) are the
    parameters' values after any sequence of inputs: never those of an earlier state."""
    v = s.values()
    for name in VALUE_NAMES:
        assert getattr(v, name) == getattr(s, name), name
    assert v.url_query() == LabValues(**{k: getattr(s, k) for k in VALUE_NAMES}).url_query()


def _cls(page: str, cls: str) -> str:
    m = re.search(rf'class="{cls}">([^<]*)<', page)
    assert m, cls
    return html.unescape(m.group(1))


def _check_card(s: LabState, lang: str) -> None:
    ref = certify.certify(s.query, s.n, s.B, s.sigma, s.eps, certify.Claim.parse(s.delta_text))
    page = card_html(s, s.certification(), lang)
    assert _cls(page, "dp-required-delta") == fmt_delta(ref.required_delta)
    assert _cls(page, "dp-log10-delta") == fmt_log10(ref.log10_delta)
    assert _cls(page, "dp-sensitivity") == fmt_num(ref.sensitivity)
    assert _cls(page, "dp-claimed-delta") == ref.claimed_text == s.delta_text
    verdict = _cls(page, "dp-verdict")
    word = t("lab.verdict.pass" if ref.passes else "lab.verdict.fail", lang)
    assert word in verdict
    assert ref.verdict in ("pass", "fail", "too_close")
    if ref.sensitivity > 0:
        assert _cls(page, "dp-exact-sigma").startswith(fmt_num(ref.exact_sigma, 8))
    # the figures' numbers: the curve's current point and the worst event's probabilities
    cv = lc.curve_view(ref.sensitivity, s.sigma, s.eps, s.delta, s.eps_lo, s.eps_hi, s.scale,
                       points=16)
    if ref.sensitivity > 0:
        assert math.isclose(cv.current_log10, ref.log10_delta, rel_tol=1e-12, abs_tol=1e-12)
        dv = lc.density_view(ref.sensitivity, s.sigma, s.eps, points=16)
        h = ref.sensitivity / s.sigma  # the worst event's probabilities, by scipy's log_ndtr
        a, c = h / 2 - s.eps / h, -h / 2 - s.eps / h
        assert math.isclose(dv.log_p0, float(log_ndtr(a)), rel_tol=1e-12, abs_tol=1e-300)
        assert math.isclose(dv.log_p1_scaled, s.eps + float(log_ndtr(c)), rel_tol=1e-12,
                            abs_tol=1e-12)
    else:
        assert cv.all_zero and ref.log10_delta == -math.inf


@SET
@given(st.lists(_action, min_size=1, max_size=10), st.sampled_from(LANGUAGES))
def test_lab_state_survives_any_sequence_of_inputs(actions, lang) -> None:
    s = LabState()
    for action in actions:
        _apply(s, action)
        _check_valid(s)
    _check_card(s, lang)


# ---- the CDF page state ------------------------------------------------------------------------
_cdf_names = ("dataset", "method", "degree", "teacher", "auto_degree", "stream_mode", "n",
              "data_seed", "noise_seed", "stream_parts", "stream_steps", "eps", "delta",
              "upload_lo", "upload_hi", "upload_unit", "upload_column", "zzz")
_cdf_action = st.one_of(
    st.tuples(st.just("input"), st.sampled_from(_cdf_names),
              st.one_of(_text, st.integers(10, 3000).map(str),
                        st.sampled_from([*DATA_CHOICES, *METHOD_CHOICES, *STREAM_MODES,
                                         "auto", "1", "0", "true", "12", "1e-6", "0.5"]))),
    st.tuples(st.just("url"), st.just("url"),
              st.dictionaries(st.sampled_from([*CDFState.URL_NAMES, *CDFState.URL_EXTRA, "x"]),
                              _text, max_size=5)),
)


def _check_cdf_valid(c: CDFState) -> None:
    assert c.dataset in DATA_CHOICES and c.method in METHOD_CHOICES
    assert c.stream_mode in STREAM_MODES
    assert N_RANGE[0] <= c.n <= N_RANGE[1] and 0 <= c.degree <= DEGREE_MAX
    assert EPS_RANGE[0] <= c.eps <= EPS_RANGE[1] and DELTA_RANGE[0] <= c.delta <= DELTA_RANGE[1]
    assert PARTS_RANGE[0] <= c.stream_parts <= PARTS_RANGE[1]
    assert 0 <= c.stream_steps <= c.stream_parts
    q = c.url_query()
    assert set(CDFState.URL_NAMES) <= set(q)


def _check_cdf_display(c: CDFState, lang: str) -> None:
    """The privacy card shows the release's (eps, delta), which are the state's, and for a
    Gaussian release dpcore certifies them for the released noise and sensitivity."""
    est = c.current()
    rel = est.release
    page = privacy_html(c, lang)
    shown_eps = float(_cls(page, "dp-cdf-eps"))
    shown_delta = float(_cls(page, "dp-cdf-delta"))
    assert math.isclose(shown_eps, rel.eps, rel_tol=1e-5)
    assert math.isclose(shown_delta, rel.delta if c.method != "all" else c.delta, rel_tol=1e-5)
    assert rel.eps <= c.eps * (1 + 1e-12) and rel.delta <= c.delta * (1 + 1e-12)
    assert est.eps == rel.eps and est.delta == rel.delta
    if rel.mechanism == "gaussian":  # the sigma in use meets the claim by dpcore's exact profile
        assert gaussian.log_delta(rel.eps, rel.sensitivity, rel.noise_scale) <= math.log(
            rel.delta)


@SET
@given(st.lists(_cdf_action, min_size=1, max_size=8), st.sampled_from(LANGUAGES))
def test_cdf_state_survives_any_sequence_of_inputs(actions, lang) -> None:
    c = CDFState()
    for kind, name, arg in actions:
        if kind == "input":
            msg = c.set_input(name, arg)
            if msg is not None:
                _message_formats(*msg)
        else:
            for key, fields in c.apply_url(arg):  # type: ignore[arg-type]
                _message_formats(key, fields)
        _check_cdf_valid(c)
    if c.is_synthetic and c.n <= 3000:  # releases on small data are cheap enough to check
        _check_cdf_display(c, lang)
