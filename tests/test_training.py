"""ndcg_nb.integrations.training inside real training loops, against the libraries' own metrics.

LightGBM and XGBoost train small LambdaMART models on generated graded data while evaluating
both their own `ndcg@k` and ours; every round's values must agree to 1e-12 (XGBoost prints a
custom metric with six decimals, so our values are recorded as returned). The scikit-learn
drop-in is compared with `sklearn.metrics.ndcg_score`, values and refusals; the scorer runs in
a real GridSearchCV and cross_val_score with metadata routing.
"""
import numpy as np
import pytest

from ndcg_nb import ndcg
from ndcg_nb.errors import InputError, UsageError
from ndcg_nb.integrations.training import (NdcgMetric, QueryGroups, as_array, catboost_ndcg, lightgbm_ndcg, ndcg_score,
                              ndcg_scorer, xgboost_ndcg)

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")
sklearn_metrics = pytest.importorskip("sklearn.metrics")

DEPTHS = (1, 3, 10)
LGB_PARAMS = {"objective": "lambdarank", "metric": "ndcg", "eval_at": list(DEPTHS), "verbose": -1, "num_leaves": 7,
              "min_data_in_leaf": 5, "learning_rate": 0.3, "num_threads": 2, "deterministic": True}


def graded(seed, n_groups=120, min_size=1, max_size=40):
    "Groups of uneven size, graded 0-4 by a noisy feature; the first group has no relevant document."
    rng = np.random.default_rng(seed)
    sizes = rng.integers(min_size, max_size, n_groups)
    n = int(sizes.sum())
    features = rng.normal(size=(n, 5))
    labels = np.clip(np.round(features[:, 0] + 0.8 * rng.normal(size=n) + 1), 0, 4)
    labels[:sizes[0]] = 0
    return sizes, features, labels, rng


def assert_rounds_equal(theirs, ours):
    theirs, ours = np.asarray(theirs), np.asarray(ours)
    assert len(theirs) == len(ours) > 1
    assert len(np.unique(theirs)) > 1                    # the model moved: the comparison covers several rankings
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed,weighted", [(0, False), (1, True)])
def test_lightgbm_train_feval_matches_lightgbm_ndcg(seed, weighted):
    sizes, features, labels, rng = graded(seed)
    weight = rng.uniform(0.5, 2.0, len(labels)) if weighted else None
    train = lgb.Dataset(features, label=labels, group=sizes, weight=weight)
    vsizes, vfeatures, vlabels, _ = graded(seed + 100, n_groups=60)
    valid = lgb.Dataset(vfeatures, label=vlabels, group=vsizes, reference=train)
    history = {}
    lgb.train(LGB_PARAMS, train, num_boost_round=8, valid_sets=[train, valid], valid_names=["train", "valid"],
              feval=lightgbm_ndcg(DEPTHS), callbacks=[lgb.record_evaluation(history)])
    for name in ("train", "valid"):
        for k in DEPTHS:
            assert_rounds_equal(history[name][f"ndcg@{k}"], history[name][f"ndcg_nb@{k}"])


def test_lgbm_ranker_eval_metric_matches_lightgbm_ndcg():
    sizes, features, labels, _ = graded(2)
    vsizes, vfeatures, vlabels, _ = graded(3, n_groups=50)
    ranker = lgb.LGBMRanker(n_estimators=8, num_leaves=7, min_child_samples=5, learning_rate=0.3, verbose=-1,
                            n_jobs=2)
    ranker.fit(features, labels, group=sizes, eval_X=(vfeatures,), eval_y=(vlabels,), eval_group=[vsizes],
               eval_at=list(DEPTHS), eval_metric=lightgbm_ndcg(DEPTHS, name="ours"))
    result = ranker.evals_result_["valid_0"]
    for k in DEPTHS:
        assert_rounds_equal(result[f"ndcg@{k}"], result[f"ours@{k}"])


