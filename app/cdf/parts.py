"""The parts of /cdf's controls on the server: plain Python objects, one per control or text.

The sidebar is ONE component in the browser (:mod:`app.cdf.sidebar`), and so are the main
area's two groups of controls, the degree box and the stream's (each a :class:`PartsPanel` of
its own :class:`Bar`); on the server each control is a small object of this module with the
attributes a Panel widget had (``value``, ``name``/``label``, ``options``, ``disabled``,
``visible``, ``object`` for a text, ``clicks`` for a button), so the page's logic
(app/cdf/controls*.py) reads and writes them as before:

- setting an attribute the browser shows tells the sidebar (:meth:`Bar.changed`), which sends
  what changed in two small JSON texts, at once or at the end of a batch (:meth:`Bar.batch`);
- setting an attribute to a new value runs the watchers of that attribute
  (:meth:`Part.watch`), as a widget's ``param.watch`` did; an equal value runs nothing;
- a bar made ``along`` another (the main area's, along the sidebar's) sends at the end of the
  other's batch too, so one commit's changes of the whole page go together;
- :func:`route` takes one message of the browser into the part it names.

A part costs a few Python objects (a widget with its Bokeh model cost a few hundred).
"""

from __future__ import annotations

import html
import json
import logging
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, NamedTuple, TypeVar


def _json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Change(NamedTuple):
    """What a watcher is given (the fields of param's event that the page reads)."""

    name: str
    old: Any
    new: Any


_UNSET = object()
PartT = TypeVar("PartT")
log = logging.getLogger(__name__)


def e(text: str) -> str:
    return html.escape(str(text), quote=True)


