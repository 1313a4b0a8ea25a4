"""Probe the order XGBoost's ndcg metric gives to n tied scores: one relevant doc at a time, NDCG = 1/log2(rank+1)."""
import json, pathlib, sys
import numpy as np, xgboost
def rank_of(i, n, nthread):
    labels = np.zeros(n); labels[i] = 1
    d = xgboost.DMatrix(np.zeros((n, 1)), label=labels, base_margin=np.ones(n), qid=np.zeros(n, dtype=int))
    b = xgboost.train({"objective": "rank:ndcg", "eval_metric": "ndcg", "nthread": nthread}, d, num_boost_round=0)
    s = b.eval(d); v = float(s.split(":")[1])
    if v == 0: return s
    return round(2 ** (1 / v) - 1)
out = {}
for n in (10, 16, 17, 20, 32, 40):
    for nthread in (1, 4):
        out[f"n={n},nthread={nthread}"] = [rank_of(i, n, nthread) for i in range(n)]
print(json.dumps(out))
json.dump(out, open(pathlib.Path(__file__).resolve().parent.parent / "data" / "conventions" / "probe_xgb_ties.json", "w"), indent=0)