def test_xgboost_custom_metric_matches_xgboost_ndcg():
    sizes, features, labels, rng = graded(4, min_size=2)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    for group_weights in (None, rng.uniform(0.5, 2.0, len(sizes))):
        data = xgb.DMatrix(features, label=labels, qid=qid, weight=group_weights)
        metric, returned = xgboost_ndcg(DEPTHS), []

        def recorded(predt, dmatrix):
            returned.append(dict(metric(predt, dmatrix)))
            return metric(predt, dmatrix)

        history = {}
        xgb.train({"objective": "rank:ndcg", "eval_metric": [f"ndcg@{k}" for k in DEPTHS], "max_depth": 3,
                   "nthread": 2}, data, num_boost_round=8, evals=[(data, "train")], custom_metric=recorded,
                  evals_result=history, verbose_eval=False)
        for k in DEPTHS:
            assert_rounds_equal(history["train"][f"ndcg@{k}"], [r[f"ndcg_nb@{k}"] for r in returned])


def test_other_policies_during_training_equal_the_engine():
    "A padding truncation and averaged ties (the engine path and the tie path) on the scores each round saw."
    sizes, features, labels, _ = graded(5)
    metrics = {"pad": lightgbm_ndcg(DEPTHS, name="pad", truncation="pad:fill=-1"),
               "avg": lightgbm_ndcg(DEPTHS, name="avg", preset="sklearn", ties="average")}
    engine = {"pad": dict(gain="exponential", ties="input", truncation="pad:fill=-1", zero_idcg="one"),
              "avg": dict(ties="average")}
    seen = []

    def both(preds, dataset):
        seen.append(np.array(preds))
        return metrics["pad"](preds, dataset) + metrics["avg"](preds, dataset)

    history = {}
    lgb.train(LGB_PARAMS, lgb.Dataset(features, label=labels, group=sizes), num_boost_round=5,
              valid_sets=[lgb.Dataset(features, label=labels, group=sizes)], valid_names=["t"], feval=both,
              callbacks=[lgb.record_evaluation(history)])
    assert len(seen) == 5
    for name, policies in engine.items():
        for k in DEPTHS:
            expected = [ndcg(labels, k, scores=s, group_sizes=sizes, **policies).mean() for s in seen]
            np.testing.assert_allclose(history["t"][f"{name}@{k}"], expected, rtol=0, atol=1e-12)
    assert history["t"]["pad@10"][-1] < history["t"]["ndcg@10"][-1]      # short groups pay for empty places


def test_groups_prepared_once_and_policies_resolved_once(monkeypatch):
    sizes, features, labels, _ = graded(6)
    metric = lightgbm_ndcg(DEPTHS, truncation="pad:fill=-1")            # the engine path, which takes policies
    made = []
    original = QueryGroups.__init__

    def counting(self, *args, **kwargs):
        made.append(1)
        original(self, *args, **kwargs)

    def refuse(*args, **kwargs):
        raise AssertionError("a policy was resolved during training")

    monkeypatch.setattr(QueryGroups, "__init__", counting)
    for module in ("ndcg_nb.metrics.core", "ndcg_nb.plugins"):      # the training modules resolve none themselves
        monkeypatch.setattr(f"{module}.resolve_policy", refuse)
    train = lgb.Dataset(features, label=labels, group=sizes)
    lgb.train(LGB_PARAMS, train, num_boost_round=6, valid_sets=[train], feval=metric)
    assert made == [1]


def test_bad_input_is_named():
    metric = lightgbm_ndcg(10)
    with pytest.raises(UsageError, match="depth k must be a positive integer"):
        lightgbm_ndcg([10, -1])
    with pytest.raises(UsageError, match="unknown truncation policy 'chop'"):
        xgboost_ndcg(10, truncation="chop")
    with pytest.raises(InputError, match="got scores of shape \\(3, 2\\) for 6 labels"):
        metric.evaluate(np.zeros(6), np.zeros((3, 2)), [6])
    data = xgb.DMatrix(np.zeros((4, 1)), label=np.zeros(4))
    with pytest.raises(UsageError, match="the DMatrix has no query groups"):
        xgboost_ndcg(5)(np.zeros(4, dtype=np.float32), data)


