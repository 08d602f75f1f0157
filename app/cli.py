"""The ``dplab`` command: serve the app, certify one release, calibrate sigma, show the attacker.

Bad input prints one line (``dplab: error: ...``) on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NoReturn

from app.shell.i18n import DEFAULT_LANGUAGE, LANGUAGES, t
from dpcore import certify as certify_mod
from dpcore import queries, tradeoff, validate
from dpcore.errors import DPError

_MIN_NORMAL = 2.2250738585072014e-308


class _Parser(argparse.ArgumentParser):
    """argparse, but every error is one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"dplab: error: {message}\n")


def _fmt(x: float, digits: int = 10) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}g}"


def _unit(lang: str, query: str) -> str:
    return t(f"cli.unit.{queries.unit_key(query)}", lang)


def _certify(args: argparse.Namespace) -> int:
    # the claim goes in as text: dpcore reads it exactly, in log space (1e-400 is 1e-400)
    c = certify_mod.certify(args.query, args.n, args.B, args.sigma, args.eps, args.delta)
    if args.json:
        print(json.dumps(c.as_dict(), ensure_ascii=False, indent=2))
        return 0
    lang = args.lang
    unit = _unit(lang, c.query)
    verdict = t(f"cli.verdict.{c.verdict}", lang)
    flags = [
        t("cli.flag.positive", lang) if c.mathematically_positive else t("cli.flag.zero", lang),
    ]
    if c.underflow:
        flags.append(t("cli.flag.underflow", lang))
    flags.append(t("cli.flag.pure_yes" if c.pure_dp_possible else "cli.flag.pure_no", lang))
    if c.sensitivity_underflow:
        sens = t("cli.below_double", lang, value=certify_mod.sci_from_log10(c.log10_sensitivity),
                 log10=f"{c.log10_sensitivity:.4f}")
    else:
        sens = _fmt(c.sensitivity)
    reason = t(f"cli.reason.{c.reason}", lang)
    if c.verdict == "too_close":
        reason = t("cli.reason.too_close_numbers", lang, reason=reason, claim=c.claimed_text,
                   required=c.required_text)
    elif c.decided_by == "mpmath":
        reason = t("cli.reason.decided_exactly", lang, reason=reason)
    lines = [
        t("cli.release", lang, query=c.query, n=c.n, B=_fmt(c.B), sigma=_fmt(c.sigma),
          eps=_fmt(c.eps), delta=c.claimed_text, unit=unit),
        t("cli.sensitivity", lang, value=sens, unit=unit),
        t("cli.required", lang, value=_fmt(c.required_delta), log10=f"{c.log10_delta:.4f}"),
        t("cli.verdict", lang, verdict=verdict, reason=reason),
        t("cli.flags", lang, flags="; ".join(flags)),
        t("cli.errors", lang, mse=_fmt(c.mse, 6), mae=_fmt(c.mae, 6),
          hw=_fmt(c.half_width_95, 6), unit=unit),
        t("cli.sigmas", lang, exact=_exact_sigma_text(c.exact_sigma, c.exact_sigma_status,
                                                      c.log10_exact_sigma, lang),
          classic=_fmt(c.classic_sigma, 8), unit=unit,
          note=t("cli.classic_ok" if c.classic_proven else "cli.classic_outside", lang)),
    ]
    print("\n".join(lines))
    return 0


def _exact_sigma_text(sigma: float, status: str, log10: float, lang: str) -> str:
    if status in ("overflow", "underflow"):
        return t(f"cli.sigma_{status}", lang, log10=f"{log10:.4f}")
    if status == "no_finite_sigma":
        return t("cli.sigma_pure", lang)
    return _fmt(sigma, 8)


def _json_num(x: float | None) -> float | str | None:
    """A number for --json: inf and -inf as text (JSON has no infinity)."""
    if x is None or math.isfinite(x):
        return x
    return "inf" if x > 0 else "-inf"


def _attack(args: argparse.Namespace) -> int:
    lang = args.lang
    a = tradeoff.attack(args.fpr, args.sensitivity, args.sigma)
    if args.json:
        out = {k: _json_num(v) for k, v in dataclasses.asdict(a).items()}
        print(json.dumps(out, indent=2))
        return 0
    print("\n".join([
        t("cli.attack.release", lang, sigma=_fmt(a.sigma), sens=_fmt(a.sensitivity),
          mu=_fmt(a.mu)),
        t("cli.attack.tpr", lang, fpr=_fmt(a.fpr), tpr=_fmt(a.tpr), fnr=_fmt(a.fnr),
          fpr100=_fmt(100 * a.fpr, 3), tpr100=_fmt(100 * a.tpr, 3)),
        t("cli.attack.advantage", lang, adv=_fmt(a.advantage)),
        t("cli.attack.best", lang, best=_fmt(a.best_advantage), fpr=_fmt(a.best_fpr)),
    ]))
    return 0


