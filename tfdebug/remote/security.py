"""Who may listen where, and the encryption that other interfaces need.

On loopback the connection is plain: only this machine reaches it, and `ssh -L` brings a
desktop in through SSH's encryption. On any other interface the server encrypts with ZeroMQ's
CURVE mechanism (CurveZMQ: Curve25519 keys, as in NaCl): it makes a fresh key pair at start and
prints its public key in the line to paste, so the window checks it is talking to that server
(like a pinned certificate) and nothing on the network can read the tensors or the token.
"""

from __future__ import annotations

import errno
import ipaddress
import os

import zmq

from tfdebug.core.safe_text import has_unsafe
from tfdebug.remote.errors import BindError, InsecureBindError, RemoteError


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (127.0.0.0/8, ::1, localhost)."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_host(host: str) -> None:
    """BindError unless `host` could name an interface: not empty, no control characters, not too long."""
    if not host or not host.strip() or len(host) > 255 or has_unsafe(host) or any(c.isspace() for c in host):
        raise BindError("--host takes an interface address or name, such as 127.0.0.1 or 0.0.0.0, not '{host}'.",
                        id="remote.bad_host", host=host[:80])


def bind(socket: zmq.Socket, host: str, port: int) -> str:
    """Bind `socket` on `host` (checked by `check_host`) and `port` (0: a free one); the endpoint it has.

    BindError says in a sentence why it could not: a port in use, an address that is not this machine's."""
    check_host(host)
    bind_host = "127.0.0.1" if host == "localhost" else host
    if ":" in bind_host:  # IPv6
        socket.setsockopt(zmq.IPV6, 1)
        bind_host = f"[{bind_host}]"
    try:
        socket.bind(f"tcp://{bind_host}:{port if port else '*'}")
    except zmq.ZMQError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise BindError("Port {port} on {host} is in use (another tfdebug serve?): choose another with --port, "
                            "or --port 0 for a free one.", id="remote.port_in_use", port=port, host=host) from None
        if exc.errno in (errno.EADDRNOTAVAIL, errno.ENODEV):
            raise BindError("{host} is not an address or interface of this machine: listen on 127.0.0.1 (and forward the port "
                            "over SSH), 0.0.0.0 (every interface) or one of this machine's addresses.",
                            id="remote.not_local", host=host) from None
        assert exc.errno is not None  # pyzmq gives a ZMQError its errno
        raise BindError("tfdebug serve cannot listen on {host} port {port}: {why}.", id="remote.bind",
                        host=host, port=port, why=os.strerror(exc.errno).lower()) from None
    return socket.getsockopt_string(zmq.LAST_ENDPOINT)


def needs_encryption(host: str, encrypt: bool) -> bool:
    """Whether a server on `host` encrypts: always off loopback, on loopback when asked.

    InsecureBindError when encryption is needed and this pyzmq's libzmq lacks CURVE."""
    encrypt = encrypt or not is_loopback(host)
    if encrypt and not zmq.has("curve"):
        raise InsecureBindError(
            "Listening on {host} needs encryption, and this pyzmq was built without CURVE. Listen on 127.0.0.1 "
            "and forward the port over SSH instead: ssh -N -L PORT:127.0.0.1:PORT this-server.",
            id="remote.no_curve", host=host)
    return encrypt


def server_keys() -> tuple[bytes, bytes]:
    """A fresh (public, secret) CURVE key pair, Z85 text."""
    return zmq.curve_keypair()


def secure_server(socket: zmq.Socket, public: bytes, secret: bytes) -> None:
    """Make `socket` (before bind) accept only CURVE-encrypted peers."""
    socket.curve_secretkey, socket.curve_publickey, socket.curve_server = secret, public, True


def secure_client(socket: zmq.Socket, server_key: str) -> None:
    """Make `socket` (before connect) encrypt to the server whose public key is `server_key`."""
    key = server_key.strip().encode("ascii", "replace")
    if len(key) != 40:
        raise RemoteError("'{key}' is not a server key: give the 40 characters after --server-key in the line "
                          "tfdebug serve printed.", id="remote.server_key", key=server_key[:50])
    public, secret = zmq.curve_keypair()  # this window's own key, new each connection
    socket.curve_serverkey, socket.curve_publickey, socket.curve_secretkey = key, public, secret
