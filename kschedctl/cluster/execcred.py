"""Exec credential plugins, by client-go's contract (k8s.io/client-go/plugin/pkg/client/auth/exec).

The plugin is run with the user's environment plus the kubeconfig's ``env``, and
KUBERNETES_EXEC_INFO holding an ExecCredential whose ``spec.interactive`` says whether it may
prompt (``interactiveMode``: Never; IfAvailable: when standard input is a terminal; Always:
refused without one) and whose ``spec.cluster`` describes the cluster when
``provideClusterInfo`` is set. It must print an ExecCredential of the very apiVersion it was
configured with (client.authentication.k8s.io/v1 or v1beta1) whose ``status`` holds a token or
a client certificate and key. The credential is kept for the run, until its
``status.expirationTimestamp``.

Unlike client-go, the run is bounded: a plugin that does not finish within the timeout
(KSCHEDCTL_EXEC_TIMEOUT, default 120 s) is killed (its whole process group) and the run fails;
its output is bounded too. Its standard error is passed on to ours, as kubectl does; a failing
plugin fails the run (never an anonymous capture).
"""

from __future__ import annotations

import base64
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kschedctl.cluster.kubeconfig import Cluster, ExecConfig
from kschedctl.cluster.live_errors import LiveClusterError, redact, register_secret

API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
DEFAULT_TIMEOUT = 120.0
MAX_STDOUT = 1024 * 1024
MAX_STDERR = 64 * 1024


@dataclass
class ExecCredential:
    token: str = ""
    cert_data: bytes = b""
    key_data: bytes = b""
    expires: float | None = None  # epoch seconds

    def fresh(self) -> bool:
        return self.expires is None or time.time() < self.expires


