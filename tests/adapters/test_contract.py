"""The adapter contract, checked for every kind of model tfdebug adapts.

Each entry of ADAPTERS builds an adapter and the texts to run it on. Whatever the
model, its stage names follow DESIGN.md's grammar, every attention block shows
scores, probabilities and context, softmax rows sum to 1, a snapshot of the pass
round-trips bit for bit, the layout builds, and the window opens the pass and runs
to its last stage. New adapters add one entry here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
import torch  # noqa: E402

from tests.adapters.toy import ToyAdapter  # noqa: E402
from tfdebug.adapters.registry import load_adapter  # noqa: E402
from tfdebug.sessions.session import DebugSession  # noqa: E402
from tfdebug.core.names import parse_name  # noqa: E402
from tfdebug.core.recorder import Recorder  # noqa: E402
from tfdebug.core.stages import KINDS  # noqa: E402
from tfdebug.io.recording import Recording  # noqa: E402
from tfdebug.io.snapshot import open_snapshot, save_snapshot  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# id -> (adapter factory, texts or None for the adapter's first preset)
ADAPTERS = {
    "reference-random": (lambda: load_adapter("random"), {"src": "I love you", "tgt": "我 爱 你"}),
    "reference-notes": (lambda: load_adapter("notes"), {"src": "I love you", "tgt": "我 爱 你"}),  # padded: masks
    "toy": (ToyAdapter, {"text": "abcab"}),
    "sdpa-gpt-block": (lambda: load_adapter(f"torch:{EXAMPLES / 'gpt_block.py'}:factory"), None),
    "sdpa-nn-transformer": (lambda: load_adapter(f"torch:{EXAMPLES / 'nn_transformer.py'}:factory"), None),
}


def _hf_entries() -> dict:
    """Hugging Face adapters (with the hf extra): the bundled GPT-2, LLaMA-style GQA, T5 encoder–decoder."""
    from tfdebug.adapters.hf.load import transformers_available

    if not transformers_available():
        return {}
    from tests.adapters import hf_archs, hf_tiny
    from tfdebug.adapters.hf.adapter import wrap

    return {
        "hf-tiny-gpt2": (lambda: load_adapter("tiny-gpt2"), None),
        "hf-llama-gqa": (lambda: wrap(hf_tiny.llama(), hf_tiny.word_tokenizer()), {"prompt": "I love you"}),
        "hf-t5": (lambda: wrap(hf_tiny.t5(), hf_tiny.word_tokenizer()), {"src": "I love you", "tgt": "我 爱"}),
        # Found by convention (tests/adapters/hf_archs.py has all 40): q/k norm, experts, soft caps and
        # sliding windows, fused projections, through the window too.
        **{f"hf-{t}": (lambda t=t: wrap(hf_archs.build(hf_archs.BY_TYPE[t]), hf_tiny.word_tokenizer()),
                       {"prompt": "the cat sat on the mat"}) for t in ("qwen3", "mixtral", "gemma2", "phi3")},
    }


ADAPTERS.update(_hf_entries())

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$")


@pytest.fixture(scope="module", params=sorted(ADAPTERS))
def captured(request):
    factory, texts = ADAPTERS[request.param]
    adapter = factory()
    session = DebugSession(adapter, texts)
    captures, output = session.capture_all()
    # The check runs in a thread on the same model: the tests' own forwards wait for it (one ran beside it
    # and its hooks never fired).
    session.wait_verification()
    yield session, captures, output
    session.close()


def test_stage_names_follow_the_grammar(captured):
    session, captures, _ = captured
    names = [c.name for c in captures]
    assert len(set(names)) == len(names), "every stage name is unique"
    assert names == session.plan.names()
    for c in captures:
        assert NAME.match(c.name), c.name
        assert c.info.kind in KINDS, c.name
        assert len(c.info.axes) == len(c.shape), c.name
        parsed = parse_name(c.name)
        assert (c.info.site, c.info.layer) == (parsed.site, parsed.layer), c.name
        for axis, stream in c.info.tokens.items():
            assert stream in session.tokens, (c.name, stream)
            assert len(session.tokens[stream]) == c.shape[c.info.axes.index(axis)], (c.name, axis)


def test_every_attention_block_has_scores_probs_and_context(captured):
    _, captures, _ = captured
    kinds_by_block: dict[str, set[str]] = {}
    for c in captures:
        kinds_by_block.setdefault(parse_name(c.name).block_id, set()).add(c.info.kind)
    attention = [b for b, kinds in kinds_by_block.items() if "softmax" in kinds]
    assert attention
    for block in attention:
        assert {"scores", "softmax", "attn_v"} <= kinds_by_block[block], block


def test_softmax_rows_sum_to_one(captured):
    _, captures, _ = captured
    for c in captures:
        if c.info.kind == "softmax":
            sums = c.tensor.float().sum(dim=-1)
            assert torch.allclose(sums, torch.ones_like(sums), atol=1e-5), c.name


def test_no_stage_is_written_in_place_after_it_is_captured(captured):
    """A capture keeps the model's own tensor, not a copy (copying every stage would cost one more
    write of the whole pass): right only while nothing writes that tensor later in the pass.
    torch's version counter, which every in-place write moves, says whether anything did."""
    session, _, _ = captured
    adapter = session.adapter
    seen = []
    with torch.no_grad(), Recorder(adapter.module, on_capture=lambda c: seen.append((c, c.tensor._version))):
        adapter.forward(session.prepared)
    assert seen
    assert [c.name for c, version in seen if c.tensor._version != version] == []


