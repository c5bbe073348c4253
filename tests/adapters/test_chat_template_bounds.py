"""Chat templates bounded in time and size (issue 53, item 5): a template that loops for ever is stopped after
CHAT_TEMPLATE_SECONDS, one that renders more than the model's context can read is refused before anything
tokenizes it — one sentence each, exit 2, and the process goes on."""

from __future__ import annotations

import json
import shutil
import signal
import time

import hf_tiny
import pytest

from tfdebug import cli
from tfdebug.adapters.hf import inputs

NESTED = ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
          "{{ messages[0]['content'] }}")
HUGE = "{{ messages[0]['content'] * 30000000 }}"  # 330 MB at render time
PARAGRAPHS = "{% for i in range(100000) %}{{ messages[0]['content'] }}\n\n{% endfor %}"
FINE = ("{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    return hf_tiny.save_folder(hf_tiny.gpt2(), tmp_path_factory.mktemp("hf") / "gpt2")


def with_template(saved, tmp_path, template: str):
    folder = shutil.copytree(saved, tmp_path / "model")
    (folder / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "PreTrainedTokenizerFast", "chat_template": template}))
    return folder


@pytest.fixture
def watchdog():
    """Fail (rather than hang the suite) when a render is not stopped by tfdebug within 20 s."""
    def late(*_):
        raise AssertionError("the chat template was not stopped")

    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def run(folder, capsys, text="hello there"):
    code = cli.main(["stages", "--model", f"hf:{folder}", "--input", f"prompt={text}", "--chat"])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_template_that_loops_for_ever_is_stopped_in_one_sentence(saved, tmp_path, capsys, monkeypatch, watchdog):
    monkeypatch.setattr(inputs, "CHAT_TEMPLATE_SECONDS", 1.0)
    code, out, err = run(with_template(saved, tmp_path, NESTED), capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "The chat template ran longer than 1 s on this text; tfdebug stopped it" in err


@pytest.mark.parametrize("template", [HUGE, PARAGRAPHS], ids=["300 MB", "1e5 paragraphs"])
def test_a_prompt_longer_than_the_context_is_refused_before_tokenizing(saved, tmp_path, capsys, monkeypatch, template,
                                                                       watchdog):
    tokenized = []
    from transformers import PreTrainedTokenizerFast

    real = PreTrainedTokenizerFast.__call__

    def counting(self, text, *args, **kwargs):
        tokenized.append(len(text) if isinstance(text, str) else 0)
        return real(self, text, *args, **kwargs)

    monkeypatch.setattr(PreTrainedTokenizerFast, "__call__", counting)
    code, out, err = run(with_template(saved, tmp_path, template), capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "The chat template made a prompt of" in err and "a model of 64 tokens reads at most 1,024" in err
    assert all(n <= 1024 for n in tokenized)


def test_an_ordinary_template_still_renders(saved, tmp_path, capsys):
    code, out, err = run(with_template(saved, tmp_path, FINE), capsys)
    assert code == 0, err


def test_the_limit_follows_the_context():
    assert inputs.chat_limit(64) == 1024 and inputs.chat_limit(None) == inputs.MAX_CHAT_CHARS
    assert inputs.chat_limit(10 ** 9) == inputs.MAX_CHAT_CHARS


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

PIECES = ["{{ messages[0]['content'] }}", "{% for i in range(N) %}", "{% endfor %}", "{{ 'ab' * N }}",
          "{{ messages[0]['content'] * N }}", "{% if add_generation_prompt %}<a>{% endif %}", "\n\n", "{{ N }}",
          "{% set x = messages[0]['content'] ~ 'z' %}{{ x }}", "{{ raise_exception('no') }}", "{{ bogus.attr }}"]


@pytest.fixture(scope="module")
def tokenizer(saved):
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_file=str(saved / "tokenizer.json"))


@settings(max_examples=40, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(pieces=st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from([0, 3, 1000, 100000, 3000000])),
                       min_size=1, max_size=6))
def test_any_template_renders_within_the_limits_or_is_one_sentence(tokenizer, monkeypatch_module, pieces):
    from tfdebug.core.errors import InputError

    template = "".join(p.replace("N", str(n)) for p, n in pieces)
    tokenizer.chat_template = template
    started = time.monotonic()
    try:
        text = inputs.render_chat(tokenizer, "hello", context=64)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert len(text) <= inputs.chat_limit(64)
    assert time.monotonic() - started < inputs.CHAT_TEMPLATE_SECONDS + 5


@pytest.fixture(scope="module")
def monkeypatch_module():
    patch = pytest.MonkeyPatch()
    patch.setattr(inputs, "CHAT_TEMPLATE_SECONDS", 0.5)
    yield patch
    patch.undo()
