"""Who may listen where, and the encryption that other interfaces need.

On loopback the connection is plain: only this machine reaches it, and `ssh -L` brings a
desktop in through SSH's encryption. On any other interface the server encrypts with ZeroMQ's
CURVE mechanism (CurveZMQ: Curve25519 keys, as in NaCl): it makes a fresh key pair at start and
prints its public key in the line to paste, so the window checks it is talking to that server
(like a pinned certificate) and nothing on the network can read the tensors or the token.
"""

from __future__ import annotations

import ipaddress

import zmq

from tfdebug.remote.errors import InsecureBindError, RemoteError


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (127.0.0.0/8, ::1, localhost)."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
