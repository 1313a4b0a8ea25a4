"""RecBole 1.2.1 NDCG.metric_info (recbole/evaluator/metrics.py), the metric's own arithmetic on each user's row: the
hits among the top k (the list's length when the case has no k) of the user's positives (grade >= 1), and the number of
positives. Run queries without qrels are users without test interactions, which RecBole never evaluates. RecBole 1.2.1
calls np.float, which NumPy 1.24 removed: the runner lends NumPy `float` under that name for the call.
Not installed where the census ran; results_recbole_derived.json is the transcription in derive.py, which this code
(read from the 1.2.1 wheel) gave on every case."""
import numpy as np
from .common import load_cases, run_variant, mean, save
from .derive import order


def _rows(case, every_user=False):
    for q, docs in case["run"].items():
        if q in case["qrels"] or every_user:
            positives = {d for d, g in case["qrels"].get(q, {}).items() if g >= 1}
            k = case["k"] if case["k"] is not None else len(docs)
            ranked = order(docs)[:k]
            yield q, k, np.array([[d in positives for d in ranked] + [False] * (k - len(ranked))]), np.array([len(positives)])


def ndcg(case, every_user=False):
    from recbole.evaluator.metrics import NDCG
    lent = not hasattr(np, "float")
    if lent:
        np.float = float
    try:
        pq = {q: float(NDCG.metric_info(None, hits, n_positives)[0, k - 1]) for q, k, hits, n_positives in _rows(case, every_user)}
    finally:
        if lent:
            del np.float
    return pq, mean(pq.values())


variants = {"NDCG": ndcg}
more_variants = {"NDCG": ndcg, "NDCG_users_run": lambda case: ndcg(case, every_user=True)}
if __name__ == "__main__":   # the tool run on every case, printed (the census file is the derived one); with --more,
    import sys               # its results on cases_more.json written (results_recbole_more.json), RecBole's own metric
    if "--more" in sys.argv:
        from importlib.metadata import version
        save("recbole", {"version": version("recbole"), "numpy": np.__version__,
                         "notes": "NDCG.metric_info run in a venv, np.float lent for the call"},
             {c["name"]: {v: run_variant(f, c) for v, f in more_variants.items()} for c in load_cases(more=True)}, more=True)
    else:
        for c in load_cases():
            print(c["name"], run_variant(ndcg, c))
