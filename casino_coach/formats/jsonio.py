"""The one JSON reader of every input: logs, positions, engine lines, option values.

A document is refused with one clear line when it is not JSON, when it nests deeper than
``MAX_DEPTH`` arrays and objects (no format of casino_coach nests more than six; a deeper document
would only make the checks that follow recurse without bound), or when it is longer than
``MAX_BYTES`` (a long game's log is some hundred kilobytes; a file read whole past that, or a device
that never ends, would only fill the memory).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from casino_coach.errors import LogError

MAX_DEPTH = 32
MAX_BYTES = 32 << 20


def depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deep ``value`` nests arrays and objects (a scalar is 0); stops counting past ``limit``."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            children: Any = v.values()
        elif isinstance(v, list):
            children = v
        else:
            continue
        deepest = max(deepest, d)
        if d > limit:
            break
        stack.extend((c, d + 1) for c in children)
    return deepest


def read_bytes(path: str | Path, error: type[Exception] = LogError) -> bytes:
    """The bytes of the file ``path``, read to at most MAX_BYTES; ``error`` past that."""
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise error(f"longer than {MAX_BYTES >> 20} MB: not a casino_coach document")
    return data


def loads(data: bytes | str, error: type[Exception] = LogError) -> Any:
    """The JSON value of ``data``; ``error`` (a CoachError class) when it is not JSON, nests too
    deep or is longer than MAX_BYTES."""
    if len(data) > MAX_BYTES:
        raise error(f"longer than {MAX_BYTES >> 20} MB: not a casino_coach document")
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        # orjson's "str is not valid UTF-8: surrogates not allowed" says little to a person
        what = "not UTF-8 text (a binary file, or another encoding?)" if "UTF-8" in e.msg else e.msg
        raise error(f"bad JSON at line {e.lineno}, column {e.colno}: {what}") from None
    if depth(value) > MAX_DEPTH:
        raise error(f"JSON nested more than {MAX_DEPTH} levels deep")
    return value
