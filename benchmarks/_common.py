"""What the benchmark scripts share: the app's module paths, starting a server, percentiles.

``APP_MODULES`` is the one place that names the app's modules a benchmark imports or starts
(in this process or in the server code it runs): when the app's files move, change it here.
Server code given to :func:`server_code` names them as ``$server``, ``$patches``, ...
(``string.Template``), and its own values such as ``$port``.
"""

from __future__ import annotations

import importlib
import math
import os
import signal
import socket
import statistics
import string
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]

# The app's modules the benchmarks use, by the name server code refers to them with.
APP_MODULES: dict[str, str] = {
    "server": "app.serve.server",  # serve(), routes(), ASSETS_DIR, tune_process's GC log lines
    "patches": "app.serve.upstream_page",  # TRIM_BUNDLE (registered in upstream_patches)
    "first_paint": "app.shell.first_paint",  # ENABLED
    "cdf_page": "app.cdf.page",  # CDFPage, CDFState, warm_up()
}

# Headless Chromium as the browser benchmarks launch it (the browser tests use the same flags).
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
DEFAULT_CHROMIUM = os.environ.get("DPLAB_CHROMIUM", "/usr/bin/chromium")

# Deep query through open shadow roots (Panel/Bokeh render inside them).
JS_DEEP = r"""
window.__deep = (sel) => {
  const stack = [document];
  while (stack.length) {
    const root = stack.pop();
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) stack.push(el.shadowRoot);
  }
  return null;
};
"""


def app_module(name: str) -> ModuleType:
    """Import the app's module ``name`` (a key of APP_MODULES) in this process."""
    return importlib.import_module(APP_MODULES[name])


def app_file(name: str) -> str:
    """The source file of the app's module ``name``, relative to the checkout (for messages)."""
    return APP_MODULES[name].replace(".", "/") + ".py"


def server_code(template: str, **values: object) -> str:
    """Python code for ``python -c``: ``$server`` etc. become APP_MODULES' paths, and
    ``$key`` each of ``values``."""
    return string.Template(template).substitute(APP_MODULES, **{k: str(v) for k, v in
                                                               values.items()})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_env(root: Path = ROOT, **extra: str) -> dict[str, str]:
    """The environment of a server started from the source tree ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root), **extra}
    env.pop("BOKEH_RESOURCES", None)
    return env


def start_server(code: str, port: int, *, ready_path: str = "/lab",
                 env: Mapping[str, str] | None = None, name: str = "server"
                 ) -> subprocess.Popen[bytes]:
    """Run ``code`` (``python -c``) from this checkout, output discarded; returns once
    ``ready_path`` answers on ``port`` (exits the script when it never does)."""
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT,
                            env=server_env(ROOT, **dict(env or {})), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{ready_path}", timeout=5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"{name} did not start")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(timeout=10)


@contextmanager
def room_server(url: str, server_cmd: str, token: str, pid: int | None,
                **env: str) -> Iterator[tuple[str, int | None]]:
    """The server of a live-class benchmark: ``url`` when given (with the ``pid`` to sample),
    else ``server_cmd`` (e.g. scripts/serve-prod) or one ``serve()`` process of this checkout,
    started with the teacher ``token`` on a free port and stopped afterwards. Yields (base
    address, pid to sample)."""
    if url:
        yield url.rstrip("/"), pid
        return
    port = free_port()
    full = server_env(ROOT, DPLAB_TEACHER_TOKEN=token, DPLAB_PORT=str(port),
                      DPLAB_ADDRESS="127.0.0.1", **env)
    cmd = ([str(ROOT / server_cmd)] if server_cmd else
           [sys.executable, "-c", f"from app.serve.server import serve; serve(port={port})"])
    proc = subprocess.Popen(cmd, cwd=ROOT, env=full, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                with urllib.request.urlopen(base + "/join", timeout=5):
                    break
            except OSError:
                time.sleep(0.25)
        time.sleep(1.0)
        yield base, proc.pid
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (linear interpolation between order statistics); nan when empty."""
    if not values:
        return math.nan
    s = sorted(values)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(name: str, xs: list[float], width: int = 34) -> str:
    """One line: n, median, p95 and max of ``xs`` (milliseconds)."""
    if not xs:
        return f"{name:<{width}} no samples"
    return (f"{name:<{width}} n={len(xs):>3}  median {statistics.median(xs):7.1f} ms  "
            f"p95 {pct(xs, 0.95):7.1f} ms  max {max(xs):7.1f} ms")


# A fixed piece of work whose cost follows the machine's speed and not our code: Bokeh (a pinned
# library) builds a figure with four lines and a legend and serializes its document. This
# shared 2-core machine runs the same code up to ~30 % faster or slower from one quarter hour
# to the next, so a load figure is printed next to this reference, measured just before and
# just after it in the same run.
_REFERENCE_CODE = """
import statistics, sys, time
import numpy as np
from bokeh.document import Document
from bokeh.models import ColumnDataSource
from bokeh.plotting import figure
x = np.linspace(0.0, 10.0, 200)
def build():
    src = ColumnDataSource(dict(x=x, a=np.sin(x), b=np.cos(x), c=x / 10.0, d=x * x / 100.0))
    f = figure(height=300, tools="pan,wheel_zoom,box_zoom,reset,save", title="reference")
    for i, col in enumerate("abcd"):
        f.line("x", col, source=src, line_width=2, legend_label=col)
    doc = Document()
    doc.add_root(f)
    doc.to_json()
for _ in range(5):
    build()
times = []
for _ in range(int(sys.argv[1])):
    t0 = time.process_time()
    build()
    times.append(time.process_time() - t0)
print(1000.0 * statistics.median(times))
"""


def machine_reference_ms(builds: int = 40) -> float:
    """Median CPU time (ms) of the fixed reference build above, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _REFERENCE_CODE, str(builds)], check=True,
                         capture_output=True, text=True, timeout=300)
    return float(out.stdout.strip().splitlines()[-1])
