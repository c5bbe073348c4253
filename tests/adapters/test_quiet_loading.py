"""transformers stays quiet for the loads and passes tfdebug makes, and its settings come back afterwards."""

import subprocess
import sys

import pytest

pytest.importorskip("transformers")


def test_the_cli_prints_no_progress_bar_or_transformers_warning():
    run = subprocess.run([sys.executable, "-m", "tfdebug", "generate", "--model", "tiny-gpt2", "--max-new-tokens", "3"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Loading weights" not in run.stderr and "attention_mask" not in run.stderr, run.stderr
    assert run.stdout.split() == ["我", "爱", "你"]


def test_quiet_transformers_restores_what_it_switched_off_even_when_nested():
    from transformers.utils import logging as hf_logging

    from tfdebug.adapters.hf.load import quiet_transformers

    before = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    with quiet_transformers():
        with quiet_transformers():
            assert hf_logging.get_verbosity() == hf_logging.ERROR and not hf_logging.is_progress_bar_enabled()
        assert hf_logging.get_verbosity() == hf_logging.ERROR  # the outer one still holds
    assert (hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()) == before
