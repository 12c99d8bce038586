"""A command's output files, settled before anything runs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kschedctl.api.outputs import OutputPath


def input_files(paths: Iterable[str | None]) -> list[str]:
    """Every file a command will read among ``paths``, as far as can be told before reading:
    a directory as the loader expands it. A path that cannot be expanded stays as given (reading
    it fails later, with its own message)."""
    from kschedctl.api.errors import InputError
    from kschedctl.cluster.loader import expand_paths

    out: list[str] = []
    for p in paths:
        if not p:
            continue
        try:
            out += expand_paths([p])
        except InputError:
            out.append(p)
    return out


def settle_outputs(outputs: Iterable[tuple[str, str | None]], inputs: Iterable[str | None]) -> dict[str, OutputPath]:
    """The command's outputs (flag, path as given), resolved now, before any plugin code runs (a
    plugin may os.chdir()), and checked (kschedctl/api/outputs.py): none is an input or another
    output, each is a regular file or new. Keyed by flag; a flag not given is left out."""
    from kschedctl.api.outputs import check_outputs, resolve_output

    targets = {flag: resolve_output(given, flag) for flag, given in outputs if given is not None}
    if targets:
        check_outputs(list(targets.values()), input_files(inputs))
    return targets
