"""An envtest-style control plane for tests: etcd, kube-apiserver and kube-scheduler from binaries.

controller-runtime's envtest starts the real etcd and kube-apiserver from KUBEBUILDER_ASSETS; this
does the same from ``$KSCHEDCTL_TEST_ASSETS`` (``etcd``, ``kube-apiserver``, ``kube-scheduler``), so
that capture and the live commands are tested against the server they are written for, not only
against tests/live's fake one. The project never downloads nor builds these binaries: without the
variable the tests skip.

Everything listens on 127.0.0.1 on free ports, lives in one temporary directory (certificates,
tokens, etcd's data: removed at the end), starts within a deadline and is killed by process group
on every exit path (the fixture's teardown, and atexit should the run itself be interrupted).
"""

from __future__ import annotations

import atexit
import base64
import datetime
import ipaddress
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ASSETS_ENV = "KSCHEDCTL_TEST_ASSETS"
BINARIES = ("etcd", "kube-apiserver")
START_DEADLINE = 90.0  # seconds for a component to become ready (a cold start on a loaded machine)
REQUEST_TIMEOUT = 15.0
# admission plugins that would change what was loaded: the node taints TaintNodesByCondition adds
# (no node lifecycle controller clears them), tolerations DefaultTolerationSeconds adds, the
# priority Priority resolves (the snapshot's spec.priority is kept as written), the token volume
# ServiceAccount mounts, and the class DefaultStorageClass picks
DISABLED_ADMISSION = ("ServiceAccount", "Priority", "TaintNodesByCondition", "DefaultTolerationSeconds", "DefaultStorageClass")


class EnvError(RuntimeError):
    """The control plane could not be started or loaded; the message says which step and why."""


def assets_dir() -> Path | None:
    """Where the binaries are, or None when the tests are to skip."""
    value = os.environ.get(ASSETS_ENV, "").strip()
    return Path(value) if value else None


def skip_reason() -> str:
    return f"{ASSETS_ENV} is unset: the real-cluster tests need etcd and kube-apiserver binaries in that directory"


def missing_binaries(assets: Path, names: tuple[str, ...] = BINARIES) -> list[str]:
    return [n for n in names if not os.access(assets / n, os.X_OK)]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- certificates and credentials ---


@dataclass
class Credentials:
    """A CA, the server's certificate for 127.0.0.1, the service-account key and static tokens."""

    ca_pem: bytes
    tokens: dict[str, str]  # user name -> token

    @classmethod
    def write(cls, directory: Path, users: dict[str, tuple[str, ...]]) -> "Credentials":
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, rsa
        from cryptography.x509.oid import NameOID

        now = datetime.datetime.now(datetime.UTC)

        def cert(subject: str, key: Any, issuer: Any, issuer_key: Any, ca: bool) -> Any:
            builder = (
                x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                .issuer_name(issuer)
                .public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            )
            if not ca:
                builder = builder.add_extension(
                    x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                    critical=False,
                )
            return builder.sign(issuer_key, hashes.SHA256())

        def pem_key(key: Any) -> bytes:
            return bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))

        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kschedctl-test-ca")])
        ca_cert = cert("kschedctl-test-ca", ca_key, ca_name, ca_key, True)
        server_key = ec.generate_private_key(ec.SECP256R1())
        server_cert = cert("kube-apiserver", server_key, ca_name, ca_key, False)
        sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        ca_pem = ca_cert.public_bytes(serialization.Encoding.PEM)
        _private(directory / "ca.crt", ca_pem)
        _private(directory / "server.crt", server_cert.public_bytes(serialization.Encoding.PEM))
        _private(directory / "server.key", pem_key(server_key))
        _private(directory / "sa.key", pem_key(sa_key))
        tokens = {user: secrets.token_urlsafe(24) for user in users}
        lines = [f"{tokens[u]},{u},uid-{u}" + (f',"{",".join(groups)}"' if groups else "") for u, groups in users.items()]
        _private(directory / "tokens.csv", ("\n".join(lines) + "\n").encode())
        return cls(ca_pem=ca_pem, tokens=tokens)


def _private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


# --- processes ---

_RUNNING: dict[int, subprocess.Popen[bytes]] = {}


