"""LightGBM 4.7.0 ndcg@k: a Booster with no tree, init_score = run scores, eval_train() (as tests/test_rankers.py
in ndcg_nb does). Per query: each group evaluated alone. k None -> eval_at = the longest list (full depth)."""
import numpy as np, lightgbm
from .gbm_common import groups
from .common import load_cases, run_variant, save

def ndcg_for(labels, scores, sizes, k, label_gain=None):
    feats = np.zeros((len(labels), 1))
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [k], "verbose": -1, "min_data_in_leaf": 1}
    if label_gain is not None:
        params["label_gain"] = label_gain
    data = lightgbm.Dataset(feats, label=labels, group=sizes, init_score=scores, free_raw_data=False)
    booster = lightgbm.Booster(params=params, train_set=data)
    return [r[2] for r in booster.eval_train()][0]

def make(label_gain=None):
    def fn(case):
        labels, scores, sizes, qids = groups(case)
        k = case["k"] if case["k"] is not None else max(sizes)
        pq, start = {}, 0
        for q, n in zip(qids, sizes):
            pq[q] = ndcg_for(labels[start:start + n], scores[start:start + n], [n], k, label_gain)
            start += n
        return pq, ndcg_for(labels, scores, sizes, k, label_gain)
    return fn

variants = {"ndcg": make(), "ndcg_linear_label_gain": make(list(range(64)))}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("lightgbm", {"version": lightgbm.__version__}, results)
