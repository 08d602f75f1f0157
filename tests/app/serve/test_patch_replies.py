"""A browser's PATCH-DOC gets no OK (BokehJS ignores it), one whose header asks for it does,
and a patch that fails is still answered with ERROR (app.serve.panel_patches
``patch_replies_on_request``), on a started server."""

from __future__ import annotations

import asyncio

from live_server import LiveServer
from wsclient import LabTab, model_changed, slider_patches

from app.serve.panel_patches import PATCH_ACK


async def _drive(url: str) -> tuple[LabTab, float | None, str, str]:
    tab = LabTab(url)
    await tab.open()
    try:
        # Two messages as BokehJS sends them (no reply asked); the new card still comes.
        move = await tab.move_and_wait("eps", 2.5)
        # A quiet patch the server cannot apply (a model it does not have).
        bad = await tab._patch_quietly([model_changed("p-no-such-model", "value", 1)])
        # Then one that asks: messages of one connection are handled in order, so when its OK
        # is here, a reply to any patch before it would have come first.
        reply = await asyncio.wait_for(await tab._patch(slider_patches(
            tab.index.by_class, tab.index.release_only, "eps", 3.0)[-1]), 30)
        return tab, move.latency, reply.msgtype, bad
    finally:
        await tab.close()


def test_only_patches_that_ask_are_answered_with_ok(live_server: LiveServer) -> None:
    tab, latency, asked, bad = asyncio.run(_drive(f"{live_server.url}/lab?lang=en"))
    assert latency is not None  # the quiet move took effect
    assert asked == "OK"
    # No OK for the move's two messages; the failed one was answered with ERROR.
    assert [kind for kind, _ in tab.unasked] == ["ERROR"]
    assert tab.unasked[0][1] == bad
    assert PATCH_ACK == "dplab_ack"  # the field benchmarks/wsclient.py sends