def _sensitivity(args: argparse.Namespace) -> Fraction:
    if args.sensitivity is None:
        if args.query is None or args.n is None or args.B is None:
            raise ValueError(t("cli.calibrate_needs", args.lang))
        return queries.sensitivity_exact(args.query, args.n, args.B)
    return Fraction(validate.real_scalar("sensitivity", args.sensitivity, lo=0.0))


def _calibrate_tpr(args: argparse.Namespace) -> int:
    """σ from an attacker's hit rate: ``--tpr`` at ``--fpr`` (and ε at ``--delta`` if given)."""
    lang = args.lang
    if args.tpr is None or args.fpr is None or args.eps is not None:
        raise ValueError(t("cli.calibrate_modes", lang))
    sens = float(_sensitivity(args))
    delta: float | None = None
    claim = None
    if args.delta is not None:
        claim = certify_mod.Claim.parse(args.delta)
        if claim.value == 0.0 and claim.text != "0":  # below the doubles: not rounded to 0
            raise DPError("out_of_range.interval", name="delta", value=claim.text, left="[",
                          lo="5e-324", hi="1", right="]")
        delta = claim.value
    c = tradeoff.calibrate_sigma_tpr(args.tpr, args.fpr, sens, delta)
    if args.json:
        out = {"fpr": c.fpr, "tpr_target": validate.real_scalar("tpr", args.tpr),
               "sensitivity": sens, "sigma": _json_num(c.sigma), "mu": _json_num(c.mu),
               "tpr": c.tpr, "half_width_95": _json_num(c.half_width), "delta": c.delta,
               "eps": _json_num(c.eps)}
        print(json.dumps(out, indent=2))
        return 0
    target = _fmt(validate.real_scalar("tpr", args.tpr))
    if math.isinf(c.sigma):
        lines = [t("cli.calibrated_tpr_inf", lang, fpr=_fmt(c.fpr or 0.0))]
    else:
        lines = [t("cli.calibrated_tpr", lang, sigma=_fmt(c.sigma, 12), tpr=target,
                   fpr=_fmt(c.fpr or 0.0), sens=_fmt(sens), mu=_fmt(c.mu)),
                 t("cli.calibrated_tpr_got", lang, tpr=_fmt(c.tpr or 0.0),
                   hw=_fmt(c.half_width, 6))]
    if claim is not None and c.eps is not None:
        lines.append(t("cli.calibrated_tpr_eps", lang, delta=claim.text, eps=_fmt(c.eps)))
    else:
        lines.append(t("cli.calibrated_tpr_no_delta", lang))
    print("\n".join(lines))
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    lang = args.lang
    if args.tpr is not None or args.fpr is not None:
        return _calibrate_tpr(args)
    if args.eps is None or args.delta is None:
        raise ValueError(t("cli.calibrate_modes", lang))
    sens_f = _sensitivity(args)
    eps = validate.real_scalar("epsilon", args.eps, lo=0.0)
    claim = certify_mod.Claim.parse(args.delta)
    sigma, status, log10_sigma = certify_mod.exact_sigma(eps, claim, sens_f)
    if status in ("overflow", "underflow"):  # the smallest sigma is not a double: say so
        raise DPError(f"sigma_{status}", log10=f"{log10_sigma:.4f}")
    classic, proven = certify_mod.classic_sigma(eps, claim, sens_f)
    sens = float(sens_f)
    sens_text = (certify_mod.sci_from_log10(
        math.log10(sens_f.numerator) - math.log10(sens_f.denominator))
        if 0 < sens_f and sens < _MIN_NORMAL else None)
    if args.json:
        out = {"eps": eps,
               "delta": claim.value if claim.value > 0.0 or claim.text == "0" else claim.text,
               "log10_delta": "-inf" if claim.log10 == -math.inf else claim.log10,
               "sensitivity": sens_text if sens_text is not None else sens,
               "sigma": "inf" if math.isinf(sigma) else sigma,
               "status": status,
               "classic_sigma": "inf" if math.isinf(classic) else classic,
               "classic_proven": proven}
        print(json.dumps(out, indent=2))
        return 0
    sens_shown = sens_text if sens_text is not None else _fmt(sens)
    if status == "no_finite_sigma":
        print(t("cli.calibrated_pure", lang, eps=_fmt(eps), sens=sens_shown))
    else:
        print(t("cli.calibrated", lang, sigma=_fmt(sigma, 12), eps=_fmt(eps),
                delta=claim.text, sens=sens_shown))
    print(t("cli.sigmas_classic", lang, classic=_fmt(classic, 8),
            note=t("cli.classic_ok" if proven else "cli.classic_outside", lang)))
    return 0


