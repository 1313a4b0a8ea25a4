"""CatBoost 1.2.10 NDCG: catboost.utils.eval_metric(label, approx, 'NDCG:type=..;denominator=..;top=k', group_id=...).
Per query: each group alone. Variants: type Base/Exp x denominator LogPosition/Position."""
import numpy as np, catboost
from catboost.utils import eval_metric
from .gbm_common import groups
from .common import load_cases, run_variant, save

def ndcg_for(labels, scores, sizes, k, typ, den):
    gid = np.repeat(np.arange(len(sizes)), sizes)
    spec = f"NDCG:type={typ};denominator={den}" + (f";top={k}" if k is not None else "")
    return eval_metric(labels.tolist(), scores.tolist(), spec, group_id=gid.tolist())[0]

def make(typ, den):
    def fn(case):
        labels, scores, sizes, qids = groups(case)
        pq, start = {}, 0
        for q, n in zip(qids, sizes):
            pq[q] = ndcg_for(labels[start:start + n], scores[start:start + n], [n], case["k"], typ, den)
            start += n
        return pq, ndcg_for(labels, scores, sizes, case["k"], typ, den)
    return fn

variants = {f"NDCG_{t}_{d}": make(t, d) for t in ("Base", "Exp") for d in ("LogPosition", "Position")}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("catboost", {"version": catboost.__version__}, results)
