"""Errors that carry a message key and fields, so the app and the CLI can translate them.

Every input error dpcore's checks raise is a :class:`DPError`: a ``ValueError`` whose ``str()``
is a plain English sentence (for Python users and logs) and whose ``key`` / ``fields`` name the
same message in the app's catalogues (``app/i18n/errors.<lang>.json`` holds ``err.<key>``), so
a front end translates it with one format call: ``t("err." + exc.key, lang, **exc.fields)``.
``fields`` are strings and numbers only; ``name`` is the parameter's name as dpcore spells it.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ENGLISH", "DPError", "FieldValue", "fmt_value"]

#: The type of a message field: a string or a number.
FieldValue = int | float | str

_ALLOWED = {
    "interval": "a finite number in {left}{lo}, {hi}{right}",
    "lo": "a finite number {op} {lo}",
    "hi": "a finite number {op} {hi}",
    "any": "a finite number",
    "whole": "a whole number >= {lo}",
}
_KINDS = {
    "out_of_range": "{name} must be {allowed} (got {value})",
    "not_number": "{name} must be {allowed} (got {value}, which is not a number)",
    "bool": "{name} must be {allowed} (got {value}: True and False are not numbers here)",
    "too_large": "{name} must be {allowed} (got {value}, too large for a double)",
}

#: English text of every key (the app's English catalogue holds the same texts as err.<key>).
#: Input checks use composite keys "<kind>.<allowed>", e.g. "out_of_range.interval", so each
#: message is one flat template that any front end fills with a single format call.
ENGLISH: dict[str, str] = {
    f"{kind}.{allowed}": text.replace("{allowed}", set_text)
    for kind, text in _KINDS.items() for allowed, set_text in _ALLOWED.items()
}
ENGLISH.update({
    "query": "query must be one of {choices} (got {value})",
    "data_list": "data must be a non-empty list of numbers in [0, B]",
    "record_index": "record index must be between 0 and {hi} (got {value})",
    "claim_text": "claimed delta must be a number in [0, 1] (got {value})",
    "data_not_numbers": "data must contain only numbers (found the non-numeric value {value})",
    "data_1d": "data must be one-dimensional (got an array of shape {shape})",
    "data_too_few": "data must contain at least 2 values (got {count}); one value has no "
                    "distribution",
    "data_not_finite": "data must contain only finite numbers (found {count} NaN or infinite "
                       "values)",
    "rng": "rng must be None, a whole-number seed or a numpy Generator (got {value})",
    "with_degree": "with_degree is only available for method 'pp' (this is '{method}')",
    "bounds_pair": "bounds must be a pair (lo, hi) of finite numbers with lo < hi (got {value})",
    "bounds_order": "bounds must satisfy lo < hi (got lo={lo}, hi={hi})",
    "bounds_width": (
        "bounds are too far apart: hi - lo = {hi} - ({lo}) overflows a double; choose bounds "
        "whose width is below 1.8e308"
    ),
    # results that do not fit in a double
    "h_too_big": (
        "sensitivity/sigma = 10^{log10} is not a finite double: sigma is too small for this "
        "sensitivity"
    ),
    "h_underflow": (
        "this target needs sensitivity/sigma below 10^{log10}, under the smallest double "
        "(4.9e-324): no double sigma can be certified for it"
    ),
    "ln_delta_below_range": (
        "ln(delta) is below -1.8e308, beyond what a double can hold: sensitivity/sigma is too "
        "small for this epsilon (choose a larger sensitivity/sigma ratio or a smaller epsilon)"
    ),
    "sigma_overflow": (
        "the smallest sigma is about 10^{log10}, which exceeds the double range (largest double "
        "1.8e308): it cannot be given as a double"
    ),
    "sigma_underflow": (
        "the smallest sigma is about 10^{log10}, below the smallest normal double (2.2e-308): it "
        "cannot be given as a double"
    ),
})


def fmt_value(value: object) -> str:
    """A short, safe rendering of a rejected input for a message (no huge reprs)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        s = str(value)
        return s if len(s) <= 24 else f"{s[:6]}...({len(s)} digits)"
    s = repr(value)
    return s if len(s) <= 40 else s[:37] + "..."


def _plain(v: object) -> int | float | str:
    return v if isinstance(v, (int, float, str)) and not isinstance(v, bool) else str(v)


class DPError(ValueError):
    """A ValueError with a catalogue ``key`` and format ``fields`` (strings and numbers)."""

    def __init__(self, key: str, **fields: object) -> None:
        self.key = key
        self.fields: dict[str, FieldValue] = {k: _plain(v) for k, v in fields.items()}
        super().__init__(ENGLISH[key].format(**self.fields))

    def __reduce__(  # picklable (keyword-only constructor)
        self,
    ) -> tuple[Callable[[str, dict[str, FieldValue]], DPError], tuple[str, dict[str, FieldValue]]]:
        return (_rebuild, (self.key, self.fields))


def _rebuild(key: str, fields: dict[str, FieldValue]) -> DPError:
    return DPError(key, **fields)
