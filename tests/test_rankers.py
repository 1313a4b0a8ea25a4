"""The lightgbm and xgboost presets against the rankers' own ndcg@k metrics.

Both libraries evaluate fixed scores without training: LightGBM through `init_score` on a
Booster that has no tree yet, XGBoost through `base_margin` with zero boosting rounds.
Groups have tied scores and some groups have no relevant document (both score those 1).
"""
import numpy as np
import pytest

from ndcg_nb.evaluation import evaluate

DEPTHS = (1, 3, 5, 10)


def groups(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 30, 40)
    labels = np.concatenate([rng.integers(0, 5, s) for s in sizes]).astype(float)
    labels[:sizes[0]] = 0
    scores = rng.integers(0, 12, len(labels)) / 4.0
    query = np.repeat(np.arange(len(sizes)), sizes)
    qrels = {f"q{g}": {} for g in range(len(sizes))}
    run = {f"q{g}": {} for g in range(len(sizes))}
    for i, (g, label, score) in enumerate(zip(query, labels, scores)):
        qrels[f"q{g}"][f"d{i}"] = float(label)
        run[f"q{g}"][f"d{i}"] = float(score)
    features = rng.normal(size=(len(labels), 2))
    return sizes, labels, scores, query, features, qrels, run


@pytest.mark.parametrize("seed", range(6))
def test_lightgbm_preset_matches_lightgbm(seed):
    lightgbm = pytest.importorskip("lightgbm")
    sizes, labels, scores, _, features, qrels, run = groups(seed)
    data = lightgbm.Dataset(features, label=labels, group=sizes, init_score=scores, free_raw_data=False)
    booster = lightgbm.Booster(params={"objective": "lambdarank", "metric": "ndcg", "eval_at": list(DEPTHS),
                                       "verbose": -1}, train_set=data)
    theirs = {r.metric_name: r.metric_value for r in booster.eval_train()}
    ours = evaluate(qrels, run, [f"nDCG@{k}" for k in DEPTHS], preset="lightgbm")
    for k in DEPTHS:
        assert ours.value(f"nDCG@{k}") == pytest.approx(theirs[f"ndcg@{k}"], abs=1e-12, rel=0), k


@pytest.mark.parametrize("seed", range(6))
def test_xgboost_preset_matches_xgboost(seed):
    xgboost = pytest.importorskip("xgboost")
    _, labels, scores, query, features, qrels, run = groups(seed)
    data = xgboost.DMatrix(features, label=labels, base_margin=scores, qid=query)
    metrics = [f"ndcg@{k}" for k in DEPTHS] + ["ndcg"]
    booster = xgboost.train({"objective": "rank:ndcg", "eval_metric": metrics}, data, num_boost_round=0)
    reported = booster.eval(data).split("\t")[1:]
    theirs = {name.split(":")[0].removeprefix("eval-"): float(name.split(":")[1]) for name in reported}
    ours = evaluate(qrels, run, [f"nDCG@{k}" for k in DEPTHS] + ["ndcg"], preset="xgboost")
    for k in DEPTHS:
        assert ours.value(f"nDCG@{k}") == pytest.approx(theirs[f"ndcg@{k}"], abs=1e-12, rel=0), k
    assert ours.value("ndcg") == pytest.approx(theirs["ndcg"], abs=1e-12, rel=0)
