"""Build hook: compile the hot modules with mypyc when this machine can, else ship them as Python.

The compiled and the pure modules are the same files (``modules`` in ``pyproject.toml``, chosen by
profile). A wheel (``pip install .``, ``pip wheel .``, ``python -m build``) tries to compile them; when
the C compiler or the Python headers are missing, or the compile fails for any other reason, it says so
in one line and builds the pure wheel instead. An editable install (``pip install -e .``) is always
pure: the sources are imported from the checkout, so no compiled copy can shadow an edited file.
Set ``CASINO_COACH_PURE=1`` to build a pure wheel on a machine that could compile.

The line saying which build was made goes to stderr (``python -m build`` shows it; ``pip`` shows it
with ``-v``); ``casino-coach --version`` tells an installed copy's build.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _say(text: str) -> None:
    print(f"casino-coach build: {text}", file=sys.stderr, flush=True)


def _reason(exc: Exception) -> str:
    """One short line for why the compile failed."""
    if type(exc).__name__ in ("CompileError", "LinkError", "DistutilsExecError", "CCompilerError"):
        cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
        return f"the C compiler {cc!r} failed"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


class CompileHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            _say("pure Python (an editable install imports the sources as they are)")
            return
        if os.environ.get("CASINO_COACH_PURE", "") not in ("", "0"):
            _say("pure Python (CASINO_COACH_PURE is set)")
            return
        modules: list[str] = list(self.config.get("modules", []))
        self._work = Path(tempfile.mkdtemp(prefix="casino-coach-mypyc-"))
        try:
            built = self._compile(modules)
        except Exception as exc:  # any failure at all: the pure wheel is always a correct fallback
            _say(f"pure Python (could not compile with mypyc: {_reason(exc)})")
            return
        for path, target in built.items():
            build_data["force_include"][str(path)] = target
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        _say(f"compiled with mypyc ({len(modules)} modules)")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "_work", None)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)

    def _compile(self, modules: list[str]) -> dict[Path, str]:
        """Compile ``modules`` (paths relative to the project root) into the work folder; return each
        built extension with its path inside the wheel."""
        if not Path(sysconfig.get_paths()["include"], "Python.h").exists():
            raise RuntimeError("no Python headers (Python.h) on this machine")
        from mypyc.build import mypycify
        from setuptools import Distribution

        here = os.getcwd()
        os.chdir(self.root)
        try:
            extensions = mypycify(modules, opt_level="3", target_dir=str(self._work / "c"))
            dist = Distribution({"name": "casino-coach", "ext_modules": extensions})
            cmd = dist.get_command_obj("build_ext")
            cmd.build_lib = str(self._work / "lib")  # type: ignore[attr-defined]
            cmd.build_temp = str(self._work / "temp")  # type: ignore[attr-defined]
            cmd.parallel = os.cpu_count() or 1  # type: ignore[attr-defined]
            cmd.ensure_finalized()
            cmd.run()
        finally:
            os.chdir(here)
        lib = self._work / "lib"
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = {p: p.relative_to(lib).as_posix() for p in lib.rglob(f"*{suffix}")}
        missing = {m.removesuffix(".py") + suffix for m in modules} - set(built.values())
        if missing:
            raise RuntimeError(f"mypyc built no extension for {', '.join(sorted(missing))}")
        return built
