"""Microsoft Recommenders 1.2.1 (installed --no-deps): recommenders.evaluation.python_evaluation.ndcg_at_k with
rating_true = qrels rows, rating_pred = run rows, relevancy_method='top_k', k = case k or 1000, score_type
binary/raw/exp. Per query: ndcg_at_k on the rows of that query alone (a query absent from one side -> its own value)."""
import pandas as pd
from recommenders.evaluation.python_evaluation import ndcg_at_k
from .common import load_cases, run_variant, save

def frames(case, only=None):
    t = [(q, d, float(g)) for q, docs in case["qrels"].items() for d, g in docs.items() if only in (None, q)]
    p = [(q, d, float(s)) for q, docs in case["run"].items() for d, s in docs.items() if only in (None, q)]
    return (pd.DataFrame(t, columns=["userID", "itemID", "rating"]),
            pd.DataFrame(p, columns=["userID", "itemID", "prediction"]))

def make(score_type):
    def fn(case):
        k = case["k"] if case["k"] is not None else 1000
        pq = {}
        for q in sorted(set(case["qrels"]) | set(case["run"])):
            t, p = frames(case, q)
            try:
                pq[q] = ndcg_at_k(t, p, k=k, score_type=score_type)
            except Exception as e:
                pq[q] = f"{type(e).__name__}: {e}"[:120]
        t, p = frames(case)
        return pq, ndcg_at_k(t, p, k=k, score_type=score_type)
    return fn

variants = {f"ndcg_at_k_{s}": make(s) for s in ("binary", "raw", "exp")}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("recommenders", {"version": "1.2.1", "notes": "discfun_type default 'loge' (cancels); k=1000 when case has none"}, results)
