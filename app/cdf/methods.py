"""How /cdf shows each CDF method it lists: one :class:`PageMethod` per name of
``dpcore.cdf.METHODS`` (the dpcore registry's ``listed`` methods, in their order).

Each has its own colour *and* dash (Okabe–Ito colours; colour is never the only signal), the
options the page releases it with, and its texts ``cdf.method.<name>`` and
``cdf.method.<name>.short`` in every app/i18n/cdf.<lang>.json. A method added to the page is
its dpcore entry, one entry here and those two texts (tests/app/cdf/test_cdf_methods.py).
Pure (no Panel): the state reads it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class PageMethod:
    name: str  # a name of dpcore.cdf.METHODS
    colour: str
    dash: str  # a Bokeh/SVG dash name: solid, dashed, dotted, dotdash, dashdot
    #: The options of the page's releases of it (dpcore.cdf.estimate's keywords).
    options: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def label_key(self) -> str:
        return f"cdf.method.{self.name}"

    @property
    def short_key(self) -> str:
        return f"cdf.method.{self.name}.short"


def _register(*looks: PageMethod) -> Mapping[str, PageMethod]:
    out = {m.name: m for m in looks}
    if len(out) != len(looks):
        raise ValueError("a method's look is registered twice")
    return MappingProxyType(out)


REGISTRY: Mapping[str, PageMethod] = _register(
    PageMethod("auto", "#009e73", "dashdot"),
    # PP's degree slider starts at the automatic degree (moving it is post-processing)
    PageMethod("pp", "#0072b2", "solid", MappingProxyType({"degree": "auto"})),
    PageMethod("mp", "#cc79a7", "dotdash"),
    # Okabe-Ito orange #e69f00 darkened: 2.25:1 -> 4.25:1 on white
    PageMethod("hq", "#a86f00", "dashed"),
    PageMethod("aq", "#d55e00", "dotted"),
)
#: (colour, dash) by method, as the figures read it.
STYLE: Mapping[str, tuple[str, str]] = MappingProxyType(
    {m.name: (m.colour, m.dash) for m in REGISTRY.values()})


def release_options(method: str) -> dict[str, object]:
    """The options the page gives ``dpcore.cdf.estimate`` for ``method`` (none for a method
    the page does not list)."""
    look = REGISTRY.get(method)
    return dict(look.options) if look is not None else {}


__all__ = ["REGISTRY", "STYLE", "PageMethod", "release_options"]
