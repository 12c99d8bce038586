"""Which failures are the user's input (bad files, flags, configurations: one `error:` line,
exit 2; a sweep cell's error) rather than a fault of kschedctl."""

from __future__ import annotations


def input_errors() -> tuple[type[Exception], ...]:
    """InputError (files, objects, fields), FrameworkError (a profile kube-scheduler would not
    build), UnsupportedVersion (the release or gates). Imported when first asked for: the
    framework's module is not needed to print `--help`."""
    from kschedctl.api.errors import InputError
    from kschedctl.runtime.multipoint import FrameworkError
    from kschedctl.versions import UnsupportedVersion

    return (InputError, FrameworkError, UnsupportedVersion)
