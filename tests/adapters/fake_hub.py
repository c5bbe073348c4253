"""A Hugging Face hub on loopback for download tests (no network): the few endpoints huggingface_hub's own
`snapshot_download` asks, serving one repository's files at one commit.

    with fake_hub({"org/name": {"config.json": b"…"}}, slow={"big.safetensors": 50_000_000}) as url:
        monkeypatch.setattr(constants, "ENDPOINT", url) …

A `slow` file is that many zero bytes sent in small chunks with a pause between them, so a test can
press Cancel while it downloads.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
import threading
import time

COMMIT = "fedcba9876543210fedcba9876543210fedcba98"
CHUNK = 1 << 16
SLOW_PAUSE_S = 0.05


def _zeros_sha256(size: int) -> str:
    digest, block = hashlib.sha256(), bytes(CHUNK)
    for start in range(0, size, CHUNK):
        digest.update(block[:min(CHUNK, size - start)])
    return digest.hexdigest()


@contextlib.contextmanager
def fake_hub(repos: dict[str, dict[str, bytes]], slow: dict[str, int] | None = None):
    """Serve `repos` ({repo id: {file name: contents}}) plus `slow` files ({name: size}) in each; yields the URL."""
    slow = dict(slow or {})
    sizes = {name: size for name, size in slow.items()}
    hashes = {name: _zeros_sha256(size) for name, size in slow.items()}
    stop = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_HEAD(self):
            self._route(body=False)

        def do_GET(self):
            self._route(body=True)

        def _route(self, body: bool) -> None:
            path = self.path.split("?")[0]
            for repo, files in repos.items():
                names = {**{n: len(d) for n, d in files.items()}, **sizes}
                if path.startswith(f"/api/models/{repo}/revision/"):
                    return self._json({"id": repo, "sha": COMMIT, "siblings": [{"rfilename": n} for n in names]})
                if path.startswith(f"/api/models/{repo}/tree/"):
                    return self._json([{"type": "file", "path": n, "size": s, "oid": "0" * 40} for n, s in names.items()])
                prefix = f"/{repo}/resolve/{COMMIT}/"
                if path.startswith(prefix) and path[len(prefix):] in names:
                    return self._file(files, path[len(prefix):], body)
            self.send_response(404)
            self.end_headers()

        def _json(self, doc) -> None:
            data = json.dumps(doc).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _file(self, files, name: str, body: bool) -> None:
            data = files.get(name)
            size = len(data) if data is not None else sizes[name]
            self.send_response(200)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", '"' + (hashlib.sha256(data).hexdigest() if data is not None else hashes[name]) + '"')
            self.send_header("Content-Length", str(size))
            self.end_headers()
            if not body:
                return
            try:
                if data is not None:
                    self.wfile.write(data)
                    return
                block = bytes(CHUNK)
                for start in range(0, size, CHUNK):
                    if stop.is_set():
                        return
                    self.wfile.write(block[:min(CHUNK, size - start)])
                    self.wfile.flush()
                    time.sleep(SLOW_PAUSE_S)
            except (BrokenPipeError, ConnectionResetError):  # the client cancelled
                pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="fake-hub")
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join(10)
