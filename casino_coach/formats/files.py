"""Writing files so that nothing is ever half-written: write a temporary file, then rename it."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from casino_coach.errors import OutputError


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (the file is either the old one or the new one).

    A symbolic link is written through (its target gets the new content, the link stays); anything
    that is not a regular file (a folder, a device, a pipe) is refused with OutputError, never
    replaced. A missing folder is not made (a mistyped one would swallow the file):
    FileNotFoundError, which a caller that goes on after a failed save (play) reports as such."""
    target = _writable(path)
    folder = target.parent
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, _no_folder(folder), str(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as e:
        raise _named(e, path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        # mkstemp makes the file private (0600); give it the mode a plain open() would have.
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise _named(e, path) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _named(e: OSError, path: str | Path) -> OSError:
    """The error ``e`` met on the temporary file, told of the file asked for (the temporary one's
    name, ``/out/.game.md.b25lfzwd``, means nothing to the person who asked)."""
    return OSError(e.errno, e.strerror or str(e), str(path))


def check_target(path: str | Path, reads: Sequence[str | Path] = ()) -> Path:
    """The file that writing ``path`` would replace (a symbolic link's target); OutputError when it
    is a folder, a device or a pipe, when its folder does not exist or takes no new file (a file is
    made there and removed again, as the write will), or when it is one of the files the command
    ``reads`` (an export over the log it analyses would lose the log). Commands call it before their
    work, so that a bad ``--out`` fails at once."""
    target = _writable(path)
    if not target.parent.is_dir():
        raise OutputError(f"{path}: cannot write the output there: {_no_folder(target.parent)}")
    for source in reads:
        if target.exists() and Path(source).exists() and os.path.samefile(target, source):
            raise OutputError(f"{path}: that is the file being read; name another file for the output")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as e:
        raise OutputError(f"{path}: cannot write the output there: {e.strerror or e}") from None
    os.close(fd)
    Path(probe).unlink(missing_ok=True)
    return target


def _no_folder(folder: Path) -> str:
    if folder.exists():
        return f"{folder} is not a folder"
    return f"the folder {folder} does not exist"


def _writable(path: str | Path) -> Path:
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
