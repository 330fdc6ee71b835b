"""Option values coerced without Pydantic where the answer is plain: the command line's start-up.

Typer turns every option's value (the default too) into its type with a Pydantic ``TypeAdapter``:
importing Pydantic alone takes 55-60 ms, as long as importing everything else a command needs to
start, and every command pays it. Yet the values of our options are plain: an ``int`` or a ``float``
written out in digits, a string, a path, a choice of an enum, or lists of them. For those this module
gives the value Typer's adapter gives (``tests/test_cli_conventions.py`` compares the two on every
kind of option and many values), using Typer's own functions for paths and choices; anything else
(a ``1_000``, an ``inf``, a number out of its range, a bad choice) goes to Typer's adapter, so that
the value or the error message stays Typer's word for word.

This leans on Typer's private coercion layer (``typer._coercion``); where it is not there (another
Typer), ``quick_coercion`` says no and every option is coerced by Typer alone, as before.
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args, get_origin

try:
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_choice, coerce_cli_path
except ImportError:  # pragma: no cover - a Typer without this layer: it coerces every value itself
    QUICK = False
else:
    QUICK = True

if TYPE_CHECKING:
    from typer._click import Context
    from typer._coercion import TypeDescriptor
    from typer.core import _TyperParameter
    from typer.models import ParameterInfo

# Numbers as a user types them, short enough that int() and float() read them as Pydantic does
# (Pydantic also takes "+5", " 5", "1_000", "5.0" for an int, "1e3" and "inf" for a float: those go
# to it).
_INT = re.compile(r"-?[0-9]{1,18}")
_FLOAT = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?")

_ASK_TYPER = object()  # not a plain value: Typer's own adapter coerces it


def _plain(value: Any, annotation: Any, info: ParameterInfo, param: Any, ctx: Any) -> Any:
    """``value`` as Typer's adapter would coerce it to ``annotation``, or ``_ASK_TYPER``."""
    if get_origin(annotation) is list:
        if not isinstance(value, list | tuple):
            return _ASK_TYPER
        (item,) = get_args(annotation)
        items = [_plain(v, item, info, param, ctx) for v in value]
        return _ASK_TYPER if any(i is _ASK_TYPER for i in items) else items
    if annotation is str:
        return value if type(value) is str else _ASK_TYPER
    if annotation is int or annotation is float:
        if type(value) is annotation:
            number = value
        elif type(value) is str and (_INT if annotation is int else _FLOAT).fullmatch(value):
            number = annotation(value)
        else:
            return _ASK_TYPER
        if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
            return _ASK_TYPER  # the range's error message is the adapter's
        return number
    if annotation is Path and info.path_type is None and isinstance(value, str | Path):
        # Typer's path check, given the Path it would have made of the string.
        return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        try:
            return coerce_cli_choice(
                value, choices=list(annotation), case_sensitive=info.case_sensitive, ctx=ctx
            )
        except ValueError:
            return _ASK_TYPER  # not a choice: the adapter's message names them
    return _ASK_TYPER


def quick_coercion(descriptor: TypeDescriptor) -> RuntimeParam | None:
    """The runtime coercion of an option or argument: plain values taken here, the rest handed to
    Typer's adapter; None where Typer must do it all (its coercion layer is not there, or the option
    has a parser, clamps its range or opens a file)."""
    info = descriptor.parameter_info
    if not QUICK or info.parser is not None or info.clamp or descriptor.file_annotation is not None:
        return None
    return _Quick(parameter_info=info, annotation=descriptor.annotation)


if QUICK:

    class _Quick(RuntimeParam):
        """Plain values coerced here; the rest, and so every error, by Typer's own adapter."""

        def _coerce_value(self, value: Any, param: _TyperParameter, ctx: Context) -> Any:
            out = _plain(value, self.annotation, self.parameter_info, param, ctx)
            if out is _ASK_TYPER:
                return build_runtime_param(param.type_descriptor)._coerce_value(value, param=param, ctx=ctx)
            return out
