"""assets/dplab-poll.js's randomized response, run as it is (Node, Web Crypto's
getRandomValues): the share of true answers kept is 3/4 at ε = ln 3 (a binomial test that fails
for an always-truthful page and for a fair coin), the other options are uniform for k = 4."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest

from app.shell.assets import path

DRAWS = 40_000
HARNESS = """
const window = { crypto: require("crypto").webcrypto };
const document = { querySelector: () => null };
eval(require("fs").readFileSync(process.argv[1], "utf8"));
const rr = window.dplabPoll.randomize, n = %d, out = { k2: [0, 0], k4: [0, 0, 0, 0] };
for (let i = 0; i < n; i++) { out.k2[rr(0, Math.log(3), 2)]++; out.k4[rr(2, 1.0, 4)]++; }
console.log(JSON.stringify(out));
"""


def binom_z(x: int, n: int, p: float) -> float:
    return (x - n * p) / math.sqrt(n * p * (1 - p))


def test_browser_flip_as_shipped(tmp_path: object) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node: the browser test tests/ui/test_poll_ui.py checks the flip")
    out = subprocess.run([node, "-e", HARNESS % DRAWS, str(path("dplab-poll.js"))],
                         capture_output=True, text=True, timeout=60, check=True)
    got = json.loads(out.stdout)
    kept = got["k2"][0]
    # |z| < 4.5 under p = 3/4; p = 1 or p = 1/2 would give z of about +115 and -115.
    assert abs(binom_z(kept, DRAWS, 0.75)) < 4.5
    assert abs(binom_z(kept, DRAWS, 0.5)) > 20 and kept < DRAWS
    p4 = 1 / (1 + 3 * math.exp(-1.0))
    assert abs(binom_z(got["k4"][2], DRAWS, p4)) < 4.5
    for j in (0, 1, 3):
        assert abs(binom_z(got["k4"][j], DRAWS, (1 - p4) / 3)) < 4.5
