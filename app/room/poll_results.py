"""A private poll's results for the teacher and the projector (``/teach?room=CODE``): how many
answered, the raw share sent, the estimate and its 95 % interval, the ε each student spent and
why they are protected, then what local DP does not protect against (fake answers) and the
room's closed polls. The students never see these blocks; every text is escaped here."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from app.room import poll as P
from app.room.poll_plots import width_plot
from app.room.poll_render import num, option_labels, pct, question_of
from app.room.records import Poll, PollResults
from app.shell.i18n import t


def _e(x: object) -> str:
    return html.escape(str(x))


def _interval_text(ci: Sequence[float] | None, clipped: bool, lang: str) -> str:
    if ci is None:
        return "—"
    text = t("poll.res.ci", lang, lo=pct(ci[0], lang), hi=pct(ci[1], lang))
    return text + (" " + t("poll.res.clipped", lang) if clipped else "")


def results_html(poll: Poll, res: PollResults, lang: str) -> str:
    """The projector's block: n, raw share sent, estimate, interval, ε per student, why the
    students are protected, the width plot and the local-vs-central comparison."""
    q = question_of(poll, lang)
    eps, n, k = res.eps, res.n, poll.k
    labels = option_labels(poll, lang)
    model = t(f"poll.model.{poll.model}", lang)
    state = t("poll.res.open" if res.open else "poll.res.closed_state", lang)
    head = (f'<h3 class="dp-poll-res-q">{_e(q)}</h3><p class="dp-poll-res-meta">'
            f'<span class="dp-poll-res-model">{_e(model)}</span> · {_e(state)} · '
            f'<span class="dp-poll-n">{_e(t("poll.res.n", lang, n=n))}</span> '
            f'<span class="dp-room-small">{_e(t("poll.res.n_public", lang))}</span></p>')
    few = (f'<p class="dp-poll-few" role="note"><strong>{_e(t("poll.res.few", lang, n=n))}'
           f'</strong></p>' if res.few and n > 0 else "")
    rows = []
    if poll.local:
        for i, lab in enumerate(labels):
            e = res.per_option[i]
            est = pct(e.estimate, lang) if n else "—"  # pct(, lang) says "—" for None and NaN
            rows.append(f'<tr><th scope="row">{_e(lab)}</th><td>{e.reported}</td>'
                        f'<td>{pct(e.raw_share, lang) if n else "—"}</td>'
                        f'<td class="dp-poll-est">{est}</td>'
                        f'<td>{_e(_interval_text(e.ci95 if n else None, e.clipped, lang))}'
                        f'</td></tr>')
        cols: tuple[str, ...] = ("poll.res.col.option", "poll.res.col.sent",
                                 "poll.res.col.raw", "poll.res.col.est", "poll.res.col.ci")
        p = P.keep_probability(eps, k)
        formula = t("poll.res.formula2" if k == 2 else "poll.res.formulak", lang,
                    p=f"{p:.4f}", q=f"{(1 - p) / (k - 1):.4f}")
        spent = t("poll.res.spent_local", lang, eps=num(eps))
        why = t("poll.res.why", lang, eps=num(eps), ratio=num(P.likelihood_ratio(eps, k)))
    else:
        rel = res.released
        for i, lab in enumerate(labels):
            if rel:
                o = rel.options[i]
                rows.append(f'<tr><th scope="row">{_e(lab)}</th>'
                            f'<td>{o.noisy_count:.1f}</td>'
                            f'<td class="dp-poll-est">{pct(o.estimate, lang)}</td>'
                            f'<td>{_e(_interval_text(o.ci95, o.clipped, lang))}</td></tr>')
            else:
                rows.append(f'<tr><th scope="row">{_e(lab)}</th><td>—</td><td>—</td>'
                            f'<td>—</td></tr>')
        cols = ("poll.res.col.option", "poll.res.col.noisy", "poll.res.col.est",
                "poll.res.col.ci")
        scale, sens = P.central_scale(eps, res.delta or P.DEFAULT_DELTA, res.mech, k)
        formula = t(f"poll.res.central_{res.mech}", lang, scale=num(scale, 4),
                    sens=num(sens, 3), eps=num(eps), delta=f"{res.delta:g}")
        if not rel:
            formula += " " + t("poll.res.central_wait", lang)
        spent = t("poll.res.spent_central", lang, eps=num(eps), delta=f"{res.delta:g}")
        why = t("poll.res.why_central", lang)
    head_row = "".join(f'<th scope="col">{_e(t(c, lang))}</th>' for c in cols)
    table = (f'<table class="dp-room-table dp-poll-table"><caption>'
             f'{_e(t("poll.res.table", lang))}</caption><thead><tr>{head_row}</tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table>')
    big = ""
    if res.estimate is not None and n and res.few:
        big = (f'<p class="dp-poll-big dp-poll-waiting">'
               f'{_e(t("poll.proj.waiting", lang, need=P.FEW_ANSWERS, k=n))}</p>')
    elif res.estimate is not None and n:
        # the estimate shown is the one inside the interval; the unbiased one is in the table
        raw = res.estimate
        big = (f'<p class="dp-poll-big">{_e(t("poll.res.big", lang, option=labels[0]))} '
               f'<strong class="dp-poll-estimate">{pct(min(1.0, max(0.0, raw)), lang)}</strong> '
               f'<span class="dp-poll-ci">'
               f'{_e(_interval_text(res.ci95, res.clipped, lang))}</span></p>')
        if not 0.0 <= raw <= 1.0:
            big += (f'<p class="dp-room-small dp-poll-raw">'
                    f'{_e(t("poll.res.outside_raw", lang, raw=pct(raw, lang)))}</p>')
    delta_cmp = res.delta or P.DEFAULT_DELTA
    cmp_ = P.comparison(eps, delta_cmp, max(n, 1), k)
    cmp_text = t("poll.cmp.text" if cmp_["ratio"] > 1 else "poll.cmp.text_small", lang,
                 n=max(n, 1), eps=num(eps), delta=f"{delta_cmp:g}", local=pct(cmp_["local"], lang),
                 central=pct(cmp_["central"], lang), gaussian=pct(cmp_["gaussian"], lang),
                 ratio=f"{cmp_['ratio']:.1f}", needed=f"{math.ceil(cmp_['n_needed']):,}")
    compare = (f'<div class="dp-poll-compare"><h4>{_e(t("poll.cmp.title", lang))}</h4>'
               f'<p>{_e(cmp_text)}</p></div>')
    return (f'<div class="dp-poll-res" data-poll="{_e(poll.id)}">{head}{few}{big}{table}'
            f'<p class="dp-poll-formula">{_e(formula)}</p>'
            f'<p class="dp-poll-spent"><strong>{_e(spent)}</strong></p>'
            f'<p class="dp-poll-why">{_e(why)}</p>{manipulation_html(poll, n, lang)}'
            f'{width_plot(eps, max(n, 1), delta_cmp, lang, k)}{compare}</div>')


# ---------------------------------------------------------------------------------------------
# what local DP does not protect against


def _points(x: float, lang: str) -> str:
    """A shift of a share, in percentage points (never past the whole range)."""
    if x >= 1.0:
        return t("poll.proj.whole", lang)
    return t("poll.proj.points", lang, x=f"{100 * x:.1f}")


def manipulation(poll: Poll, n: int) -> dict[str, float]:
    """How far fake answers can move this poll's estimate of a share.

    Local model: π̂ = (ȳ − q) / (p − q), so one report changed (a student who sends the option
    of their choice instead of the coin's) moves ȳ by 1/n and π̂ by 1/(n(p − q)); a report added
    moves it by at most as much; m fake reports by at most m/(n(p − q)). A change of one true
    answer moves the expected estimate by only 1/n: the randomization amplifies each fake answer
    1/(p − q) times. Central model: one fake answer moves the count by 1, the share by 1/n.
    ``m`` is a tenth of the class: its shift does not shrink as the class grows."""
    k, eps = poll.k, poll.eps
    n = max(1, n)
    m = max(2, math.ceil(n / 10))
    d = P.keep_probability(eps, k) - P.other_probability(eps, k)
    if not poll.local:
        d = 1.0
    return {"n": n, "m": m, "pq": d, "one": 1.0 / (n * d), "many": m / (n * d),
            "truthful": 1.0 / n, "amp": 1.0 / d}


def manipulation_html(poll: Poll, n: int, lang: str) -> str:
    """Said under every poll, with its numbers: DP protects each student's answer, not the
    result against fake answers."""
    f = manipulation(poll, n)
    eps, k = poll.eps, poll.k
    if n < P.FEW_ANSWERS:  # the formula only: with so few answers the numbers mean nothing
        key = "poll.proj.manip_formula" if poll.local else "poll.proj.manip_formula_central"
        body = t(key, lang, pq=f"{f['pq']:.3f}", amp=f"{f['amp']:.1f}", need=P.FEW_ANSWERS)
    elif poll.local:
        body = t("poll.proj.manip_local", lang, k=k, eps=num(eps), n=f["n"],
                 pq=f"{f['pq']:.3f}", one=_points(f["one"], lang), m=f["m"],
                 many=_points(f["many"], lang), truthful=_points(f["truthful"], lang),
                 amp=f"{f['amp']:.1f}")
    else:
        body = t("poll.proj.manip_central", lang, n=f["n"], one=_points(f["one"], lang),
                 m=f["m"], many=_points(f["many"], lang))
    title = t("poll.proj.manip_title" if poll.local else
              "poll.proj.manip_title_central", lang)
    return (f'<div class="dp-poll-manip" role="note"><p class="dp-poll-manip-title"><strong>'
            f'{_e(title)}</strong></p><p>{_e(body)}</p></div>')


def past_table(past: Sequence[PollResults], lang: str) -> str:
    """Every closed poll of the room, one line each (the same numbers as when it closed)."""
    if not past:
        return ""
    rows = []
    for r in sorted(past, key=lambda r: r.id):
        model = t(f"poll.model.{r.model}", lang)
        rows.append(f'<tr><td>{_e(question_of(r, lang))}</td>'
                    f'<td>{_e(model)}</td><td>{num(r.eps)}</td><td>{r.n}</td>'
                    f'<td>{pct(r.estimate, lang)}</td>'
                    f'<td>{_e(_interval_text(r.ci95, r.clipped, lang))}'
                    f'</td></tr>')
    cols = ("poll.past.question", "poll.past.model", "poll.past.eps", "poll.past.n",
            "poll.past.est", "poll.past.ci")
    return (f'<table class="dp-room-table dp-poll-past"><caption>{_e(t("poll.past.title", lang))}'
            f'</caption><thead><tr>'
            + "".join(f'<th scope="col">{_e(t(c, lang))}</th>' for c in cols)
            + f'</tr></thead><tbody>{"".join(rows)}</tbody></table>')

