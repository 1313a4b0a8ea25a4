"""scikit-learn ndcg_score, one row per query: the retrieved documents in run order, y_true = grade (unjudged 0),
y_score = run score. ignore_ties False (averaged) and True (np.argsort reversed). Mean = plain mean of the
per-query values (= ndcg_score on rows of equal length); queries only in the qrels are not representable."""
import numpy as np, sklearn
from sklearn.metrics import ndcg_score
from .common import load_cases, run_variant, mean, save

def make(ignore_ties):
    def fn(case):
        pq = {}
        for q, docs in case["run"].items():
            if q not in case["qrels"]:
                continue
            g = [case["qrels"][q].get(d, 0) for d in docs]
            s = list(docs.values())
            pq[q] = ndcg_score([g], [s], k=case["k"], ignore_ties=ignore_ties)
        return pq, mean(pq.values())
    return fn

variants = {"ndcg_score": make(False), "ndcg_score_ignore_ties": make(True)}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("sklearn", {"version": sklearn.__version__, "numpy": np.__version__,
         "notes": "run queries without qrels are skipped (sklearn has no query notion); ignore_ties=True depends on np.argsort of this NumPy build/CPU"}, results)
