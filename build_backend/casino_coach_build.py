"""The package's build backend: maturin's, saying on the terminal that it compiles the native core.

pip shows a build backend's output only with ``-v``, so a source install sat for a minute or two at
"Building wheel for casino-coach" with no word of the Rust compiler at work (issue 42). Before a
wheel or an editable install is built, this says so in one line on the terminal that runs pip (its
controlling terminal, ``/dev/tty``), or on standard error where there is none (pip ``-v`` shows it).
Everything else is maturin's own backend, unchanged.
"""

from __future__ import annotations

import sys
from typing import Any

import maturin
from maturin import (  # noqa: F401 - the other hooks of PEP 517 and 660, as maturin has them
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

SAYING = (
    "casino-coach: compiling the native core in Rust, a minute or two (pip install -v shows the compiler)"
)


def _say() -> None:
    try:
        with open("/dev/tty", "w", encoding="utf-8") as tty:
            tty.write(f"\n{SAYING}\n")
    except OSError:
        print(SAYING, file=sys.stderr, flush=True)


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    _say()
    return str(maturin.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    _say()
    return str(maturin.build_editable(wheel_directory, config_settings, metadata_directory))
