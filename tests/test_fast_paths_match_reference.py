"""The fast paths of ndcg_nb.metrics.fast_paths held to the reference steps of ndcg_nb.metrics.core.

nbs/30_core.ipynb defines every value by its steps (each list sorted whole, ties averaged by `tie_means`, the
ideal sorted); nbs/31_fast_paths.ipynb takes shorter ways. Here hypothesis draws grades (whole numbers and
fractions, negative ones included), scores with many ties, list lengths and depths, and each fast path must
give the reference's values: to the bit where it adds the same numbers in the same order, and otherwise
within the bound of a reordered floating-point sum (see `_reordered_sum_bound`).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ndcg_nb.metrics.batch import Batch
from ndcg_nb.metrics.core import TIE_RULES, ListPolicies, ListsToScore, dcg, discount_weights, idcg, ndcg, score_lists
from ndcg_nb.metrics.fast_paths import counted_sums, discounted_prefix, tie_means_at_cut, top_k_by_gain
from ndcg_nb.metrics.segments import (positions_in_lists, prefix_sums, sorted_desc, tie_means, tie_runs,
                                      offsets_from_lengths)
from ndcg_nb.plugins import resolve_policy

SETTINGS = settings(max_examples=120, deadline=None)
EPS = np.finfo(float).eps
LOG2, CUT, JUDGED = (resolve_policy(kind, name) for kind, name in
                     (("discount", "log2"), ("truncation", "cut"), ("normalization", "judged")))
GAINS = {name: resolve_policy("gain", name) for name in ("linear", "exponential")}


def same_bits(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def _reordered_sum_bound(terms: np.ndarray) -> float:
    """How far two sums of the same `n` terms, added in different orders, can be apart: each addition rounds by at
    most half an ulp of its partial sum, which is at most the sum of the magnitudes, so n * eps * sum |terms|."""
    return len(terms) * EPS * float(np.abs(terms).sum())


@st.composite
def rows(draw, min_width=1, max_width=40, fractions=True):
    """A matrix of grades and one of scores with many ties (few distinct values), and a depth (None or 1..width+2)."""
    n = draw(st.integers(1, 30))
    width = draw(st.integers(min_width, max_width))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    grades = rng.integers(draw(st.integers(-2, 0)), draw(st.integers(1, 5)), (n, width)).astype(float)
    if fractions and draw(st.booleans()):
        grades = grades * draw(st.sampled_from([0.1, 0.3, 1 / 3, 2.5]))
    scores = rng.integers(0, draw(st.integers(1, 6)), (n, width)) / 2
    k = draw(st.one_of(st.none(), st.integers(1, width + 2)))
    return grades, scores, k


def _whole_list_tie_means(scores: np.ndarray, gains: np.ndarray, offsets: np.ndarray):
    "The reference's ranking under ties='average': each list sorted whole (stable), each tie's mean gain."
    index, offsets = sorted_desc((scores,), offsets)
    return index, tie_means(gains[index], tie_runs(scores[index], offsets)), offsets


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 5), st.floats(-1e6, 1e6, allow_nan=False)), min_size=0, max_size=60))
def test_tie_means_adds_each_tie_in_order(pairs):
    "The one tie averaging: each tie's gains added one after another in the order given, divided by its size."
    ties = np.array([t for t, _ in pairs], dtype=np.int64)
    gains = np.array([g for _, g in pairs], dtype=float)
    expected = []
    for t in ties:
        members = [g for tie, g in zip(ties.tolist(), gains.tolist()) if tie == t]
        total = 0.0
        for g in members:
            total += g
        expected.append(total / len(members))
    assert same_bits(tie_means(gains, ties), np.array(expected).reshape(-1))
    cut = len(pairs) // 2            # members left out of `gains` and given as `past` sum after the others
    if cut:
        past_first = tie_means(gains[:cut], ties[:cut], past=(ties[cut:], gains[cut:]))
        assert same_bits(past_first, np.array(expected[:cut]).reshape(-1))


@SETTINGS
@given(rows(min_width=2))
def test_tie_means_at_cut_equals_whole_sorted_lists(drawn):
    "Rows cut at k by a partial sort: with ties in input order, the same documents and the same gains to the bit."
    grades, scores, k = drawn
    n, width = grades.shape
    batch = Batch(grades.reshape(-1), np.arange(n + 1) * width, scores=scores.reshape(-1))
    fast = tie_means_at_cut(batch, batch.grades, k, detail=True)
    if k is None or k >= width:
        assert fast is None
        return
    index, ranked, offsets = fast
    whole, reference, _ = _whole_list_tie_means(batch.scores, batch.grades, batch.offsets)
    cut = positions_in_lists(batch.offsets) < k
    assert np.array_equal(index, whole[cut]) and np.array_equal(offsets, np.arange(n + 1) * k)
    assert same_bits(ranked, reference[cut])
    # ties in any order: the same scores at each place, each mean within a reordered sum of its tie
    index, ranked, _ = tie_means_at_cut(batch, batch.grades, k, detail=False)
    assert np.array_equal(batch.scores[index], batch.scores[whole[cut]])
    bound = max(_reordered_sum_bound(row) for row in grades)
    assert np.all(np.abs(ranked - reference[cut]) <= bound)
    if np.all(grades == np.trunc(grades)):           # whole numbers add up exactly in any order
        assert same_bits(ranked, reference[cut])


@SETTINGS
@given(rows())
def test_ideal_by_partition_takes_the_gains_of_a_sort(drawn):
    grades, _, k = drawn
    n, width = grades.shape
    offsets = np.arange(n + 1) * width
    fast = top_k_by_gain(grades.reshape(-1), offsets, k)
    if k is None or k >= width:
        assert fast is None
        return
    index, new_offsets = fast
    reference, reference_offsets = sorted_desc((grades.reshape(-1),), offsets, k)
    assert np.array_equal(new_offsets, reference_offsets)
    assert same_bits(grades.reshape(-1)[index], grades.reshape(-1)[reference])


def _reference_scores(batch: Batch, k, gain: str, ties: str):
    return score_lists(ListsToScore.of(batch), k, ListPolicies(GAINS[gain], LOG2, CUT, JUDGED, ties), detail=True)


def _counted(batch: Batch, k, gain: str, ties: str):
    policies = ListPolicies(GAINS[gain], LOG2, CUT, JUDGED, ties)
    gains = GAINS[gain](batch.grades)
    longest = int(batch.lengths.max(initial=0))
    weights = discount_weights(LOG2, longest if k is None else min(k, longest), k)

    def rank_block(block):         # the reference's ranking of a block, as the core passes it
        s = score_lists(ListsToScore.of(Batch(block.grades, block.offsets, scores=block.scores)), k,
                        ListPolicies(GAINS["linear"], LOG2, CUT, JUDGED, ties), detail=False)
        return s.gains, s.offsets
    return counted_sums(batch, gains, k, policies.ties, weights, rank_block)


@SETTINGS
@given(rows(fractions=False), st.sampled_from(TIE_RULES), st.sampled_from(["linear", "exponential"]), st.booleans())
def test_counted_rows_equal_the_reference_to_the_bit(drawn, ties, gain, with_scores):
    "Rows of one length, whole-number gains: DCG and IDCG counted equal the reference's steps to the bit."
    grades, scores, k = drawn
    n, width = grades.shape
    batch = Batch(grades.reshape(-1), np.arange(n + 1) * width, scores=scores.reshape(-1) if with_scores else None)
    fast = _counted(batch, k, gain, ties)
    if fast is None:                       # a gain range too wide to count is left to the reference
        return
    reference = _reference_scores(batch, k, gain, ties)
    assert same_bits(fast[0], reference.dcg) and same_bits(fast[1], reference.idcg)


@SETTINGS
@given(rows(fractions=False), st.sampled_from(["average", "input", "worst", "best"]), st.data())
def test_counted_lists_of_many_lengths_within_a_reordered_sum(drawn, ties, data):
    """Lists of many lengths, padded a length bucket at a time: the same terms, summed in another order (a padded
    row adds its zeros in place, the reference a ragged list's terms alone), so within `_reordered_sum_bound`."""
    grades, scores, k = drawn
    n, width = grades.shape
    lengths = np.array(data.draw(st.lists(st.integers(0, width), min_size=n, max_size=n)))
    keep = positions_in_lists(np.arange(n + 1) * width) < np.repeat(lengths, width)
    batch = Batch.from_lengths(grades.reshape(-1)[keep], lengths, scores=scores.reshape(-1)[keep])
    fast = _counted(batch, k, "linear", ties)
    if fast is None:
        return
    reference = _reference_scores(batch, k, "linear", ties)
    weights = discount_weights(LOG2, max(width, 1))
    for i, (start, end) in enumerate(zip(batch.offsets[:-1], batch.offsets[1:])):
        bound = _reordered_sum_bound(batch.grades[start:end] * weights[:end - start])
        assert abs(fast[0][i] - reference.dcg[i]) <= bound and abs(fast[1][i] - reference.idcg[i]) <= bound


@SETTINGS
@given(rows(), st.sampled_from(["average", "input"]))
def test_metrics_of_rows_equal_the_reference_of_ragged_lists(drawn, ties):
    """Through `dcg` and `idcg`: rows of one length (fast paths) against the same lists made ragged by one more
    list, which only the reference's steps score: each within a reordered sum of its row's terms."""
    grades, scores, k = drawn
    n, width = grades.shape
    ragged = [list(r) for r in grades] + [[1.0] * (width + 1)]
    ragged_scores = [list(r) for r in scores] + [[0.0] * (width + 1)]
    bounds = np.array([_reordered_sum_bound(row) for row in grades])     # every weight is at most 1
    for metric in (dcg, idcg):
        fast = metric(grades, k, scores=scores, ties=ties)
        reference = metric(ragged, k, scores=ragged_scores, ties=ties)[:-1]
        assert np.all(np.abs(fast - reference) <= bounds)
    if np.all(grades == np.trunc(grades)) and k is not None and k < width:
        # whole numbers at a cut: the tie means are exact, and the counted path sums what the reference sums
        assert same_bits(ndcg(grades, k, scores=scores, ties=ties),
                         ndcg(np.r_[grades, grades[:1]], k, scores=np.r_[scores, scores[:1]], ties=ties)[:-1])


@SETTINGS
@given(rows(), st.data())
def test_discounted_prefix_equals_prefix_sums(drawn, data):
    "Every depth from one ranking: the prefix of the discounted gains, to the bit, rows of a matrix or ragged."
    grades, _, k = drawn
    n, width = grades.shape
    k = k or width
    lengths = np.array(data.draw(st.lists(st.integers(0, width), min_size=n, max_size=n)))
    for values, offsets in ((grades.reshape(-1), np.arange(n + 1) * width),
                            (grades.reshape(-1)[:lengths.sum()], offsets_from_lengths(lengths))):
        weights = 1 / np.log2(np.arange(2, width + 3))
        expected = prefix_sums(values * weights[positions_in_lists(offsets)], offsets, k)
        assert same_bits(discounted_prefix(values, offsets, weights, k), expected)


@SETTINGS
@given(rows())
def test_tie_groups_average_as_ties_do(drawn):
    "A caller's own tie groups (as `evaluate` passes them) and scores under ties='average' average alike, to the bit."
    grades, scores, k = drawn
    n, width = grades.shape
    offsets = np.arange(n + 1) * width
    by_score = Batch(grades.reshape(-1), offsets, scores=scores.reshape(-1))
    index, _ = sorted_desc((by_score.scores,), offsets)
    ranked = Batch(by_score.grades[index], offsets)
    groups = tie_runs(by_score.scores[index], offsets)
    policies = ListPolicies(GAINS["linear"], LOG2, CUT, JUDGED, "average")
    from_groups = score_lists(ListsToScore.of(ranked, tie_groups=groups), None, policies)
    from_scores = score_lists(ListsToScore.of(by_score), None, policies)
    assert same_bits(from_groups.gains, from_scores.gains) and same_bits(from_groups.dcg, from_scores.dcg)


def test_the_bound_is_not_vacuous():
    "Sums of fractions in another order do differ, so the tolerance above is needed and small."
    terms = np.random.default_rng(0).random(100)
    in_order = 0.0
    for t in terms:
        in_order += t
    assert in_order != terms.sum()                      # NumPy adds pairwise
    assert abs(in_order - terms.sum()) <= _reordered_sum_bound(terms) <= 1e-12 * abs(in_order)
