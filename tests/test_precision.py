"""average_precision and precision_at_k against trec_eval (pytrec_eval) on random collections.

nbs/32_precision.ipynb holds the values worked by hand, the single-list errors and the comparison
with scikit-learn's average_precision_score on random lists; this module adds what it does not
check: many queries at once with unretrieved relevant documents and depths past the list's end
(map, map_cut, P against pytrec_eval), the 2-D batch forms, and the batch errors.
"""
import numpy as np
import pytest
import pytrec_eval

from ndcg_nb.metrics.precision import average_precision, precision_at_k


def random_graded_lists(seed, n_lists, max_length=40):
    rng = np.random.default_rng(seed)
    lists = []
    for _ in range(n_lists):
        n = int(rng.integers(1, max_length))
        lists.append((rng.integers(0, 4, n) * (rng.random(n) < rng.random())).tolist())
    return lists


def trec_eval_run(lists, missed):
    """qrels and run for pytrec_eval: list i retrieves its documents in order; `missed[i]` more relevant
    documents exist that the run never returned."""
    qrels, run = {}, {}
    for q, (grades, n_missed) in enumerate(zip(lists, missed)):
        qid = f"q{q}"
        qrels[qid] = {f"d{i}": int(g) for i, g in enumerate(grades)}
        qrels[qid].update({f"missed{i}": 1 for i in range(n_missed)})
        run[qid] = {f"d{i}": float(len(grades) - i) for i in range(len(grades))}
    return qrels, run


@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_trec_eval_map_and_map_cut(seed):
    lists = random_graded_lists(100 + seed, 30)
    missed = np.random.default_rng(seed).integers(0, 4, len(lists))
    qrels, run = trec_eval_run(lists, missed)
    result = pytrec_eval.RelevanceEvaluator(qrels, {"map", "map_cut.1,5,10,20"}).evaluate(run)
    n_relevant = np.array([sum(g > 0 for g in grades) for grades in lists]) + missed
    for measure, k in (("map", None), ("map_cut_1", 1), ("map_cut_5", 5), ("map_cut_10", 10), ("map_cut_20", 20)):
        ours = average_precision(lists, k, n_relevant=n_relevant)
        theirs = np.array([result.get(f"q{q}", {}).get(measure, 0.0) for q in range(len(lists))])
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12, err_msg=measure)


def test_agrees_with_trec_eval_precision_at_k():
    lists = random_graded_lists(7, 25)
    qrels, run = trec_eval_run(lists, [0] * len(lists))
    result = pytrec_eval.RelevanceEvaluator(qrels, {"P.1,5,10"}).evaluate(run)
    for k in (1, 5, 10):
        ours = precision_at_k(lists, k)
        theirs = [result[f"q{q}"][f"P_{k}"] for q in range(len(lists))]
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


def test_batch_forms_agree():
    lists = random_graded_lists(3, 12)
    width = max(map(len, lists))
    array = np.full((len(lists), width), 9.0)  # the padding value must be ignored
    lengths = np.array([len(g) for g in lists])
    for i, g in enumerate(lists):
        array[i, :len(g)] = g
    mask = np.arange(width) < lengths[:, None]
    ragged = average_precision(lists)
    np.testing.assert_array_equal(average_precision(array, lengths=lengths), ragged)
    np.testing.assert_array_equal(average_precision(array, mask=mask), ragged)
    np.testing.assert_array_equal(ragged, [average_precision(g) for g in lists])


@pytest.mark.parametrize("call, message", [  # nbs/32_precision.ipynb checks the single-list errors
    (lambda: average_precision([[1], [1, 1]], n_relevant=[1, 1]), "list 1 already holds 2"),
    (lambda: average_precision([1, float("nan")]), "finite"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
