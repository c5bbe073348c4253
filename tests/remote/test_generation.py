"""Generation over a real `tfdebug serve --model tiny-gpt2` process: the decoding steps run on the server, the
window's session reads the growing tokens and the token strip; greedy tokens equal the model's own generate()."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForCausalLM, PreTrainedTokenizerFast

from tests.remote.served import start_server, stop_server
from tfdebug.adapters.hf.load import bundled_folder
from tfdebug.core.errors import InputError, StepperStateError
from tfdebug.models.sampling import DecodingSettings
from tfdebug.remote.errors import FrameError
from tfdebug.remote.session import RemoteSession

PROMPT = "I love you ="
STEPS = 3


@pytest.fixture(scope="module")
def gpt2_server(tmp_path_factory):
    served = start_server(tmp_path_factory.mktemp("exports"), "--client-timeout", "3", model="tiny-gpt2")
    yield served
    stop_server(served)


def own_generate(steps: int) -> list[str]:
    folder = bundled_folder("tiny-gpt2")
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = tokenizer(PROMPT, return_tensors="pt").input_ids
    with torch.no_grad():
        out = model.generate(ids, max_new_tokens=steps, min_new_tokens=steps, do_sample=False,
                             pad_token_id=model.config.eos_token_id)
    return [tokenizer.decode([int(t)]).strip() for t in out[0, ids.shape[1]:]]


def test_greedy_generation_on_the_server_equals_the_models_own_generate(gpt2_server):
    session = RemoteSession.connect(gpt2_server.address, gpt2_server.token)
    assert not session.is_generation
    with pytest.raises(StepperStateError):  # Next Token on a single pass: refused with a sentence
        session.next_token()
    gen = session.reopen({"prompt": PROMPT}, generate=DecodingSettings(max_new_tokens=STEPS + 1, stop_at_eos=False))
    try:
        assert gen.is_generation and gen.stepper.current.name == "gen.0.tok.embed"
        prompt = len(gen.tokens["prompt"])
        for n in range(1, STEPS + 1):
            gen.next_token()
            gen.stepper.wait()
            assert gen.stepper.current.name.startswith(f"gen.{n}.")  # paused where step n reads token n
        words = gen.tokens["prompt"]
        assert len(words) == prompt + STEPS
        assert [w.strip() for w in words[prompt:]] == own_generate(STEPS)
        strip = gen.entries()
        chosen = [e for e in strip if e.generated]
        assert [e.text for e in chosen] == words[prompt:]
        assert all(0 < e.probability <= 1 and len(e.alternatives) == 5 for e in chosen)
        assert [e.step for e in chosen] == list(range(STEPS))
        gen.run_to_token(1)  # back through history on the server
        gen.stepper.wait()
        assert gen.stepper.current.name.startswith("gen.1.")
        hostile = {"max_new_tokens": 3, "temperature": 0.0}  # DecodingSettings on the server refuses it
        with pytest.raises(InputError, match="temperature"):
            gen.request("open", {"texts": {"prompt": PROMPT}, "generate": hostile})
        with pytest.raises(FrameError):  # a field DecodingSettings does not have: refused by the schema
            gen.request("open", {"texts": {"prompt": PROMPT}, "generate": {"beams": 4}})
        assert gen.stepper.current.name.startswith("gen.1.") and gen.tokens["prompt"] == words  # the pass stayed
    finally:
        gen.close()
