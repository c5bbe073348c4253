"""One bench row measured in a fresh interpreter: a section's `child(variant, shape, seq_len)` run there, its row
back as JSON, a failure (a timeout, a crash, a kill for memory) a row too."""

from __future__ import annotations

import json
import subprocess
import sys


def run_child(module: str, variant: str, shape: str, seq_len: int, timeout: float) -> dict:
    """`module.child(variant, shape, seq_len)` in a new process of this interpreter with this one's thread count."""
    import torch

    code = ("import json, sys, torch; torch.set_num_threads(int(sys.argv[4])); "
            f"from {module} import child; "
            "print(json.dumps(child(sys.argv[1], sys.argv[2], int(sys.argv[3]))))")
    try:
        done = subprocess.run([sys.executable, "-c", code, variant, shape, str(seq_len), str(torch.get_num_threads())],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"variant": variant, "seq_len": seq_len, "status": f"timed out after {timeout:.0f} s"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1][:200]
        return {"variant": variant, "seq_len": seq_len,
                "status": f"failed (exit {done.returncode}{', killed for memory' if done.returncode == -9 else ''}): "
                          f"{last}"}
    return {"status": "ok", **json.loads(done.stdout.strip().splitlines()[-1])}
