"""scikit-learn ndcg_score, one row per query of the run: the retrieved documents in run order, y_true = grade
(unjudged 0, so a run query without qrels is a row of zeros, which ndcg_score scores 0), y_score = run score.
ignore_ties False (averaged) and True (np.argsort reversed). Mean = plain mean of the per-query values (= ndcg_score
on rows of equal length); queries only in the qrels are not representable (a user of ndcg_score has no row for them).
A row scikit-learn refuses (one document, a negative grade) is recorded as its error text, and the case then has no
mean; a case whose every row is refused is the refusal."""
import numpy as np, sklearn
from sklearn.metrics import ndcg_score
from .common import load_cases, run_variant, mean, save

def make(ignore_ties):
    def fn(case):
        pq = {}
        for q, docs in case["run"].items():
            g = [case["qrels"].get(q, {}).get(d, 0) for d in docs]
            s = list(docs.values())
            try:
                pq[q] = ndcg_score([g], [s], k=case["k"], ignore_ties=ignore_ties)
            except ValueError as refused:
                pq[q] = f"ValueError: {refused}"
        refused = [v for v in pq.values() if isinstance(v, str)]
        if refused and len(refused) == len(pq):
            raise ValueError(refused[0].split(": ", 1)[1])
        return pq, None if refused else mean(pq.values())
    return fn

variants = {"ndcg_score": make(False), "ndcg_score_ignore_ties": make(True)}
if __name__ == "__main__":   # the census run; tests import `variants` only
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("sklearn", {"version": sklearn.__version__, "numpy": np.__version__,
         "notes": "a run query without qrels is a row of zeros (sklearn has no query notion); ignore_ties=True depends on np.argsort of this NumPy build/CPU"}, results)
