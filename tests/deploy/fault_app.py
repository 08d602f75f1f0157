"""A page for the fault tests only (served at /test-app when DPLAB_TEST_APP points here).

- ``dp-test-sleep`` (a number of seconds): an async callback waits that long, then writes to
  the output: a client can disconnect in the middle of it.
- ``dp-test-raise``: the callback raises.
- ``dp-test-echo``: the callback writes ``echo <value>`` at once (the session still works).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import panel as pn


def create_page() -> Any:
    sleep = pn.widgets.FloatInput(name="sleep", value=0.0, css_classes=["dp-test-sleep"])
    boom = pn.widgets.IntInput(name="boom", value=0, css_classes=["dp-test-raise"])
    echo = pn.widgets.IntInput(name="echo", value=0, css_classes=["dp-test-echo"])
    out = pn.pane.HTML("ready", css_classes=["dp-test-out"])

    async def on_sleep(event: Any) -> None:
        await asyncio.sleep(float(event.new))
        out.object = f"slept {event.new}"
        logging.getLogger("dplab.server").info("test-app slept %s", event.new)

    def on_boom(event: Any) -> None:
        raise RuntimeError(f"dplab test: this callback raises on purpose ({event.new})")

    def on_echo(event: Any) -> None:
        out.object = f"echo {event.new}"

    sleep.param.watch(on_sleep, "value")
    boom.param.watch(on_boom, "value")
    echo.param.watch(on_echo, "value")
    return pn.Column(sleep, boom, echo, out)