def test_a_snapshot_round_trips_bit_for_bit(captured, tmp_path):
    session, captures, _ = captured
    path = tmp_path / "pass.safetensors"
    save_snapshot(Recording.from_session(session, captures), path)
    with open_snapshot(path) as recording:
        assert recording.names() == [c.name for c in captures]
        assert recording.tokens == session.tokens
        assert recording.adapter == session.adapter.adapter_kind  # which adapter tapped the model
        for c in captures:
            stored = recording.tensor(recording[c.name])
            assert stored.dtype == c.tensor.dtype and torch.equal(stored, c.tensor.cpu()), c.name


def test_the_layout_builds_with_every_stage_in_one_block(captured):
    session, captures, _ = captured
    layout = session.layout
    assert layout.columns and all(column.blocks for column in layout.columns)
    assert sorted(layout.stage_block) == sorted(c.name for c in captures)
    placed = [s for column in layout.columns for block in column.blocks for s in block.stages]
    assert sorted(placed) == sorted(c.name for c in captures)


def load_for_window(spec, device, dtype):
    """The registry's loader for `contract:ID`: the adapter ADAPTERS[ID] builds."""
    return ADAPTERS[spec.removeprefix("contract:")][0]()


@pytest.mark.parametrize("adapter_id", sorted(ADAPTERS))
def test_the_window_opens_the_pass_and_runs_to_its_last_stage(adapter_id, qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    from tests.ui.conftest import wait_paused
    from tests.ui.user_actions import register_model, run_model
    from tfdebug.ui.shell.window import MainWindow

    register_model(monkeypatch, "contract:", "tests.adapters.test_contract:load_for_window")
    window = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat), persist=False)
    qtbot.addWidget(window)
    window.show()
    run_model(qtbot, window, f"contract:{adapter_id}", ADAPTERS[adapter_id][1] or {})  # none: the first preset
    session = window.ctl.session
    first, last = session.plan[0].name, session.plan[-1].name
    assert window.ctl.current.name == first
    assert list(window.input_bar.fields) == [f.key for f in session.adapter.inputs]
    window.ctl.steps.run_to(last)
    wait_paused(qtbot, window, last)
    assert window.architecture_map.parts
    window.ctl.shutdown()
