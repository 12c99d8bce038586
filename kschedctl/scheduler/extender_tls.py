"""An extender's TLS settings made into one ssl.SSLContext, once per extender per run.

Upstream: pkg/scheduler/extender.go makeTransport (``enableHTTPS`` without a CA skips
verification) and client-go's transport.TLSConfigFor / loadTLSFiles (data wins over a file; a
client certificate needs both a certificate and a key; a CA with ``insecure`` is refused; TLS
1.2 at least). kube builds this in NewHTTPExtender, before the scheduler starts: a bad setting
is a configuration error here too (exit 2), never a failed call.

Key material never touches the disk where it can be avoided: ``keyData`` and ``certData`` are
written to an anonymous memory file (os.memfd_create), loaded through /proc/self/fd/N and
closed at once. Where that is missing (not Linux, no /proc), they go to a 0600 file in a 0700
private directory that exists only while OpenSSL reads it, with the fatal signals blocked for
that moment so that even SIGTERM or SIGINT cannot leave it behind (the signal is delivered right
after the file is gone). ``keyFile`` and ``certFile`` are read where they are.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ssl

# what an unhandled signal would kill the process with while a fallback key file exists
_FATAL_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT") if hasattr(signal, name))


class TLSConfigError(ValueError):
    """A tlsConfig that client-go's TLSConfigFor refuses; ``field`` is the key under tlsConfig."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def wants_tls_config(tls: dict[str, Any] | None, enable_https: bool) -> bool:
    """TLSConfigFor returns nil (Go's default transport) unless a CA, a client certificate,
    insecure or a server name is set; makeTransport's enableHTTPS sets insecure or keeps the CA."""
    tls = tls or {}
    return bool(
        enable_https or tls.get("caFile") or tls.get("caData") or tls.get("insecure") or tls.get("serverName") or _has_cert_auth(tls)
    )


def _has_cert_auth(tls: dict[str, Any]) -> bool:
    """HasCertAuth: a certificate (data or file) and a key (data or file)."""
    return bool((tls.get("certData") or tls.get("certFile")) and (tls.get("keyData") or tls.get("keyFile")))