# scikit-learn ------------------------------------------------------------------------------

def _cases(seed):
    rng = np.random.default_rng(seed)
    rows, cols = int(rng.integers(1, 30)), int(rng.integers(2, 25))
    y_true = rng.integers(0, 4, (rows, cols)).astype(float)
    if seed % 3 == 1:
        y_true = rng.random((rows, cols)) * 3                      # real-valued relevance
    if seed % 4 == 2:
        y_true[0] = 0                                               # a query with nothing relevant
    y_score = rng.integers(0, 5, (rows, cols)) / 2.0 if seed % 2 else rng.normal(size=(rows, cols))
    weight = rng.uniform(0, 3, rows) if seed % 5 == 3 else None
    return y_true, y_score, weight


@pytest.mark.parametrize("seed", range(40))
def test_ndcg_score_equals_sklearn(seed):
    y_true, y_score, weight = _cases(seed)
    for k in (None, 1, 3, 50):
        for ignore_ties in (False, True):
            theirs = sklearn_metrics.ndcg_score(y_true, y_score, k=k, sample_weight=weight, ignore_ties=ignore_ties)
            ours = ndcg_score(y_true, y_score, k=k, sample_weight=weight, ignore_ties=ignore_ties)
            assert isinstance(ours, float)
            assert ours == pytest.approx(theirs, abs=1e-12, rel=0), (k, ignore_ties)


def test_ndcg_score_integer_and_binary_inputs_equal_sklearn():
    y_true = [[1, 0, 1, 1], [0, 0, 1, 0]]
    y_score = [[3, 1, 2, 0], [1, 1, 1, 2]]
    for k in (None, 2):
        assert ndcg_score(y_true, y_score, k=k) == pytest.approx(sklearn_metrics.ndcg_score(y_true, y_score, k=k),
                                                                   abs=1e-12)


BAD = {
    "negative relevance": ([[1, -1, 0]], [[1, 2, 3]], {}),
    "one document per query": ([[1], [2]], [[1], [2]], {}),
    "1-D y_true": ([1, 0, 2], [1, 2, 3], {}),
    "3-D y_true": (np.ones((2, 2, 2)), np.ones((2, 2, 2)), {}),
    "NaN score": ([[1, 0]], [[np.nan, 1]], {}),
    "inf relevance": ([[np.inf, 0]], [[0, 1]], {}),
    "text": ([["a", "b"]], [[1, 2]], {}),
    "empty": (np.zeros((0, 3)), np.zeros((0, 3)), {}),
    "rows differ": ([[1, 0], [0, 1]], [[1, 2]], {}),
    "weights length": ([[1, 0], [0, 1]], [[1, 2], [2, 1]], {"sample_weight": [1.0]}),
    "k zero": ([[1, 0]], [[1, 2]], {"k": 0}),
    "k float": ([[1, 0]], [[1, 2]], {"k": 2.5}),
    "ignore_ties not bool": ([[1, 0]], [[1, 2]], {"ignore_ties": 1}),
}


@pytest.mark.parametrize("case", BAD)
def test_ndcg_score_refuses_what_sklearn_refuses(case):
    y_true, y_score, kwargs = BAD[case]
    with pytest.raises(ValueError):
        sklearn_metrics.ndcg_score(y_true, y_score, **kwargs)
    with pytest.raises(ValueError) as caught:
        ndcg_score(y_true, y_score, **kwargs)
    assert isinstance(caught.value, (InputError, UsageError))


def test_ndcg_score_refuses_a_score_shape_sklearn_misreads():
    with pytest.raises(InputError, match="y_score has shape \\(1, 2\\) but y_true has shape \\(1, 3\\)"):
        ndcg_score([[1, 0, 2]], [[1, 2]])


