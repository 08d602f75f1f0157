"""The ``dplab`` command: serve the app, certify one release, calibrate sigma.

Bad input prints one line (``dplab: error: ...``) on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import NoReturn

from app.i18n import DEFAULT_LANGUAGE, LANGUAGES, t
from dpcore import certify as certify_mod
from dpcore import gaussian, queries


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
    c = certify_mod.certify(args.query, args.n, args.B, args.sigma, args.eps, args.delta)
    if args.json:
        print(json.dumps(c.as_dict(), ensure_ascii=False, indent=2))
        return 0
    lang = args.lang
    unit = _unit(lang, c.query)
    verdict = t("cli.pass" if c.passes else "cli.fail", lang)
    flags = [
        t("cli.flag.positive", lang) if c.mathematically_positive else t("cli.flag.zero", lang),
    ]
    if c.underflow:
        flags.append(t("cli.flag.underflow", lang))
    flags.append(t("cli.flag.pure_yes" if c.pure_dp_possible else "cli.flag.pure_no", lang))
    lines = [
        t("cli.release", lang, query=c.query, n=c.n, B=_fmt(c.B), sigma=_fmt(c.sigma),
          eps=_fmt(c.eps), delta=_fmt(c.claimed_delta), unit=unit),
        t("cli.sensitivity", lang, value=_fmt(c.sensitivity), unit=unit),
        t("cli.required", lang, value=_fmt(c.required_delta), log10=f"{c.log10_delta:.4f}"),
        t("cli.verdict", lang, verdict=verdict, reason=t(f"cli.reason.{c.reason}", lang)),
        t("cli.flags", lang, flags="; ".join(flags)),
        t("cli.errors", lang, mse=_fmt(c.mse, 6), mae=_fmt(c.mae, 6),
          hw=_fmt(c.half_width_95, 6), unit=unit),
        t("cli.sigmas", lang, exact=_fmt(c.exact_sigma, 8), classic=_fmt(c.classic_sigma, 8),
          unit=unit, note=t("cli.classic_ok" if c.classic_proven else "cli.classic_outside",
                            lang)),
    ]
    print("\n".join(lines))
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    if args.sensitivity is None:
        if args.query is None or args.n is None or args.B is None:
            raise ValueError(t("cli.calibrate_needs", args.lang))
        sens = queries.sensitivity(args.query, args.n, args.B)
    else:
        sens = args.sensitivity
    sigma = gaussian.calibrate_sigma(args.eps, args.delta, sens)
    classic = gaussian.classic_sigma(args.eps, args.delta, sens)
    if args.json:
        out = {"eps": float(args.eps), "delta": float(args.delta), "sensitivity": float(sens),
               "sigma": _fmt(sigma, 17) if math.isinf(sigma) else sigma,
               "classic_sigma": _fmt(classic.sigma, 17) if math.isinf(classic.sigma)
               else classic.sigma,
               "classic_proven": classic.proven}
        print(json.dumps(out, indent=2))
        return 0
    lang = args.lang
    print(t("cli.calibrated", lang, sigma=_fmt(sigma, 12), eps=_fmt(float(args.eps)),
            delta=_fmt(float(args.delta)), sens=_fmt(float(sens))))
    print(t("cli.sigmas_classic", lang, classic=_fmt(classic.sigma, 8),
            note=t("cli.classic_ok" if classic.proven else "cli.classic_outside", lang)))
    return 0


def _serve(args: argparse.Namespace) -> int:
    from app.hardening import parse_frame_ancestors
    from app.server import serve

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

    lang = dict(choices=LANGUAGES, default=DEFAULT_LANGUAGE, help="output language (ko, en)")
    c = sub.add_parser("certify", help="certify one Gaussian release")
    c.add_argument("--query", required=True, help="sum, mean, count or const")
    c.add_argument("--n", required=True, help="public number of records (>= 1)")
    c.add_argument("--B", required=True, help="upper input bound B > 0 (inputs in [0, B])")
    c.add_argument("--sigma", required=True, help="noise standard deviation (> 0)")
    c.add_argument("--eps", required=True, help="claimed epsilon (>= 0)")
    c.add_argument("--delta", required=True, help="claimed delta in [0, 1]")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.add_argument("--lang", **lang)
    c.set_defaults(func=_certify)

    k = sub.add_parser("calibrate", help="smallest sigma for a target (eps, delta)")
    k.add_argument("--eps", required=True, help="target epsilon (>= 0)")
    k.add_argument("--delta", required=True, help="target delta in [0, 1]")
    k.add_argument("--sensitivity", help="global L2 sensitivity (>= 0)")
    k.add_argument("--query", help="or: query (sum, mean, count, const) ...")
    k.add_argument("--n", help="... with public n ...")
    k.add_argument("--B", help="... and bound B")
    k.add_argument("--json", action="store_true", help="machine-readable output")
    k.add_argument("--lang", **lang)
    k.set_defaults(func=_calibrate)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ValueError as exc:
        print(f"dplab: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