class Bar:
    """The sidebar's parts and what the browser is sent of them.

    ``send(values, texts)`` is called with the two JSON texts when what they say changed (set
    once the component exists, :meth:`connect`). Texts (the HTML parts, and the labels and
    options of the others: ``fixed()``) and values (the rest: ``state()``) are apart so that a
    move, which changes a field or a note, does not send them again; each holds only the parts
    that differ from the base, what the parts showed when the page was made (sent once).
    """

    def __init__(self, along: Bar | None = None) -> None:
        # Part objects, and app/cdf/sidebar.py's EpsSlider, UploadSlot and AddressPart (the
        # same members: key, html(), state())
        self.parts: list[Any] = []
        # a bar whose batches this one's changes wait for too (sent at the end of its batch)
        self._along = along
        self.by_key: dict[str, Any] = {}
        self._depth = 0
        self._dirty = False
        self._send: Callable[[str, str], None] | None = None
        self._sent = ("", "")
        self._base: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
        self._at_end: list[Callable[[], None]] = []
        self.ack = 0  # the number of the browser's last message taken (sliders in flight)

    def add(self, part: PartT) -> PartT:
        key = part.key  # type: ignore[attr-defined]
        if key in self.by_key:
            raise ValueError(f"two sidebar parts named {key!r}")
        self.parts.append(part)
        self.by_key[key] = part
        return part

    # ---- what the browser shows ----------------------------------------------------------
    def markup(self, order: list[Any]) -> str:
        """The component's HTML for its parts in ``order`` (escaped, no script, no style), made
        once per page; a string in ``order`` is fixed HTML (a box around some parts)."""
        return "".join(p if isinstance(p, str) else p.html() for p in order)

    def states(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Part -> what the browser shows of it: (values, texts)."""
        values: dict[str, Any] = {}
        texts: dict[str, Any] = {}
        for p in self.parts:
            (texts if isinstance(p, Html) else values)[p.key] = p.state()
            fixed = getattr(p, "fixed", None)
            if fixed is not None:  # labels and options change seldom: with the texts
                texts[p.key] = fixed()
        return values, texts

    def payload(self) -> tuple[str, str]:
        """The values and texts as JSON, each part only where it differs from the base (what
        the browser got with the page, :meth:`connect`); the values also carry ``ack``."""
        values, texts = self.states()
        base_values, base_texts = self._base
        diff: dict[str, Any] = {"ack": self.ack}
        diff.update((k, v) for k, v in values.items() if base_values.get(k) != v)
        return (_json(diff),
                _json({k: v for k, v in texts.items() if base_texts.get(k) != v}))

    def connect(self, send: Callable[[str, str], None]) -> tuple[str, str, str]:
        """From now on changes are sent through ``send``; returns the base (JSON: what every
        part shows now, ``{"values": …, "texts": …}``, sent once with the page) and the first
        values and texts (the differences from it: none yet)."""
        values, texts = self._base = self.states()
        self._send = send
        self._sent = self.payload()
        return (_json({"values": values, "texts": texts}), *self._sent)

    def changed(self) -> None:
        if self._send is None:
            return
        if self._depth:
            self._dirty = True
        elif self._along is not None and self._along.holding:
            if not self._dirty:  # sent at the end of the other bar's batch
                self._dirty = True
                self._along.at_end(self.flush)
        else:
            self.flush()

    def flush(self) -> None:
        self._dirty = False
        if self._send is None:
            return
        now = self.payload()
        if now != self._sent:
            self._sent = now
            self._send(*now)

    @property
    def holding(self) -> bool:
        """A batch is open (what changes is sent at its end), this bar's or the one it goes
        along with."""
        return self._depth > 0 or (self._along is not None and self._along.holding)

    def at_end(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` at the end of the open batch (app/cdf/panes.py: a group's redraw)."""
        self._at_end.append(fn)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Changes inside are sent once, at the end of the outermost batch."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth:
                self.send_now()

    def send_now(self) -> None:
        """What changed so far goes now, also inside a batch (the page's card and numbers go
        in the scheduler's first message, app/shell/refresh.py ``now``)."""
        while self._at_end:
            self._at_end.pop(0)()
        if self._dirty:
            self.flush()


class Part:
    """One part of the sidebar. ``key`` names it in the markup (``data-p``) and in the
    messages; ``css_classes`` are its fixed class names (the tests and outside checks)."""

    kind: ClassVar[str] = ""
    # attributes the browser shows (a change is sent)
    SHOWN: ClassVar[frozenset[str]] = frozenset({"visible", "css_classes"})
    ALIASES: ClassVar[dict[str, str]] = {}

    def __init__(self, bar: Bar, key: str, **attrs: Any) -> None:
        d = self.__dict__
        d["_bar"] = bar
        d["key"] = key
        d["_watchers"] = {}
        d.setdefault("visible", True)
        d.setdefault("css_classes", [])
        for name, value in attrs.items():
            d[self.ALIASES.get(name, name)] = value
        bar.add(self)

    def __getattr__(self, name: str) -> Any:  # only for the aliases (label -> name)
        alias = type(self).ALIASES.get(name)
        if alias is None:
            raise AttributeError(name)
        return self.__dict__[alias]

    def __setattr__(self, name: str, value: Any) -> None:
        name = self.ALIASES.get(name, name)
        d = self.__dict__
        old = d.get(name, _UNSET)
        d[name] = value
        try:
            same = bool(old == value)
        except Exception:  # (arrays and the like: a change)
            same = False
        if same:
            return
        if name in self.SHOWN:
            self._bar.changed()
        for fn in list(d["_watchers"].get(name, ())):
            fn(Change(name, None if old is _UNSET else old, value))

    def watch(self, fn: Callable[[Change], None], *names: str) -> None:
        """Run ``fn`` when one of ``names`` is set to a new value."""
        for name in names:
            self._watchers.setdefault(self.ALIASES.get(name, name), []).append(fn)

    def classes(self, *base: str) -> str:
        return " ".join([*base, *self.css_classes])

    def hidden(self) -> str:
        return "" if self.visible else " hidden"

    def html(self) -> str:
        raise NotImplementedError

    def state(self) -> Any:
        raise NotImplementedError


class Html(Part):
    """A text of the sidebar (a heading, a note, an error line): ``object`` is its HTML (made
    and escaped on the server)."""

    kind = "html"
    SHOWN = frozenset({"object", "visible", "css_classes"})

    def __init__(self, bar: Bar, key: str, object: str = "", **attrs: Any) -> None:
        super().__init__(bar, key, object=object, **attrs)

    def html(self) -> str:
        return (f'<div class="{e(self.classes("dp-part"))}" data-p="{e(self.key)}"'
                f' id="dpc-{e(self.key)}"{self.hidden()}>{self.object}</div>')

    def state(self) -> Any:
        return [self.object, self.visible]


class Text(Html):
    """The HTML of a group of texts (app/cdf/panes.py ``group``) beside some controls in one
    component; drawn as the text pane it replaces (no part's margins)."""

    def html(self) -> str:
        return (f'<div class="{e(self.classes("dp-text"))}" data-p="{e(self.key)}"'
                f'{self.hidden()}>{self.object}</div>')


class Field(Part):
    """A text field (committed on Enter or when left). ``error`` is the message that makes it
    invalid ('' when valid: aria-invalid and aria-describedby in the browser); ``value_input``
    is the text being typed (what the browser keeps while the student types)."""

    kind = "text"
    SHOWN = frozenset({"value", "name", "disabled", "visible", "error", "css_classes"})
    ALIASES: ClassVar[dict[str, str]] = {"label": "name"}

    def __init__(self, bar: Bar, key: str, *, label: str, value: str = "",
                 decimal: bool = True, **attrs: Any) -> None:
        attrs.setdefault("disabled", False)
        super().__init__(bar, key, name=label, value=value, value_input=value, error="",
                         decimal=decimal, **attrs)

    def html(self) -> str:
        i = f"dpf-{self.key}"
        mode = ' inputmode="decimal"' if self.decimal else ""
        return (f'<div class="{e(self.classes("dp-field"))}" data-p="{e(self.key)}"'
                f'{self.hidden()}><label for="{i}">{e(self.name)}</label>'
                f'<input id="{i}" type="text" value="{e(self.value)}" autocomplete="off"'
                f' spellcheck="false"{mode}{" disabled" if self.disabled else ""}>'
                f'<span class="dp-field-desc" id="{i}-desc" hidden></span></div>')

    def state(self) -> Any:
        return [self.value, self.disabled, self.visible, self.error]

    def fixed(self) -> Any:
        return self.name


class Choice(Part):
    """A select: ``options`` label -> value; the browser holds the label (as Panel's select
    did) and sends it back; ``value`` is the value."""

    kind = "select"
    SHOWN = frozenset({"value", "options", "name", "disabled", "visible", "css_classes"})
    ALIASES: ClassVar[dict[str, str]] = {"label": "name"}

    def __init__(self, bar: Bar, key: str, *, label: str, options: dict[str, Any],
                 value: Any = None, **attrs: Any) -> None:
        attrs.setdefault("disabled", False)
        super().__init__(bar, key, name=label, options=dict(options), value=value, **attrs)

    def shown(self) -> str:
        """The label of the value (the first option when the value is not one)."""
        for label, v in self.options.items():
            if v == self.value:
                return str(label)
        return next(iter(self.options), "")

    def html(self) -> str:
        i = f"dpf-{self.key}"
        now = self.shown()
        opts = "".join(f'<option value="{e(k)}"{" selected" if k == now else ""}>{e(k)}</option>'
                       for k in self.options)
        return (f'<div class="{e(self.classes("dp-field"))}" data-p="{e(self.key)}"'
                f'{self.hidden()}><label for="{i}">{e(self.name)}</label>'
                f'<select id="{i}"{" disabled" if self.disabled else ""}>{opts}</select></div>')

    def state(self) -> Any:
        return [self.shown(), self.disabled, self.visible]

    def fixed(self) -> Any:
        return [self.name, [str(k) for k in self.options]]


class Check(Part):
    """A checkbox with its label."""

    kind = "check"
    SHOWN = frozenset({"value", "name", "disabled", "visible", "css_classes"})
    ALIASES: ClassVar[dict[str, str]] = {"label": "name"}

    def __init__(self, bar: Bar, key: str, *, label: str, value: bool = False,
                 **attrs: Any) -> None:
        attrs.setdefault("disabled", False)
        super().__init__(bar, key, name=label, value=bool(value), **attrs)

    def html(self) -> str:
        i = f"dpf-{self.key}"
        return (f'<div class="{e(self.classes("dp-check"))}" data-p="{e(self.key)}"'
                f'{self.hidden()}><input id="{i}" type="checkbox"'
                f'{" checked" if self.value else ""}{" disabled" if self.disabled else ""}>'
                f'<label for="{i}">{e(self.name)}</label></div>')

    def state(self) -> Any:
        return [self.value, self.disabled, self.visible]

    def fixed(self) -> Any:
        return self.name


class Action(Part):
    """A button: each click adds one to ``clicks`` (its watchers run: :meth:`on_click`);
    ``primary`` filled with the accent colour, ``light`` grey without a frame."""

    kind = "button"
    SHOWN = frozenset({"name", "disabled", "visible", "css_classes"})
    ALIASES: ClassVar[dict[str, str]] = {"label": "name"}

    def __init__(self, bar: Bar, key: str, *, label: str, primary: bool = False,
                 light: bool = False, **attrs: Any) -> None:
        attrs.setdefault("disabled", False)
        super().__init__(bar, key, name=label, clicks=0, primary=primary, light=light, **attrs)

    def on_click(self, fn: Callable[[Any], None]) -> None:
        self.watch(fn, "clicks")

    def html(self) -> str:
        cls = ("dp-btn dp-btn-primary" if self.primary
               else "dp-btn dp-btn-light" if self.light else "dp-btn")
        return (f'<div class="{e(self.classes("dp-action"))}" data-p="{e(self.key)}"'
                f'{self.hidden()}><button type="button" class="{cls}"'
                f'{" disabled" if self.disabled else ""}>{e(self.name)}</button></div>')

    def state(self) -> Any:
        return [self.disabled, self.visible]

    def fixed(self) -> Any:
        return self.name


class Radio(Choice):
    """Options side by side, one chosen (radio buttons drawn as a row of buttons; arrow keys
    move the choice). As a :class:`Choice`, the browser holds the label and sends it back."""

    kind = "radio"

    def html(self) -> str:
        i = f"dpf-{self.key}"
        now = self.shown()
        dis = " disabled" if self.disabled else ""
        opts = "".join(f'<label class="dp-seg"><input type="radio" name="{i}" value="{e(k)}"'
                       f'{" checked" if k == now else ""}{dis}><span>{e(k)}</span></label>'
                       for k in self.options)
        return (f'<div class="{e(self.classes("dp-radios"))}" data-p="{e(self.key)}"'
                f' role="radiogroup" aria-label="{e(self.name)}"{self.hidden()}>{opts}</div>')


class Slider(Part):
    """A slider of whole steps (a range input; arrow keys, Home, End, Page keys move it).
    Each step the browser makes is sent at once (``value``, as Panel's IntSlider did); its
    value is shown after the label unless ``show_value`` is off."""

    kind = "range"
    SHOWN = frozenset({"value", "name", "disabled", "visible", "start", "end", "show_value",
                       "css_classes"})
    ALIASES: ClassVar[dict[str, str]] = {"label": "name"}

    def __init__(self, bar: Bar, key: str, *, label: str, start: int, end: int, value: int,
                 **attrs: Any) -> None:
        attrs.setdefault("disabled", False)
        attrs.setdefault("show_value", True)
        super().__init__(bar, key, name=label, start=start, end=end, value=value, **attrs)

    def html(self) -> str:
        i = f"dpf-{self.key}"
        shown = str(self.value) if self.show_value else ""
        # "noUi-handle": the class of the Panel slider's handle this replaces, kept for outside
        # checks (as the ε slider's, app/cdf/sidebar.py); the tests find it as a range input
        return (f'<div class="{e(self.classes("dp-slider", "dp-slider-inline"))}"'
                f' data-p="{e(self.key)}" data-live="1"{self.hidden()}>'
                f'<label for="{i}">{e(self.name)}</label><span aria-hidden="true">: </span>'
                f'<output class="dp-slider-value" for="{i}">{e(shown)}</output>'
                f'<input id="{i}" class="noUi-handle" type="range" min="{self.start:d}"'
                f' max="{self.end:d}" step="1" value="{self.value:d}"'
                f'{" disabled" if self.disabled else ""}></div>')

    def state(self) -> Any:
        return [self.value, self.disabled, self.visible, self.start, self.end, self.show_value]

    def fixed(self) -> Any:
        return self.name

    def slide(self, raw: Any) -> None:
        """A step from the browser (``raw`` the position)."""
        x = float(raw)
        if not math.isfinite(x) or self.disabled:
            return
        self.value = int(min(max(round(x), self.start), self.end))


def route(bar: Bar, msg: dict[str, Any], notes: dict[str, Any] | None = None) -> None:
    """One message from the browser into the part of ``bar`` it names (``notes``: control ->
    its :class:`app.cdf.widgets.SettleNote`). Anything malformed is ignored (logged)."""
    kind, c, v = msg.get("k"), msg.get("c"), msg.get("v")
    n = msg.get("n")
    if isinstance(n, int) and not isinstance(n, bool) and n > bar.ack:
        bar.ack = n
    notes = notes or {}
    part = bar.by_key.get(c) if isinstance(c, str) else None
    if kind == "settle" and c in notes:
        notes[c]._handle_msg({"kind": "settle", "value": v})
    elif part is None:
        log.info("cdf: a control message was ignored: %r", msg)
    elif kind == "text" and part.kind == "text" and isinstance(v, str):
        part.value = v[:10_000]
    elif kind == "select" and isinstance(part, Choice) and isinstance(v, str):
        if v in part.options:
            part.value = part.options[v]
    elif kind == "check" and part.kind == "check" and isinstance(v, bool):
        part.value = v
    elif kind == "click" and part.kind == "button" and not part.disabled and part.visible:
        part.clicks += 1
    elif (kind == "slide" and part.kind == "range" and isinstance(v, int | float)
          and not isinstance(v, bool)):
        part.slide(v)
    else:
        log.info("cdf: a control message was ignored: %r", msg)
