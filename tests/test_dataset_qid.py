"""`ndcg_dataset(labels, k, scores=..., qid=...)` groups rows by query as `ndcg(..., qid=...)` does, and
agrees with scikit-learn's `ndcg_score` on the same queries laid out as rows of a matrix."""
import numpy as np
import pandas as pd
import pytest

from ndcg_nb import ndcg, ndcg_dataset
from ndcg_nb.errors import InputError, UsageError

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def _queries(seed: int, n_queries: int = 30, length: int = 12):
    "Labels and scores of equal-length queries (a matrix each, as scikit-learn takes them), with tied scores and some queries without a relevant document."
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, (n_queries, length)) * (rng.random((n_queries, 1)) > 0.15)   # ~15% all zero
    scores = np.round(rng.normal(size=(n_queries, length)), 1)                             # ties within queries
    return labels, scores


def _as_rows(labels, scores, seed: int):
    "The matrices as one row per document, each with its query id, rows shuffled (query order lost)."
    ids = np.repeat([f"q{i:02d}" for i in range(len(labels))], labels.shape[1])
    order = np.random.default_rng(seed).permutation(labels.size)
    return labels.ravel()[order], scores.ravel()[order], ids[order]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [None, 1, 5, 10])
def test_qid_agrees_with_sklearn(seed, k):
    labels, scores = _queries(seed)
    assert (labels.sum(axis=1) == 0).any() and any(len(set(row)) < len(row) for row in scores)
    flat_labels, flat_scores, qid = _as_rows(labels, scores, seed)
    ours = ndcg_dataset(flat_labels, k, scores=flat_scores, qid=qid)
    assert ours.value == pytest.approx(sklearn_metrics.ndcg_score(labels, scores, k=k), abs=1e-12)
    per_query = ours.per_list.sort_index()
    expected = [sklearn_metrics.ndcg_score(labels[i:i + 1], scores[i:i + 1], k=k) for i in range(len(labels))]
    np.testing.assert_allclose(per_query.to_numpy(), expected, rtol=0, atol=1e-12)
    assert list(per_query.index) == [f"q{i:02d}" for i in range(len(labels))]


@pytest.mark.parametrize("seed", range(4))
def test_weights_by_query_agree_with_sklearn_sample_weight(seed):
    labels, scores = _queries(seed)
    weights = np.random.default_rng(seed + 100).uniform(0.1, 3.0, len(labels))
    flat_labels, flat_scores, qid = _as_rows(labels, scores, seed)
    by_query = pd.Series(weights, index=[f"q{i:02d}" for i in range(len(labels))]).sample(frac=1, random_state=seed)
    ours = ndcg_dataset(flat_labels, 5, scores=flat_scores, qid=qid, weights=by_query)
    theirs = sklearn_metrics.ndcg_score(labels, scores, k=5, sample_weight=weights)
    assert ours.value == pytest.approx(theirs, abs=1e-12)
    in_order = by_query[list(ours.per_list.index)].to_numpy()          # one per query, in order of first appearance
    assert ndcg_dataset(flat_labels, 5, scores=flat_scores, qid=qid, weights=in_order).value == pytest.approx(theirs, abs=1e-12)
    with pytest.raises(InputError, match="weights has no weight for query"):
        ndcg_dataset(flat_labels, 5, scores=flat_scores, qid=qid, weights=by_query.iloc[1:])


def test_same_as_the_ndcg_path():
    "Every option of the dataset score on qid= rows equals what `ndcg(..., qid=)` gives, averaged as the option says."
    rng = np.random.default_rng(9)
    sizes = rng.integers(1, 25, 40)                                     # ragged queries
    qid = np.repeat(np.arange(40) * 7, sizes)                           # integer ids
    order = rng.permutation(len(qid))
    labels, scores, qid = rng.integers(0, 3, len(qid))[order], rng.normal(size=len(qid))[order], qid[order]
    for k in (None, 3, 10):
        for gain in ("linear", "exponential"):
            per_query = ndcg(labels, k, scores=scores, qid=qid, gain=gain)
            result = ndcg_dataset(labels, k, scores=scores, qid=qid, gain=gain)
            pd.testing.assert_series_equal(result.per_list, per_query)
            assert result.value == pytest.approx(per_query.mean(), abs=1e-15)
            skipped = ndcg_dataset(labels, k, scores=scores, qid=qid, gain=gain, zero_idcg="skip")
            assert skipped.value == pytest.approx(ndcg(labels, k, scores=scores, qid=qid, gain=gain, zero_idcg="skip").mean(), abs=1e-15)
            assert skipped.n_lists == 40 and skipped.n_counted == 40 - skipped.n_zero_idcg


def test_qid_refusals():
    with pytest.raises(UsageError, match="give qid= alone"):
        ndcg_dataset([1, 0, 1], group_sizes=[3], qid=["a", "a", "a"])
    with pytest.raises(InputError, match="qid must hold one query id per row"):
        ndcg_dataset([1, 0, 1], qid=["a", "a"])
    with pytest.raises(InputError, match="qid is missing at row 1"):
        ndcg_dataset([1, 0, 1], qid=["a", None, "a"])