def new_ssl_context(tls: dict[str, Any] | None, enable_https: bool) -> "ssl.SSLContext":
    """makeTransport + TLSConfigFor as an SSLContext: the system's roots unless a CA is given
    (then that CA only), the hostname (or serverName) checked unless insecure."""
    import ssl

    tls = dict(tls or {})
    has_ca = bool(tls.get("caFile") or tls.get("caData"))
    if enable_https and not has_ca:
        tls["insecure"] = True
    if has_ca and tls.get("insecure"):
        raise TLSConfigError("insecure", "specifying a root certificates file with the insecure flag is not allowed")
    # with a CA, that CA alone is trusted (client-go's RootCAs replace the system pool)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) if has_ca else ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if has_ca:
        _load_ca(context, tls)
    if _has_cert_auth(tls):
        _load_client_certificate(context, tls)
    if tls.get("insecure"):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def _decoded(tls: dict[str, Any], field: str) -> bytes:
    """A []byte field as Go's encoding/json reads it: standard base64 (line breaks skipped)."""
    try:
        return base64.b64decode(str(tls[field]).replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise TLSConfigError(field, f"illegal base64 data: {exc}") from None


def _read_file(tls: dict[str, Any], field: str) -> bytes:
    path = str(tls[field])
    try:
        with open(path, "rb") as fh:
            return fh.read(1 << 20)
    except OSError as exc:
        raise TLSConfigError(field, f"open {path}: {(exc.strerror or str(exc)).lower()}") from None


def _load_ca(context: "ssl.SSLContext", tls: dict[str, Any]) -> None:
    """rootCertPool: caData, else caFile's content; PEM certificates only."""
    import ssl

    field = "caData" if tls.get("caData") else "caFile"
    data = _decoded(tls, field) if field == "caData" else _read_file(tls, field)
    text = data.decode("ascii", errors="replace")
    if "-----BEGIN CERTIFICATE-----" not in text:
        raise TLSConfigError(field, "unable to load root certificates: unable to parse bytes as PEM block")
    try:
        context.load_verify_locations(cadata=text)
    except (ssl.SSLError, ValueError) as exc:
        raise TLSConfigError(field, f"unable to load root certificates: {_ssl_reason(exc)}") from None


class _EncryptedKey(Exception):
    """OpenSSL asked for a pass phrase: client-go has none to give."""


def _no_pass_phrase() -> bytes:
    raise _EncryptedKey()


def _load_client_certificate(context: "ssl.SSLContext", tls: dict[str, Any]) -> None:
    """tls.X509KeyPair of the certificate and the key (data wins over a file)."""
    import ssl

    cert_field = "certData" if tls.get("certData") else "certFile"
    key_field = "keyData" if tls.get("keyData") else "keyFile"
    for field, what in ((cert_field, "certificate"), (key_field, "key")):
        if field.endswith("Data") and b"-----BEGIN" not in _decoded(tls, field):
            raise TLSConfigError(field, f"tls: failed to find any PEM data in {what} input")
    try:
        with _pem_path(tls, cert_field) as cert, _pem_path(tls, key_field) as key:
            context.load_cert_chain(cert, key, password=_no_pass_phrase)
    except _EncryptedKey:
        raise TLSConfigError(key_field, "tls: failed to parse private key (it is encrypted)") from None
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise TLSConfigError(key_field, f"tls: failed to load the client certificate and key: {_ssl_reason(exc)}") from None


def _ssl_reason(exc: BaseException) -> str:
    """OpenSSL's reason (never any of the bytes it was given)."""
    reason = getattr(exc, "reason", None)
    return str(reason).lower().replace("_", " ") if reason else type(exc).__name__


@contextlib.contextmanager
def _pem_path(tls: dict[str, Any], field: str) -> Iterator[str]:
    """A path OpenSSL can open for the field: the file itself, or the decoded data in memory."""
    if field.endswith("File"):
        yield str(tls[field])
        return
    with in_memory_file(_decoded(tls, field)) as path:
        yield path


@contextlib.contextmanager
def in_memory_file(data: bytes) -> Iterator[str]:
    """A path to ``data`` that lives no longer than the block: an anonymous memory file where
    the platform has one, else a private file removed on every way out (see the module's doc)."""
    fd = _memfd(data)
    if fd is not None:
        try:
            yield f"/proc/self/fd/{fd}"
        finally:
            os.close(fd)
        return
    with _private_file(data) as path:
        yield path


def _memfd(data: bytes) -> int | None:
    create = getattr(os, "memfd_create", None)
    if create is None:
        return None
    try:
        fd: int = create("kschedctl-extender-tls", getattr(os, "MFD_CLOEXEC", 0))
    except OSError:
        return None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if os.path.exists(f"/proc/self/fd/{fd}"):
            return int(fd)
    except OSError:
        pass
    os.close(fd)
    return None


@contextlib.contextmanager
def _private_file(data: bytes) -> Iterator[str]:
    """A 0600 file in a fresh 0700 directory, removed before any fatal signal is let through."""
    blocked = _block_fatal_signals()
    try:
        directory = tempfile.mkdtemp(prefix="kschedctl-tls-")  # 0700
        try:
            path = os.path.join(directory, "pem")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            yield path
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    finally:
        if blocked is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _block_fatal_signals() -> "set[int | signal.Signals] | None":
    """Block SIGTERM/SIGINT/SIGHUP/SIGQUIT (the previous mask returned); None where the
    platform has no signal masks."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _FATAL_SIGNALS)


__all__ = ["TLSConfigError", "in_memory_file", "new_ssl_context", "wants_tls_config"]
