"""XGBoost 3.2.0 ndcg@k / ndcg-@k: DMatrix(base_margin=scores, qid=...), xgboost.train(num_boost_round=0),
booster.eval() (as ndcg_nb's tests/test_rankers.py). Also ndcg_exp_gain=False (linear, negatives kept).
Per query: each group evaluated alone. The eval string is parsed (XGBoost prints the value as it formats it)."""
import numpy as np, xgboost
from .gbm_common import groups
from .common import load_cases, run_variant, save

def ndcg_for(labels, scores, sizes, k, metric, exp_gain):
    qid = np.repeat(np.arange(len(sizes)), sizes)
    feats = np.zeros((len(labels), 1))
    data = xgboost.DMatrix(feats, label=labels, base_margin=scores, qid=qid)
    if metric == "ndcg-":
        name = "ndcg-" if k is None else f"ndcg@{k}-"
    else:
        name = metric if k is None else f"{metric}@{k}"
    params = {"objective": "rank:ndcg", "eval_metric": [name], "ndcg_exp_gain": exp_gain}
    booster = xgboost.train(params, data, num_boost_round=0)
    s = booster.eval(data)
    return float(s.split("\t")[1].split(":")[1])

def make(metric, exp_gain=True):
    def fn(case):
        labels, scores, sizes, qids = groups(case)
        k = case["k"]
        pq, start = {}, 0
        for q, n in zip(qids, sizes):
            pq[q] = ndcg_for(labels[start:start + n], scores[start:start + n], [n], k, metric, exp_gain)
            start += n
        return pq, ndcg_for(labels, scores, sizes, k, metric, exp_gain)
    return fn

variants = {"ndcg": make("ndcg"), "ndcg-": make("ndcg-"), "ndcg_linear_exp_gain_false": make("ndcg", False)}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("xgboost", {"version": xgboost.__version__}, results)
