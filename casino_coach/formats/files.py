"""Writing files so that nothing is ever half-written: write a temporary file, then rename it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from casino_coach.errors import OutputError


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (the file is either the old one or the new one).

    A symbolic link is written through (its target gets the new content, the link stays); anything
    that is not a regular file (a folder, a device, a pipe) is refused with OutputError, never
    replaced."""
    target = check_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        # mkstemp makes the file private (0600); give it the mode a plain open() would have.
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_target(path: str | Path) -> Path:
    """The file that writing ``path`` would replace (a symbolic link's target); OutputError when it
    is a folder, a device or a pipe. Commands call it before their work, so that a bad ``--out``
    fails at once."""
    target = Path(path)
    if target.is_symlink():
        target = target.resolve()
    if target.exists() and not target.is_file():
        kind = "a folder" if target.is_dir() else "not a regular file (a device or a pipe)"
        raise OutputError(f"{path}: cannot write the output there: it is {kind}")
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
