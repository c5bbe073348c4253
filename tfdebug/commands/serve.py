"""`tfdebug serve`: run a model where it lives (a GPU server, no display) for a window to attach to.

Only argparse at import time (cli.py imports every command module to build its parser).
"""

from __future__ import annotations

import argparse

from tfdebug.commands.common import add_budget_argument, add_model_arguments

DEFAULT_PORT = 5757


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `tfdebug serve`'s options to `parser`."""
    add_model_arguments(parser)
    add_budget_argument(parser)
    parser.add_argument("--host", default="127.0.0.1",
                        help="the interface to listen on (default 127.0.0.1: reach it from another machine with "
                             "ssh -L); any other is encrypted (CURVE), and the line to paste carries its key")
    parser.add_argument("--encrypt", action="store_true",
                        help="encrypt on loopback too (off loopback it always is)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"the TCP port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--export-dir", default=".", metavar="FOLDER",
                        help="where a window's 'export on the server' writes snapshots (default: here)")
    parser.add_argument("--client-timeout", type=float, default=3.0, metavar="S",
                        help="let an attached window go after S seconds of silence (default 3; from 0.5 to 86400); "
                             "the pass stays paused for the next one")


def run(args: argparse.Namespace) -> int:
    """Load the model and serve it for a window to attach to; returns the exit status."""
    from tfdebug.commands.arguments import finite_number
    from tfdebug.core.errors import InputError

    if not 0 <= args.port < 65536:
        raise InputError(f"--port takes a TCP port from 0 to 65535, not {args.port}.")
    client_timeout = finite_number(args.client_timeout, "--client-timeout", least=0.5, most=86400, unit=" of seconds")
    try:
        from tfdebug.remote.security import check_host, needs_encryption
        from tfdebug.remote.server import RemoteServer
    except ModuleNotFoundError as exc:
        if exc.name != "zmq":
            raise
        raise InputError("tfdebug serve needs pyzmq: pip install 'tfdebug[remote]'.") from None
    from tfdebug.sessions.session import DebugSession
    from tfdebug.commands.common import budget_from_args, load_from_args, texts_from_args

    check_host(args.host)  # before the model loads: a refusal should not wait
    encrypt = needs_encryption(args.host, args.encrypt)
    budget = budget_from_args(args)
    loaded: dict = {}

    def make_session(texts, settings):
        if not loaded:  # the first session, once the server listens: a port in use is said before the model loads
            loaded["adapter"] = load_from_args(args)
            loaded["texts"] = texts_from_args(args, loaded["adapter"])
        adapter, texts = loaded["adapter"], loaded["texts"] if texts is None else texts
        if settings is None:
            return DebugSession(adapter, texts, max_capture_bytes=budget)
        from tfdebug.sessions.generation import GenerationSession, generation_inputs
        return GenerationSession(adapter, generation_inputs(adapter, texts), settings, max_capture_bytes=budget)

    server = RemoteServer(make_session, host=args.host, port=args.port, export_dir=args.export_dir,
                          client_timeout_s=client_timeout, encrypt=encrypt)
    port = server.address.rpartition(":")[2]
    print(f"tfdebug serve: {loaded['adapter'].name} on {server.device}, paused at the first stage. On the desktop, "
          "run:", flush=True)
    print(f"  {server.paste_line()}", flush=True)
    if server.server_key is None:
        print(f"From another machine, forward the port first: ssh -N -L {port}:127.0.0.1:{port} THIS-SERVER",
              flush=True)
    else:
        print("The connection is encrypted to this server's key (--server-key); keep the token secret.", flush=True)
    server.serve_forever()
    return 0
