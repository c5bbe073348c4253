"""The notes' toy attention example, computed exactly (the notes round, the tool must not)."""

import math

import pytest

from tfdebug.models import toy_attention as toy


def test_unscaled_weights_and_output_to_four_decimals():
    r = toy.attend()
    assert [round(s, 4) for s in r.scores] == [1.2, 1.15, 0.15]
    assert [round(w, 4) for w in r.weights] == [0.4346, 0.4134, 0.1521]
    assert [round(o, 4) for o in r.output] == [3.9784, 3.4779]  # the issue's [3.978, 3.478]
    assert r.divisor == 1.0 and math.isclose(r.weights_sum, 1.0, abs_tol=1e-15)


def test_scaled_by_root_2_to_four_decimals():
    r = toy.attend(scale=True)
    assert r.divisor == math.sqrt(2)
    assert [round(s, 4) for s in r.scaled] == [0.8485, 0.8132, 0.1061]
    assert [round(w, 4) for w in r.weights] == [0.4096, 0.3954, 0.1950]
    assert [round(o, 4) for o in r.output] == [3.8247, 3.7601]  # the issue's [3.825, 3.760]


def test_the_notes_rounded_weights_give_their_printed_output():
    assert [round(o, 4) for o in toy.notes_output()] == [4.09, 3.27]
    exact = toy.attend().output
    assert abs(toy.notes_output()[0] - exact[0]) > 0.1  # the rounding moves the result by more than 0.1


def test_sizes_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match="every key must have 2"):
        toy.attend(keys=((1.0,), (2.0, 3.0)))
    with pytest.raises(ValueError, match="one value row per key"):
        toy.attend(values=((1.0, 2.0),))
    big = toy.softmax((1000.0, 0.0))  # shifted: no overflow
    assert big[0] == 1.0 and big[1] == 0.0
