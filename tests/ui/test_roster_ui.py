"""One student, one answer, in a real browser: two tabs of one browser are one student (the
second is told what the first sent, and never sends a report of its own); a new browser profile
after the room is locked is told so; both languages."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from app.shell.i18n import t
from ui.conftest import Server, shot, teacher_server

TOKEN = "ui-roster-token-0123456789"


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from teacher_server("ui-roster-server.log", TOKEN)


def open_room(browser: Any, server: Server) -> tuple[Any, str, str]:
    """(teacher context, room code, form token), signed in by the form."""
    ctx = browser.new_context()
    ctx.set_default_timeout(20000)
    pg = ctx.new_page()
    pg.goto(server.url + "/teach?lang=en")
    pg.get_by_label("Teacher token").fill(TOKEN)
    pg.get_by_label("Teacher token").press("Enter")
    pg.wait_for_url(re.compile(r"room=[A-Z0-9]{6}"))
    code = re.search(r"room=([A-Z0-9]{6})", pg.url).group(1)  # type: ignore[union-attr]
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', pg.content()).group(1)  # type: ignore
    pg.close()
    return ctx, code, csrf


def act(ctx: Any, server: Server, code: str, csrf: str, action: str, **form: str) -> None:
    r = ctx.request.post(f"{server.url}/teach/rooms/{code}/{action}?lang=en",
                         form={"csrf": csrf, **form}, headers={"Origin": server.url},
                         max_redirects=0)
    assert r.status == 303, (action, r.status)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_two_tabs_are_one_student(browser: Any, server: Server, lang: str) -> None:
    teacher, code, csrf = open_room(browser, server)
    act(teacher, server, code, csrf, "poll-open", preset="homework", eps="1.098612",
        model="local")
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    ctx.set_default_timeout(20000)
    sent: list[str] = []
    ctx.on("request", lambda r: sent.append(r.post_data or "")
           if r.method == "POST" and "/join/answer" in r.url else None)
    first, second = ctx.new_page(), ctx.new_page()
    for pg in (first, second):  # both tabs open the poll before either answers
        pg.goto(f"{server.url}/join?room={code}&lang={lang}")
        expect(pg.locator(".dp-poll-send")).to_be_enabled()
    first.locator("input.dp-poll-option").first.check()
    first.locator(".dp-poll-send").click()
    expect(first.locator(".dp-poll-status")).not_to_be_empty()
    second.locator("input.dp-poll-option").nth(1).check()
    second.locator(".dp-poll-send").click()
    already = "already answered" if lang == "en" else "이미 답했습니다"
    expect(second.locator(".dp-poll-status")).to_contain_text(already)
    # the second tab sent the first tab's report again, not a new draw of its own
    assert len(sent) == 2 and sent[0] == sent[1], sent
    second.reload()
    expect(second.locator(".dp-poll-status")).to_contain_text(already)
    # what was sent, named by the option's label on the form (a yes/no poll sends a value)
    said = second.locator(".dp-poll-status").inner_text()
    assert t("poll.yes", lang) in said or t("poll.no", lang) in said, said
    shot(second, f"roster-second-tab-{lang}")
    data = teacher.request.get(f"{server.url}/teach/api/rooms/{code}/polls/current").json()
    assert data["n"] == 1
    # after the lock a new browser profile is not a new student
    act(teacher, server, code, csrf, "lock")
    late = browser.new_context()
    pg = late.new_page()
    r = pg.goto(f"{server.url}/join?room={code}&lang={lang}")
    assert r is not None and r.status == 403
    expect(pg.locator(".dp-join-locked")).to_contain_text(code)
    # the student who joined before still gets in
    first.goto(f"{server.url}/join?room={code}&lang={lang}")
    expect(first.locator(".dp-poll-status")).to_contain_text(already)
    for c in (late, ctx, teacher):
        c.close()


def test_a_poll_opened_again_takes_the_report_already_sent(browser: Any, server: Server) -> None:
    """After a store restart the instructor opens the lost poll again (``reopen``): a page that
    kept its report sends that same report, and its privacy summary counts one ε, not two."""
    teacher, code, csrf = open_room(browser, server)
    form = {"preset": "homework", "eps": "1.098612", "model": "local"}
    act(teacher, server, code, csrf, "poll-open", **form)
    lost = teacher.request.get(f"{server.url}/join/state?room={code}").json()["poll"]["id"]
    ctx = browser.new_context()
    ctx.set_default_timeout(20000)
    sent: list[str] = []
    ctx.on("request", lambda r: sent.append(r.post_data or "")
           if r.method == "POST" and "/join/answer" in r.url else None)
    pg = ctx.new_page()
    pg.goto(f"{server.url}/join?room={code}&lang=en")
    pg.locator("input.dp-poll-option").first.check()
    pg.locator(".dp-poll-send").click()
    expect(pg.locator(".dp-poll-status")).to_contain_text("Sent")
    act(teacher, server, code, csrf, "poll-open", reopen=lost, **form)
    again = teacher.request.get(f"{server.url}/join/state?room={code}").json()["poll"]["id"]
    assert again != lost
    expect(pg.locator(f'form.dp-poll[data-poll="{again}"]')).to_have_count(1)
    expect(pg.locator("input.dp-poll-option:checked")).to_have_count(0)
    expect(pg.locator("input.dp-poll-option").first).to_be_disabled()  # nothing to choose
    pg.locator(".dp-poll-send").click()
    expect(pg.locator(".dp-poll-status")).to_contain_text("Sent")
    assert len(sent) == 2
    first, second = (json.loads(b) for b in sent)
    assert second["sent"] == first["sent"] and second["poll"] == again
    expect(pg.locator(".dp-poll-ledger")).to_contain_text("1.099")
    expect(pg.locator(".dp-poll-ledger")).not_to_contain_text("2.197")
    ctx.close()
    teacher.close()