def _kill_group(proc: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """SIGTERM the process group the child leads, SIGKILL what is left after grace seconds."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # children the leader left behind, if any
    except (ProcessLookupError, PermissionError):
        pass
    if proc.poll() is None:
        proc.wait(timeout=grace)
    _RUNNING.pop(proc.pid, None)


@atexit.register
def _kill_all() -> None:
    for proc in list(_RUNNING.values()):
        _kill_group(proc, grace=2.0)


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the test process dies, even by SIGKILL (Linux's
    PR_SET_PDEATHSIG), where neither the fixture's teardown nor atexit would run."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _spawn(argv: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_die_with_parent
        )
    _RUNNING[proc.pid] = proc
    return proc


def _log_tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _wait_ready(name: str, proc: subprocess.Popen[bytes], probe: Any, log: Path, deadline: float) -> None:
    """Poll probe() until it returns True; fail when the process exits or the deadline passes."""
    end = time.monotonic() + deadline
    last = ""
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise EnvError(f"{name} exited with {proc.returncode} before it was ready:\n{_log_tail(log)}")
        try:
            if probe():
                return
        except (OSError, urllib.error.URLError, ValueError) as err:
            last = str(err)
        time.sleep(0.3)
    raise EnvError(f"{name} not ready within {deadline:.0f}s ({last}):\n{_log_tail(log)}")


# --- the control plane ---


@dataclass
class ControlPlane:
    """etcd and one kube-apiserver; more apiservers (fresh clusters) can share the etcd."""

    assets: Path
    root: Path
    etcd_url: str = ""
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    clusters: int = 0

    @classmethod
    def start(cls, assets: Path) -> "ControlPlane":
        missing = missing_binaries(assets)
        if missing:
            raise EnvError(f"{ASSETS_ENV}={assets}: missing or not executable: {', '.join(missing)}")
        plane = cls(assets=assets, root=Path(tempfile.mkdtemp(prefix="kschedctl-envtest-")))
        try:
            plane._start_etcd()
        except BaseException:
            plane.stop()
            raise
        return plane

    def _start_etcd(self) -> None:
        client, peer = free_port(), free_port()
        self.etcd_url = f"http://127.0.0.1:{client}"
        log = self.root / "etcd.log"
        argv = [
            str(self.assets / "etcd"),
            f"--data-dir={self.root / 'etcd'}",
            f"--listen-client-urls={self.etcd_url}",
            f"--advertise-client-urls={self.etcd_url}",
            f"--listen-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
            # the one member by name: a stock etcd checks its peer URL against the default
            # cluster (default=http://localhost:2380) otherwise, and refuses to start
            f"--initial-cluster=default=http://127.0.0.1:{peer}",
            "--unsafe-no-fsync",
        ]
        proc = _spawn(argv, log)
        self.procs.append(proc)

        def healthy() -> bool:
            with urllib.request.urlopen(f"{self.etcd_url}/health", timeout=2) as r:
                return bool(json.loads(r.read()).get("health") == "true")

        _wait_ready("etcd", proc, healthy, log, START_DEADLINE)

    def new_cluster(self) -> "Cluster":
        """A kube-apiserver of its own (its own etcd prefix): an empty cluster for one snapshot."""
        self.clusters += 1
        cluster = Cluster(plane=self, directory=self.root / f"cluster-{self.clusters}")
        cluster.directory.mkdir(mode=0o700)
        cluster.start()
        return cluster

    def stop(self) -> None:
        for proc in reversed(self.procs):
            _kill_group(proc)
        self.procs.clear()
        shutil.rmtree(self.root, ignore_errors=True)


ADMIN = "kschedctl-admin"
LIMITED = "kschedctl-limited"  # a user bound to a ClusterRole the test writes


@dataclass
class Cluster:
    """One kube-apiserver and what a client needs: its URL, CA, tokens and kubeconfigs."""

    plane: ControlPlane
    directory: Path
    url: str = ""
    creds: Credentials | None = None
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self) -> None:
        self.creds = Credentials.write(self.directory, {ADMIN: ("system:masters",), LIMITED: ()})
        port = free_port()
        self.url = f"https://127.0.0.1:{port}"
        d = self.directory
        argv = [
            str(self.plane.assets / "kube-apiserver"),
            f"--etcd-servers={self.plane.etcd_url}",
            f"--etcd-prefix=/{d.name}",
            f"--secure-port={port}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--cert-dir={d}",
            f"--tls-cert-file={d / 'server.crt'}",
            f"--tls-private-key-file={d / 'server.key'}",
            f"--token-auth-file={d / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={d / 'sa.key'}",
            f"--service-account-signing-key-file={d / 'sa.key'}",
            "--service-cluster-ip-range=10.96.0.0/24",
            f"--disable-admission-plugins={','.join(DISABLED_ADMISSION)}",
            "--allow-privileged=true",
            "--runtime-config=api/all=true",
            "--endpoint-reconciler-type=none",
            "--v=1",
        ]
        log = d / "kube-apiserver.log"
        proc = _spawn(argv, log)
        self.procs.append(proc)
        self.plane.procs.append(proc)
        _wait_ready("kube-apiserver", proc, lambda: self._get_text("/readyz") == "ok", log, START_DEADLINE)

    @property
    def log(self) -> Path:
        return self.directory / "kube-apiserver.log"

    def stop(self) -> None:
        for proc in self.procs:
            _kill_group(proc)
            if proc in self.plane.procs:
                self.plane.procs.remove(proc)
        self.procs.clear()

    # --- client side ---

    def _ssl(self) -> ssl.SSLContext:
        assert self.creds is not None
        return ssl.create_default_context(cadata=self.creds.ca_pem.decode())

    def _get_text(self, path: str) -> str:
        req = urllib.request.Request(self.url + path, headers={"Authorization": f"Bearer {self.token(ADMIN)}"})
        with urllib.request.urlopen(req, timeout=3, context=self._ssl()) as r:
            return str(r.read().decode())

    def token(self, user: str) -> str:
        assert self.creds is not None
        return self.creds.tokens[user]

    def request(self, method: str, path: str, body: Any = None, *, user: str = ADMIN) -> Any:
        """One JSON request; an error response raises ApiError with the server's message."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self.token(user)}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=REQUEST_TIMEOUT, context=self._ssl()) as r:
                return json.loads(r.read() or b"null")
        except urllib.error.HTTPError as err:
            text = err.read().decode(errors="replace")
            try:
                message = json.loads(text).get("message", text)
            except ValueError:
                message = text
            raise ApiError(err.code, f"{method} {path}: {err.code}: {message}") from None

    def kubeconfig(self, path: Path, user: str = ADMIN, context: str = "envtest") -> Path:
        """A kubeconfig for the user: the CA inline, the token inline (the file is 0600 and lives in
        the test's temporary directory)."""
        assert self.creds is not None
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "envtest",
                    "cluster": {"server": self.url, "certificate-authority-data": base64.b64encode(self.creds.ca_pem).decode()},
                }
            ],
            "users": [{"name": user, "user": {"token": self.token(user)}}],
            "contexts": [{"name": context, "context": {"cluster": "envtest", "user": user}}],
            "current-context": context,
        }
        _private(path, yaml.safe_dump(doc, sort_keys=False).encode())
        return path

    def start_scheduler(self, config_yaml: str | None = None, verbosity: int = 1) -> subprocess.Popen[bytes]:
        """kube-scheduler against this cluster, with the given KubeSchedulerConfiguration's profiles
        (its clientConnection and leaderElection are set here); ready once /healthz answers. At
        verbosity 3 its log says when each scheduling attempt starts (scheduling_order)."""
        binary = self.plane.assets / "kube-scheduler"
        if not os.access(binary, os.X_OK):
            raise EnvError(f"{ASSETS_ENV}={self.plane.assets}: missing or not executable: kube-scheduler")
        d = self.directory
        kubeconfig = self.kubeconfig(d / "scheduler.kubeconfig")
        config = yaml.safe_load(config_yaml) if config_yaml else {}
        config = dict(config or {})
        config.setdefault("apiVersion", "kubescheduler.config.k8s.io/v1")
        config.setdefault("kind", "KubeSchedulerConfiguration")
        config["clientConnection"] = {"kubeconfig": str(kubeconfig), "qps": 1000, "burst": 1000}
        config["leaderElection"] = {"leaderElect": False}
        (d / "scheduler-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
        port = free_port()
        argv = [
            str(binary),
            f"--config={d / 'scheduler-config.yaml'}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={d / 'scheduler-certs'}",
            "--authentication-skip-lookup=true",
            "--authorization-always-allow-paths=/healthz,/readyz,/livez",
            f"--v={verbosity}",
        ]
        log = d / "kube-scheduler.log"
        proc = _spawn(argv, log)
        self.procs.append(proc)
        self.plane.procs.append(proc)
        insecure = ssl.create_default_context()
        insecure.check_hostname = False
        insecure.verify_mode = ssl.CERT_NONE  # the scheduler's own self-signed serving cert, loopback only

        def healthy() -> bool:
            with urllib.request.urlopen(f"https://127.0.0.1:{port}/healthz", timeout=2, context=insecure) as r:
                return bool(r.read() == b"ok")

        _wait_ready("kube-scheduler", proc, healthy, log, START_DEADLINE)
        return proc

    def scheduling_order(self) -> list[str]:
        """namespace/name of each pod kube-scheduler attempted, in order (one entry per attempt):
        its "Attempting to schedule pod" log lines (verbosity 3)."""
        found = []
        for line in (self.directory / "kube-scheduler.log").read_text(errors="replace").splitlines():
            if "Attempting to schedule pod" in line and 'pod="' in line:
                found.append(line.split('pod="', 1)[1].split('"', 1)[0])
        return found


class ApiError(EnvError):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
