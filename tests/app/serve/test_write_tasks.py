"""Panel's write tasks, each removed from its own document's list (app.serve.panel_patches)."""

from __future__ import annotations

import asyncio

from bokeh.document import Document
from panel.io import document as pn_document

from app.serve import panel_patches


def test_a_finished_task_leaves_its_own_documents_list() -> None:
    panel_patches.write_tasks_per_document()
    panel_patches.write_tasks_per_document()  # idempotent
    assert getattr(pn_document._dispatch_write_task, "_dplab", False)

    async def body() -> None:
        a, b = Document(), Document()
        gate = asyncio.Event()

        async def write() -> None:
            await gate.wait()

        pn_document._dispatch_write_task(a, write)
        pn_document._dispatch_write_task(b, write)
        pn_document._dispatch_write_task(b, write)
        assert [len(pn_document._write_tasks[d]) for d in (a, b)] == [1, 2]
        # Not Panel's own clean-up, which searches every document's list for the task.
        assert pn_document._write_tasks[a][0].remove_done_callback(pn_document._cleanup_task) == 0
        gate.set()
        for _ in range(5):
            await asyncio.sleep(0)
        assert pn_document._write_tasks[a] == [] and pn_document._write_tasks[b] == []

    asyncio.run(body())