def _ranking_data(seed=7):
    sizes, features, labels, _ = graded(seed, n_groups=45, min_size=2, max_size=15)
    return features, labels, np.repeat(np.arange(len(sizes)), sizes)


def _fold_score(params, features, labels, qid, train, test, k):
    "A fold scored independently: refit, predict, then sklearn's ndcg_score one query at a time."
    model = xgb.XGBRanker(**params).fit(features[train], labels[train], qid=qid[train])
    scores = model.predict(features[test])
    per_query = [sklearn_metrics.ndcg_score(labels[test][qid[test] == q][None], scores[qid[test] == q][None], k=k)
                 for q in np.unique(qid[test])]
    return float(np.mean(per_query))


def test_scorer_in_grid_search_with_routed_query_ids():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV, GroupKFold
    features, labels, qid = _ranking_data()
    base = {"n_estimators": 4, "learning_rate": 0.3, "n_jobs": 1, "tree_method": "hist"}
    grid = {"max_depth": [1, 3]}
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(xgb.XGBRanker(**base).set_fit_request(qid=True), grid, cv=GroupKFold(3),
                              scoring=ndcg_scorer(5))
        search.fit(features, labels, qid=qid, groups=qid)
    splits = list(GroupKFold(3).split(features, labels, groups=qid))
    for i, depth in enumerate(grid["max_depth"]):
        for fold, (train, test) in enumerate(splits):
            expected = _fold_score({**base, "max_depth": depth}, features, labels, qid, train, test, 5)
            assert search.cv_results_[f"split{fold}_test_score"][i] == pytest.approx(expected, abs=1e-12, rel=0)
    assert search.best_params_["max_depth"] in grid["max_depth"]


def test_scorer_in_cross_val_score_and_without_routing():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.model_selection import GroupKFold, cross_val_score
    features, labels, qid = _ranking_data(8)
    model = xgb.XGBRanker(n_estimators=3, max_depth=2, n_jobs=1)
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(model.set_fit_request(qid=True), features, labels, cv=GroupKFold(2),
                                 scoring=ndcg_scorer(10, preset="xgboost"), params={"qid": qid, "groups": qid})
    assert len(scores) == 2 and ((0 < scores) & (scores <= 1)).all()
    fitted = xgb.XGBRanker(n_estimators=3, max_depth=2, n_jobs=1).fit(features, labels, qid=qid)
    with pytest.raises(UsageError, match="needs the query id of every row"):
        ndcg_scorer(10)(fitted, features, labels)


# PyTorch and other array libraries -----------------------------------------------------------

def test_tensors_are_read_without_copy_and_give_the_same_numbers():
    torch = pytest.importorskip("torch")
    y_true, y_score, _ = _cases(11)
    scores = torch.tensor(y_score)
    assert as_array(scores).__array_interface__["data"][0] == scores.data_ptr()
    assert ndcg_score(torch.tensor(y_true), scores, k=3) == pytest.approx(
        sklearn_metrics.ndcg_score(y_true, y_score, k=3), abs=1e-12, rel=0)
    metric = NdcgMetric(5, preset="lightgbm")
    flat_sizes = np.full(len(y_true), y_true.shape[1])
    assert metric.evaluate(torch.tensor(y_true.ravel()), scores.reshape(-1), torch.tensor(flat_sizes)) == \
        metric.evaluate(y_true.ravel(), y_score.ravel(), flat_sizes)
    graded = scores.clone().requires_grad_(True)            # read through .detach(), as a training loop holds it
    assert ndcg_score(y_true, graded, k=3) == ndcg_score(y_true, y_score, k=3)


