"""No Panel 2.0 deprecation in our code: widgets take ``label`` (not ``name``), buttons ``color``
and ``variant`` (not ``button_type`` and ``button_style``).

Two guards: pyproject.toml turns Panel's PendingDeprecationWarning into an error when it is
attributed to a module of ``app`` (Panel names the first caller outside Panel and param), and
the source of ``app/`` is read here, so a widget built on a path no other test runs cannot
bring the old names back either.
"""

from __future__ import annotations

import ast
import importlib
import types
from pathlib import Path
from typing import Any

import panel as pn
import pytest

APP = Path(__file__).resolve().parents[3] / "app"
OLD_BUTTON_NAMES = ("button_type", "button_style")


def _dotted(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _resolve(module: types.ModuleType, dotted: list[str]) -> Any:
    obj: Any = module
    for part in dotted:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def old_names(package: Path) -> list[str]:
    """file:line and what it uses, for each widget made with ``name=`` and each use of
    ``button_type`` / ``button_style`` (a keyword or an attribute set) in ``package`` (a
    directory on sys.path, its modules imported to know which calls make widgets)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent)
        module = importlib.import_module(".".join(rel.with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                words = {k.arg for k in node.keywords}
                for old in OLD_BUTTON_NAMES:
                    if old in words:
                        found.append(f"{rel}:{node.lineno}: {old}=")
                dotted = _dotted(node.func)
                target = _resolve(module, dotted) if dotted else None
                if ("name" in words and isinstance(target, type)
                        and issubclass(target, pn.widgets.Widget)):
                    found.append(f"{rel}:{node.lineno}: {target.__name__}(name=...)")
            elif isinstance(node, ast.Assign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Attribute) and t.attr in OLD_BUTTON_NAMES:
                        found.append(f"{rel}:{node.lineno}: .{t.attr} = ...")
    return sorted(found)


def test_app_uses_panel_2_names() -> None:
    assert old_names(APP) == []


def test_the_source_check_finds_the_old_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    pkg = tmp_path / "dplab_old_names"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "old.py").write_text("import threading\n\n"
                                "import panel as pn\n\n"
                                "def make():\n"
                                "    b = pn.widgets.Button(name='x', button_type='primary')\n"
                                "    b.button_style = 'outline'\n"
                                "    threading.Thread(name='not a widget')\n"
                                "    return pn.widgets.Toggle(label='new name')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert old_names(pkg) == ["dplab_old_names/old.py:6: Button(name=...)",
                              "dplab_old_names/old.py:6: button_type=",
                              "dplab_old_names/old.py:7: .button_style = ..."]


def _module(name: str, source: str) -> types.ModuleType:
    """A module named ``name`` whose code is ``source`` (Panel attributes its warnings to it)."""
    mod = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), mod.__dict__)
    return mod


def test_a_panel_2_deprecation_in_app_code_is_an_error() -> None:
    # pyproject.toml's filterwarnings: what would print a warning is a failing test.
    old = _module("app._old_names", "import panel as pn\n"
                                    "def make():\n"
                                    "    return pn.widgets.Button(name='x')\n")
    with pytest.raises(PendingDeprecationWarning, match=r"Widget\.name is deprecated"):
        old.make()
    new = _module("app._new_names", "import panel as pn\n"
                                    "def make():\n"
                                    "    return pn.widgets.Button(label='x', color='primary',"
                                    " variant='outline')\n")
    b = new.make()
    # the old names still read the same (tests and Panel's own code read them)
    assert (b.name, b.button_type, b.button_style) == ("x", "primary", "outline")