class ExecAuthenticator:
    """Runs the plugin when a credential is needed, keeps it until it expires."""

    def __init__(self, config: ExecConfig, cluster: Cluster, user: str, where: str) -> None:
        self.config = config
        self.cluster = cluster
        self.user = user
        self.where = where
        self._cached: ExecCredential | None = None

    def credential(self) -> ExecCredential:
        if self._cached is None or not self._cached.fresh():
            self._cached = self._run()
        return self._cached

    def _fail(self, message: str) -> LiveClusterError:
        return LiveClusterError(f"user {self.user}: exec plugin: {message}", file=self.where)

    def _interactive(self) -> bool:
        mode = self.config.interactive_mode
        if mode == "Never":
            return False
        tty = _stdin_is_terminal()
        if mode == "Always" and not tty:
            raise self._fail("cannot support interactive mode: standard input not a terminal")
        return tty

    def exec_info(self, interactive: bool) -> dict[str, Any]:
        """KUBERNETES_EXEC_INFO: the ExecCredential handed to the plugin."""
        spec: dict[str, Any] = {"interactive": interactive}
        if self.config.provide_cluster_info:
            cluster: dict[str, Any] = {"server": self.cluster.server}
            if self.cluster.tls_server_name:
                cluster["tls-server-name"] = self.cluster.tls_server_name
            if self.cluster.insecure:
                cluster["insecure-skip-tls-verify"] = True
            ca = self.cluster.ca_data or _read_quietly(self.cluster.ca_file)
            if ca:
                cluster["certificate-authority-data"] = base64.b64encode(ca).decode()
            if self.cluster.proxy_url:
                cluster["proxy-url"] = self.cluster.proxy_url
            if self.cluster.disable_compression:
                cluster["disable-compression"] = True
            if self.cluster.exec_extension is not None:
                cluster["config"] = self.cluster.exec_extension
            spec["cluster"] = cluster
        return {"kind": "ExecCredential", "apiVersion": self.config.api_version, "spec": spec}

    def _run(self) -> ExecCredential:
        if self.config.api_version not in API_VERSIONS:
            raise self._fail(f"invalid apiVersion {self.config.api_version!r} (kschedctl and client-go take {' and '.join(API_VERSIONS)})")
        interactive = self._interactive()
        env = dict(os.environ)
        env.update(dict(self.config.env))
        env["KUBERNETES_EXEC_INFO"] = json.dumps(self.exec_info(interactive), separators=(",", ":"))
        timeout = exec_timeout()
        argv = [self.config.command, *self.config.args]
        try:
            proc = subprocess.Popen(
                argv,
                env=env,
                stdin=None if interactive else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=None if interactive else subprocess.PIPE,
                start_new_session=not interactive,
            )
        except FileNotFoundError:
            hint = " ".join(self.config.install_hint.split())
            raise self._fail(f"executable {self.config.command} not found" + (f": {hint}" if hint else "")) from None
        except OSError as exc:
            raise self._fail(f"cannot run {self.config.command}: {exc.strerror or exc}") from None
        stdout, stderr, timed_out = _collect(proc, timeout, not interactive)
        if stderr:
            sys.stderr.write(redact(stderr.decode("utf-8", "replace")))  # the plugin's own words, as kubectl
            sys.stderr.flush()
        if timed_out:
            raise self._fail(f"{self.config.command} did not finish within {timeout:g}s and was killed (KSCHEDCTL_EXEC_TIMEOUT)")
        if proc.returncode != 0:
            raise self._fail(f"executable {self.config.command} failed with exit code {proc.returncode}")
        return self._decode(stdout)

    def _decode(self, stdout: bytes) -> ExecCredential:
        from kschedctl.api.json_decoding import DecodeError, load_json

        try:
            doc = load_json(stdout.decode("utf-8"))
        except (UnicodeDecodeError, DecodeError):
            raise self._fail("decoding stdout: not an ExecCredential in JSON") from None
        if not isinstance(doc, dict):
            raise self._fail("decoding stdout: not an ExecCredential in JSON")
        status = doc.get("status")
        if isinstance(status, dict):  # whatever else is wrong, never echo what it holds
            for key in ("token", "clientKeyData", "clientCertificateData"):
                if isinstance(status.get(key), str):
                    register_secret(status[key])
        if doc.get("kind") != "ExecCredential":
            raise self._fail(f"decoding stdout: kind {_shown(doc.get('kind'))}, expected ExecCredential")
        if doc.get("apiVersion") != self.config.api_version:
            raise self._fail(
                f"exec plugin is configured to use API version {self.config.api_version}, plugin "
                f"returned version {_shown(doc.get('apiVersion'))}"
            )
        if not isinstance(status, dict):
            raise self._fail("exec plugin didn't return a status field")
        token, cert, key = (status.get(k) or "" for k in ("token", "clientCertificateData", "clientKeyData"))
        if not all(isinstance(v, str) for v in (token, cert, key)):
            raise self._fail("status.token, clientCertificateData and clientKeyData must be strings")
        if not token and not cert and not key:
            raise self._fail("exec plugin didn't return a token or cert/key pair")
        if bool(cert) != bool(key):
            raise self._fail("exec plugin returned only certificate or key, not both")
        return ExecCredential(token, cert.encode(), key.encode(), self._expiry(status.get("expirationTimestamp")))

    def _expiry(self, value: Any) -> float | None:
        if value in (None, ""):
            return None
        if not isinstance(value, str):
            raise self._fail("status.expirationTimestamp must be an RFC 3339 time string")
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise self._fail(f"status.expirationTimestamp {value[:40]!r} is not an RFC 3339 time") from None
        return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def exec_timeout(environ: Mapping[str, str] | None = None) -> float:
    env = os.environ if environ is None else environ
    text = env.get("KSCHEDCTL_EXEC_TIMEOUT", "")
    try:
        value = float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        value = -1.0
    if not value > 0:
        raise LiveClusterError(f"KSCHEDCTL_EXEC_TIMEOUT={text!r}: expected a positive number of seconds")
    return value


def _collect(proc: subprocess.Popen[bytes], timeout: float, own_group: bool) -> tuple[bytes, bytes, bool]:
    """stdout and stderr, each bounded, until the plugin exits or the timeout passes (then killed)."""
    deadline = time.monotonic() + timeout
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    for stream, buf, cap in ((proc.stdout, out, MAX_STDOUT), (proc.stderr, err, MAX_STDERR)):
        if stream is not None:
            sel.register(stream, selectors.EVENT_READ, (buf, cap))
    timed_out = False
    try:
        while sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in sel.select(min(remaining, 0.5)):
                data = os.read(key.fd, 65536)
                buf, cap = key.data
                if not data:
                    sel.unregister(key.fileobj)
                elif len(buf) < cap:
                    buf.extend(data[: cap - len(buf)])
        if not timed_out:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        sel.close()
        if timed_out or proc.poll() is None:
            _kill(proc, own_group)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    return bytes(out), bytes(err), timed_out


def _kill(proc: subprocess.Popen[bytes], own_group: bool) -> None:
    with suppress(OSError):
        if own_group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    with suppress(subprocess.TimeoutExpired):
        proc.wait(5)


def _stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def _read_quietly(path: str) -> bytes:
    if not path:
        return b""
    try:
        with open(path, "rb") as fh:
            return fh.read(1024 * 1024)
    except OSError:
        return b""


def _shown(value: Any) -> str:
    return repr(value[:60]) if isinstance(value, str) else "missing" if value is None else type(value).__name__


__all__ = ["API_VERSIONS", "ExecAuthenticator", "ExecCredential", "exec_timeout"]
