"""The real kube-scheduler 1.35.4, through the kschedoracle harness (see ../shared/oracle/README.md)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

DEFAULT_ORACLE = os.environ.get("KSCHEDORACLE", "/work/oracle/kschedoracle")


class OracleError(RuntimeError):
    pass


def run(oracle: str, mode: str, snapshot: Path, config: Path, gates: str = "", sample: bool = False,
        timeout: float = 600) -> dict[str, Any]:
    args = [oracle, "-mode", mode, "-snapshot", str(snapshot), "-config", str(config), "-compact"]
    if sample:
        args.append("-sample")
    if gates:
        args += ["-feature-gates", gates]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise OracleError(f"{' '.join(args[1:])}: exit {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)
