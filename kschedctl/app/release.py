"""The emulated release: `--kube-version X.Y` and `--feature-gates` become one KubeVersion,
which the configuration's defaults, the snapshot's remarks and the scheduler all read."""

from __future__ import annotations

from kschedctl.versions import SUPPORTED_VERSIONS, KubeVersion, UnsupportedVersion, parse_version


def release(text: str, feature_gates: str | None = None) -> KubeVersion:
    """The release a command runs as; an empty `--kube-version` is refused (parse_version would
    take it for the default, and an empty flag is a mistake, not a request for the default)."""
    if not text:
        raise UnsupportedVersion(f"unsupported --kube-version '': supported releases are {', '.join(SUPPORTED_VERSIONS)}")
    return parse_version(text, feature_gates)


def cell_release(text: str, feature_gates: str | None) -> KubeVersion:
    """A sweep cell's release: the matrix has checked it when the sweep started (an empty one is
    the default there, as parse_version has it)."""
    return parse_version(text, feature_gates)
