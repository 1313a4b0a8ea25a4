"""`scores=` input of the core metrics against independent implementations.

scikit-learn's `ndcg_score(y_true, y_score)` for 2-D arrays (both tie modes), LightGBM's and
XGBoost's own ndcg@k for 1-D labels and scores with query group sizes, and skewed list lengths
against the same lists scored one at a time.
"""
import numpy as np
import pytest

from ndcg_nb import ndcg, ndcg_dataset
from tests.test_rankers import DEPTHS, groups

sklearn_metrics = pytest.importorskip("sklearn.metrics")


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [1, 3, 10, None])
def test_tie_averaged_scores_match_sklearn_per_list(seed, k):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 5, (60, 25)).astype(float)
    scores = rng.integers(0, 8, (60, 25)) / 2.0               # many ties
    ours = ndcg(labels, k, scores=scores, ties="average")
    theirs = [sklearn_metrics.ndcg_score(labels[i:i + 1], scores[i:i + 1], k=k) for i in range(len(labels))]
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    assert float(np.mean(ours)) == pytest.approx(sklearn_metrics.ndcg_score(labels, scores, k=k), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [1, 5, None])
def test_input_order_ties_match_sklearn_ignore_ties_without_ties(seed, k):
    rng = np.random.default_rng(100 + seed)
    labels = rng.random((40, 30)) * 3                          # real-valued relevance too
    scores = np.argsort(rng.random((40, 30)), axis=1) / 7.0   # distinct scores: sklearn's unstable sort cannot matter
    ours = ndcg(labels, k, scores=scores, ties="input")
    assert float(np.mean(ours)) == pytest.approx(
        sklearn_metrics.ndcg_score(labels, scores, k=k, ignore_ties=True), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_group_sizes_match_lightgbm(seed):
    lightgbm = pytest.importorskip("lightgbm")
    sizes, labels, scores, _, features, _, _ = groups(seed)
    data = lightgbm.Dataset(features, label=labels, group=sizes, init_score=scores, free_raw_data=False)
    booster = lightgbm.Booster(params={"objective": "lambdarank", "metric": "ndcg", "eval_at": list(DEPTHS),
                                       "verbose": -1}, train_set=data)
    theirs = {r.metric_name: r.metric_value for r in booster.eval_train()}
    for k in DEPTHS:
        ours = ndcg_dataset(labels, k, scores=scores, group_sizes=sizes, ties="input", gain="exponential",
                            zero_idcg="one").value
        assert ours == pytest.approx(theirs[f"ndcg@{k}"], abs=1e-12, rel=0), k


@pytest.mark.parametrize("seed", range(4))
def test_group_sizes_match_xgboost(seed):
    xgboost = pytest.importorskip("xgboost")
    sizes, labels, scores, query, features, _, _ = groups(seed)
    data = xgboost.DMatrix(features, label=labels, base_margin=scores, qid=query)
    metrics = [f"ndcg@{k}" for k in DEPTHS]
    booster = xgboost.train({"objective": "rank:ndcg", "eval_metric": metrics}, data, num_boost_round=0)
    reported = booster.eval(data).split("\t")[1:]
    theirs = {name.split(":")[0].removeprefix("eval-"): float(name.split(":")[1]) for name in reported}
    for k in DEPTHS:
        ours = ndcg_dataset(labels, k, scores=scores, group_sizes=sizes, ties="input", gain="exponential",
                            zero_idcg="one").value
        assert ours == pytest.approx(theirs[f"ndcg@{k}"], abs=1e-12, rel=0), k


def test_skewed_lengths_equal_one_list_at_a_time():
    rng = np.random.default_rng(3)
    sizes = np.r_[rng.integers(0, 12, 300), 5000, 1]            # one very long list among short ones
    labels = rng.integers(0, 4, sizes.sum()).astype(float)
    scores = rng.integers(0, 20, sizes.sum()) / 4.0
    starts = np.r_[0, np.cumsum(sizes)]
    for k in (3, None):
        batch = ndcg(labels, k, scores=scores, group_sizes=sizes)
        one_by_one = [ndcg(labels[a:b], k, scores=scores[a:b]) if b > a else 0.0 for a, b in zip(starts, starts[1:])]
        np.testing.assert_allclose(batch, one_by_one, rtol=0, atol=1e-12)
