"""Modules imported on first use: numpy, which only the batch forms and the columnar view need.

Importing numpy costs about 65 ms, a fifth of a small `kschedctl schedule`, which runs node by
node and never touches an array (backend/cache/columnar.py: a snapshot has a columnar view from
``COLUMNAR_MIN_NODES`` nodes on). Modules that use numpy import it from here::

    from kschedctl.lazy import numpy as np

``np`` is a stand-in module: the first attribute read imports numpy and copies its namespace
into the stand-in, so later reads (``np.zeros``, ``np.int64``) are plain module look-ups, as
fast as on numpy itself. Type checkers see numpy (the ``TYPE_CHECKING`` import below), so
``np.ndarray`` in annotations is checked as usual; with ``from __future__ import annotations``
an annotation never reads the stand-in.

``loaded("numpy")`` says whether some code has imported numpy, without importing it: a value
can only be a numpy scalar if numpy is loaded (runtime/guard.py's ``is_int``). ``quiet_log``
does the same for logging (about 4 ms to import, with ``string`` and ``traceback``): kschedctl
logs only below WARNING, and no run configures logging.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from typing import TYPE_CHECKING, Any, Literal


class LazyModule(types.ModuleType):
    """A module that imports the real one (same name) when an attribute is first read;
    ``environ`` holds environment defaults set (where unset) just before that import."""

    def __init__(self, name: str, environ: dict[str, str] | None = None) -> None:
        super().__init__(name)
        self.__dict__["_lazy_environ"] = dict(environ or {})

    def __getattr__(self, name: str) -> Any:
        # Only reached for names not yet in this module's namespace: the first read, and
        # names the real module resolves lazily itself (numpy's own __getattr__).
        if self.__name__ not in sys.modules:
            for key, value in self.__dict__.get("_lazy_environ", {}).items():
                os.environ.setdefault(key, value)
        module = importlib.import_module(self.__name__)
        if "__file__" not in self.__dict__:
            namespace = dict(module.__dict__)
            namespace.pop("__getattr__", None)
            self.__dict__.update(namespace)
        return getattr(module, name)

    def __dir__(self) -> list[str]:
        return dir(importlib.import_module(self.__name__))


def loaded(name: str) -> types.ModuleType | None:
    """The module if it has been imported (by anyone), else None; never imports it."""
    return sys.modules.get(name)


def quiet_log(logger: str, level: Literal["debug", "info"], message: str, *args: object, exc_info: bool = False) -> None:
    """``logging.getLogger(logger).<level>(message, *args)``, only once some code has imported
    logging. Until then nothing can have given a logger a handler or a lower level, so a debug
    or info record would meet the root's WARNING and go nowhere: skipping it is the same, and
    spares every run the import. A program (or a test) that configures logging has imported it."""
    logging = loaded("logging")
    if logging is not None:
        getattr(logging.getLogger(logger), level)(message, *args, exc_info=exc_info)


if TYPE_CHECKING:
    import numpy as numpy
else:
    # kschedctl calls no BLAS routine: one OpenBLAS thread spares the start of a thread pool that
    # spins at import (about 90 ms of CPU on a 2-core machine). A value the user set is kept.
    numpy = LazyModule("numpy", {"OPENBLAS_NUM_THREADS": "1"})

__all__ = ["LazyModule", "loaded", "numpy", "quiet_log"]