def _serve(args: argparse.Namespace) -> int:
    import os

    # Imported here: `dplab certify` and `calibrate` answer without loading Panel and Bokeh.
    from app.serve.hardening import parse_frame_ancestors
    from app.serve.server import serve

    if args.prefix:  # our pages' own links read it (app/shell/urls.py)
        os.environ["DPLAB_PREFIX"] = args.prefix
    serve(address=args.address, port=args.port,
          allow_websocket_origin=args.allow_websocket_origin or None, show=args.show,
          prefix=args.prefix, max_sessions=args.max_sessions,
          max_message_bytes=args.max_message_bytes,
          frame_ancestors=parse_frame_ancestors(args.frame_ancestors),
          worker=args.worker_name)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dplab", description="dplab: differential privacy teaching lab")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("serve", help="serve the web app (offline-safe)")
    s.add_argument("--address", default="127.0.0.1", help="address to listen on")
    s.add_argument("--port", type=int, default=5006, help="port (default 5006)")
    s.add_argument("--allow-websocket-origin", action="append", metavar="HOST[:PORT]",
                   help="extra allowed origin (repeatable), e.g. course.example.org")
    s.add_argument("--show", action="store_true", help="open a browser")
    s.add_argument("--prefix", default="", help="URL prefix behind a reverse proxy, e.g. /dplab")
    s.add_argument("--max-sessions", type=int, default=None, metavar="N",
                   help="sessions in this process before 'the class is full' (default 150)")
    s.add_argument("--max-message-bytes", type=int, default=None, metavar="BYTES",
                   help="largest websocket message from a browser (default 2 MiB)")
    s.add_argument("--frame-ancestors", default="", metavar="SOURCES",
                   help="who may embed the pages in a frame, e.g. https://lms.example.org "
                        "(default: only this site)")
    s.add_argument("--worker-name", default=None, help="name in the log lines")
    s.set_defaults(func=_serve)

    lang: dict[str, Any] = dict(choices=LANGUAGES, default=DEFAULT_LANGUAGE,
                                help=f"output language ({', '.join(LANGUAGES)})")
    qs = queries.QUERIES  # the registered queries (dpcore.queries.REGISTRY)
    c = sub.add_parser("certify", help="certify one Gaussian release")
    c.add_argument("--query", required=True, help=f"{', '.join(qs[:-1])} or {qs[-1]}")
    c.add_argument("--n", required=True, help="public number of records (>= 1)")
    c.add_argument("--B", required=True, help="upper input bound B > 0 (inputs in [0, B])")
    c.add_argument("--sigma", required=True, help="noise standard deviation (> 0)")
    c.add_argument("--eps", required=True, help="claimed epsilon (>= 0)")
    c.add_argument("--delta", required=True, help="claimed delta in [0, 1]")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.add_argument("--lang", **lang)
    c.set_defaults(func=_certify)

    k = sub.add_parser("calibrate", help="smallest sigma for a target (eps, delta), or for an "
                                         "attacker's true-positive rate at a false-positive rate")
    k.add_argument("--eps", help="target epsilon (>= 0); with --delta")
    k.add_argument("--delta", help="target delta in [0, 1]; with --tpr: the delta at which to "
                                   "report epsilon (optional)")
    k.add_argument("--tpr", help="or: the largest true-positive rate allowed to an attacker ...")
    k.add_argument("--fpr", help="... at this false-positive rate, in (0, 1)")
    k.add_argument("--sensitivity", help="global L2 sensitivity (>= 0)")
    k.add_argument("--query", help=f"or: query ({', '.join(qs)}) ...")
    k.add_argument("--n", help="... with public n ...")
    k.add_argument("--B", help="... and bound B")
    k.add_argument("--json", action="store_true", help="machine-readable output")
    k.add_argument("--lang", **lang)
    k.set_defaults(func=_calibrate)

    at = sub.add_parser("attack", help="the best attacker's true-positive rate against one "
                                       "Gaussian release, at a chosen false-positive rate")
    at.add_argument("--sensitivity", required=True, help="global L2 sensitivity (>= 0)")
    at.add_argument("--sigma", required=True, help="noise standard deviation (> 0)")
    at.add_argument("--fpr", required=True, help="the attacker's false-positive rate in [0, 1]")
    at.add_argument("--json", action="store_true", help="machine-readable output")
    at.add_argument("--lang", **lang)
    at.set_defaults(func=_attack)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except DPError as exc:  # dpcore's errors carry a key: print them in the chosen language
        lang = getattr(args, "lang", DEFAULT_LANGUAGE)
        print(f"dplab: error: {t('err.' + exc.key, lang, **exc.fields)}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"dplab: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
