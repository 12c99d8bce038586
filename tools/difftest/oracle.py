"""The real kube-scheduler, through the kschedoracle harness: 1.35.4 (../shared/oracle/README.md)
or 1.36.2 (../shared/oracle136/README.md), one binary per release."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

RELEASES = ("1.35", "1.36")
DEFAULT_RELEASE = "1.35"


def default_oracle(release: str) -> str:
    """KSCHEDORACLE_135 / KSCHEDORACLE_136 (1.35 also reads the older KSCHEDORACLE), else the
    conventional build location /opt/kschedoracle/<135|136>/kschedoracle."""
    tag = release.replace(".", "")
    env = os.environ.get(f"KSCHEDORACLE_{tag}")
    if not env and release == "1.35":
        env = os.environ.get("KSCHEDORACLE")
    return env or f"/opt/kschedoracle/{tag}/kschedoracle"


class OracleError(RuntimeError):
    pass


def check_release(output: dict[str, Any], release: str) -> None:
    """A binary of the other release would make every difference meaningless: its header names
    the kube-scheduler version it was built from (when the build set it; "unknown" otherwise)."""
    version = str(output.get("version") or "unknown")
    if version != "unknown" and not version.lstrip("v").startswith(release + "."):
        raise OracleError(
            f"the oracle is kube-scheduler {version}, not {release}: pass --oracle or set KSCHEDORACLE_{release.replace('.', '')}"
        )


def run(
    oracle: str, mode: str, snapshot: Path, config: Path, gates: str = "", sample: bool = False, timeout: float = 600
) -> dict[str, Any]:
    args = [oracle, "-mode", mode, "-snapshot", str(snapshot), "-config", str(config), "-compact"]
    if sample:
        args.append("-sample")
    if gates:
        args += ["-feature-gates", gates]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise OracleError(f"{' '.join(args[1:])}: exit {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)