def test_xgbranker_eval_metric_matches_xgboost_ndcg():
    "XGBRanker calls the metric once per group; with groups of one length its mean is XGBoost's ndcg@10's."
    rng = np.random.default_rng(7)
    sizes = np.full(60, 12)
    features, labels = rng.normal(size=(sizes.sum(), 5)), rng.integers(0, 4, sizes.sum()).astype(float)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    rounds = []
    for metric, name in (("ndcg@10", "ndcg@10"), (xgboost_ndcg(10), "ndcg_nb@10")):
        ranker = xgb.XGBRanker(n_estimators=6, max_depth=3, n_jobs=2, eval_metric=metric)
        ranker.fit(features, labels, qid=qid, eval_set=[(features, labels)], eval_qid=[qid], verbose=False)
        rounds.append(ranker.evals_result()["validation_0"][name])
    assert len(np.unique(rounds[0])) > 1
    np.testing.assert_allclose(rounds[1], rounds[0], rtol=0, atol=5e-7)    # XGBoost keeps 6 decimals of a custom metric
    with pytest.raises(UsageError, match="pass several to xgboost.train"):
        xgb.XGBRanker(n_estimators=1, eval_metric=xgboost_ndcg([3, 10])).fit(
            features, labels, qid=qid, eval_set=[(features, labels)], eval_qid=[qid], verbose=False)


def test_catboost_eval_metric_matches_catboost_ndcg():
    catboost = pytest.importorskip("catboost", reason="catboost is not installed (dev extra: pip install catboost)")
    sizes, features, labels, _ = graded(8, n_groups=80, min_size=2)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    cut = int(np.searchsorted(np.cumsum(sizes), int(sizes.sum() * 0.6)))
    split = int(np.cumsum(sizes)[cut])
    train, valid = slice(0, split), slice(split, None)
    metric = catboost_ndcg(10, group_id=[qid[train], qid[valid]])
    model = catboost.CatBoostRanker(iterations=8, depth=3, loss_function="YetiRank", eval_metric=metric,
                                    custom_metric=["NDCG:top=10;type=Base"], random_seed=0, thread_count=2,
                                    allow_writing_files=False, verbose=False)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # CatBoost tries to compile the metric with numba first
        model.fit(features[train], labels[train], group_id=qid[train],
                  eval_set=catboost.Pool(features[valid], labels[valid], group_id=qid[valid]))
    history = model.get_evals_result()["validation"]
    assert_rounds_equal(history["NDCG:top=10;type=Base"], history[type(metric).__name__])


def test_catboost_metric_without_groups_says_what_to_give():
    with pytest.raises(UsageError, match="group_id=\\[train_qid, valid_qid\\]"):
        catboost_ndcg(10)


class StandInTensor:
    "The part of a torch tensor ndcg_nb uses: refuses to be read until detached and on the CPU."
    def __init__(self, array, requires_grad=True, device="cuda:0"):
        self.array, self.requires_grad, self.device = np.asarray(array, dtype=float), requires_grad, device

    def detach(self):
        return StandInTensor(self.array, False, self.device)

    def cpu(self):
        return StandInTensor(self.array, self.requires_grad, "cpu")

    def __array__(self, dtype=None, copy=None):
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self.device != "cpu":
            raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() first")
        return self.array if dtype is None else self.array.astype(dtype)


def test_tensors_that_require_grad_or_live_on_a_gpu_are_read():
    y_true, y_score, _ = _cases(12)
    expected = ndcg_score(y_true, y_score, k=3)
    assert ndcg_score(StandInTensor(y_true), StandInTensor(y_score), k=3) == expected
    metric = NdcgMetric(5, preset="lightgbm")
    sizes = np.full(len(y_true), y_true.shape[1])
    assert metric.evaluate(StandInTensor(y_true.ravel()), StandInTensor(y_score.ravel()), sizes) == \
        metric.evaluate(y_true.ravel(), y_score.ravel(), sizes)


def test_real_torch_tensor_that_requires_grad():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    y_true, y_score, _ = _cases(13)
    scores = torch.tensor(y_score, requires_grad=True)
    assert ndcg_score(y_true, scores * 1.0, k=3) == ndcg_score(y_true, y_score, k=3)
    if torch.cuda.is_available():
        assert ndcg_score(y_true, scores.cuda(), k=3) == ndcg_score(y_true, y_score, k=3)
