"""Properties any correct NDCG must have, checked on many random lists.

Each expected value here comes from the definition or from brute force (every permutation),
never from ndcg_nb itself.
"""
import itertools
import math

import numpy as np
import pytest

from ndcg_nb import cg, dcg, idcg, ndcg
from ndcg_nb.metrics.core import as_batch, score_batch

RNG = np.random.default_rng(20261122)
LISTS = [RNG.integers(0, 5, int(RNG.integers(1, 9))).astype(float) for _ in range(200)]


def brute_force_idcg(grades, k, gain=lambda g: g):
    """The largest DCG over every order of the grades (and every shorter prefix, since a list may stop)."""
    best = 0.0
    for order in set(itertools.permutations(grades)):
        running = 0.0
        for rank, grade in enumerate(order[:k] if k else order, start=1):
            running += gain(grade) / math.log2(rank + 1)
            best = max(best, running)
    return best


@pytest.mark.parametrize("k", [None, 1, 3])
def test_idcg_is_the_best_order(k):
    for grades in LISTS[:60]:
        assert idcg(grades, k) == pytest.approx(brute_force_idcg(list(grades), k), abs=1e-12)


def test_idcg_with_negative_grades_is_the_best_prefix_of_the_best_order():
    for _ in range(60):
        grades = list(RNG.integers(-2, 3, int(RNG.integers(1, 7))).astype(float))
        assert idcg(grades) == pytest.approx(brute_force_idcg(grades, None), abs=1e-12)


def test_bounds_and_ideal_order():
    for grades in LISTS:
        value = ndcg(grades)
        assert 0.0 <= value <= 1.0 + 1e-15
        if grades.max() > 0:
            assert ndcg(np.sort(grades)[::-1]) == pytest.approx(1.0, abs=1e-15)


def test_cg_ignores_order_and_dcg_does_not_increase_when_a_better_document_moves_down():
    for grades in LISTS:
        shuffled = RNG.permutation(grades)
        assert cg(shuffled) == pytest.approx(grades.sum(), abs=1e-12)
        for i in range(len(grades) - 1):
            if grades[i] > grades[i + 1]:
                swapped = grades.copy()
                swapped[[i, i + 1]] = swapped[[i + 1, i]]
                assert dcg(swapped) < dcg(grades)


def test_batch_equals_one_list_at_a_time():
    batch = ndcg(LISTS, 4, gain="exponential")
    one_by_one = [ndcg(g, 4, gain="exponential") for g in LISTS]
    np.testing.assert_allclose(batch, one_by_one, rtol=0, atol=1e-15)


def test_tie_averaging_equals_the_mean_over_every_order_of_the_ties():
    for _ in range(40):
        n = int(RNG.integers(2, 7))
        grades = RNG.integers(0, 4, n).astype(float)
        groups = np.sort(RNG.integers(0, 3, n))      # tied documents are adjacent, as after sorting by score
        k = int(RNG.integers(1, n + 1))
        blocks = [list(grades[groups == g]) for g in np.unique(groups)]
        orders = [sum(map(list, choice), []) for choice in itertools.product(*[list(itertools.permutations(b)) for b in blocks])]
        expected = np.mean([sum((2 ** g - 1) / math.log2(r + 1) for r, g in enumerate(o[:k], 1)) for o in orders])
        got = score_batch(as_batch(grades), k, gain="exponential", tie_groups=groups).dcg[0]
        assert got == pytest.approx(expected, abs=1e-12)


def test_log_base_does_not_change_ndcg():
    for grades in LISTS[:50]:
        for base in ("e", 10, 3.5):
            assert ndcg(grades, discount=("log", {"base": base})) == pytest.approx(ndcg(grades), abs=1e-12)


def test_score_ties_average_worst_best_against_every_order_of_the_ties():
    """With scores=, ties="average" is the mean over every order of tied documents, "worst" the minimum
    and "best" the maximum (brute force over the orders)."""
    for _ in range(40):
        n = int(RNG.integers(2, 7))
        labels = RNG.integers(0, 4, n).astype(float)
        scores = RNG.integers(0, 3, n).astype(float)
        k = int(RNG.integers(1, n + 1))
        ranked_groups = [list(labels[scores == s]) for s in sorted(set(scores), reverse=True)]
        orders = [sum(map(list, choice), []) for choice in
                  itertools.product(*[list(itertools.permutations(b)) for b in ranked_groups])]
        values = [sum(g / math.log2(r + 1) for r, g in enumerate(o[:k], 1)) for o in orders]
        assert dcg(labels, k, scores=scores) == pytest.approx(np.mean(values), abs=1e-12)
        assert dcg(labels, k, scores=scores, ties="worst") == pytest.approx(min(values), abs=1e-12)
        assert dcg(labels, k, scores=scores, ties="best") == pytest.approx(max(values), abs=1e-12)
