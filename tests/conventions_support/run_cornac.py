"""cornac 3.0.1: the body of `cornac.eval_methods.base_method.ranking_eval`'s loop, run on each query of a case with
cornac's own `Recommender.rank` and `metrics.NDCG(k).compute`. A case's query is a user, its run's documents are the
user's candidate items (in run order, the ascending item indices ranking_eval passes) and its qrels the test ratings:
the positives are the ratings >= rating_threshold (1.0), retrieved or not, and a user without one is skipped, as
ranking_eval skips it; a run query without qrels is no test user (never evaluated). `rank` gets k = the case's k
(ranking_eval's max_k; -1 without one, a full `argsort()[::-1]`), or -1 when k reaches the number of candidates
(np.argpartition refuses a kth past the end; cornac's item set is never that small). A judged query missing from the
run has no candidate: NDCG.compute on an empty ranking, 0. The mean is ranking_eval's: the sum over the evaluated
users divided by their number."""
import json
import numpy as np
from .common import CASES_PATH, load_cases, run_variant, save


def _model(scores):
    "A cornac Recommender whose score() returns the given scores of items 0..n-1."
    from cornac.models import Recommender

    class GivenScores(Recommender):
        def __init__(self):
            super().__init__("given_scores", trainable=False)
            self.num_items = len(scores)

        def score(self, user_idx, item_idx=None):
            return np.asarray(scores, dtype=float) if item_idx is None else float(scores[item_idx])
    return GivenScores()


def user_ndcg(qrels, docs, k, rating_threshold=1.0):
    "cornac's NDCG of one user (None: skipped, no positive)."
    from cornac.metrics import NDCG
    candidates = list(docs)
    items = candidates + [d for d in qrels if d not in docs]          # item index of every document met
    positives = np.array([items.index(d) for d, g in qrels.items() if g >= rating_threshold], dtype=int)
    if len(positives) == 0:
        return None
    metric = NDCG(k=-1 if k is None else k)
    if not candidates:
        return float(metric.compute(gt_pos=positives, pd_rank=np.array([], dtype=int)))
    model = _model([docs[d] for d in candidates] + [0.0] * (len(items) - len(candidates)))
    depth = -1 if k is None or k >= len(candidates) else k
    ranked, _ = model.rank(user_idx=0, item_indices=np.arange(len(candidates)), k=depth)
    return float(metric.compute(gt_pos=positives, pd_rank=ranked))


def ndcg(case):
    per_user = {q: user_ndcg(judged, case["run"].get(q, {}), case["k"]) for q, judged in case["qrels"].items()}
    per_user = {q: v for q, v in per_user.items() if v is not None}
    return per_user, (sum(per_user.values()) / len(per_user) if per_user else float("nan"))


variants = {"NDCG": ndcg}


# --- the recommender cases (cases_matrices.json): cornac's own ranking_eval on its own Datasets -----------------------

def ranking_eval_ndcg(case, rating_threshold=1.0):
    """`cornac.eval_methods.base_method.ranking_eval` with NDCG(k) (k=-1 without one): the test and training
    interactions as cornac Datasets over every user and item of the case (index = row, column), a model scoring each
    user's row of the case's dense scores. {user: value} of the users ranking_eval evaluates, and its mean."""
    from collections import OrderedDict
    from cornac.data import Dataset
    from cornac.eval_methods.base_method import ranking_eval
    from cornac.metrics import NDCG
    relevance, scores, train = (np.array(case[side], dtype=float) for side in ("relevance", "scores", "train"))
    users = OrderedDict((str(u), u) for u in range(relevance.shape[0]))
    items = OrderedDict((str(i), i) for i in range(relevance.shape[1]))
    def dataset(matrix):   # an empty training set is one rating of 0 (cornac refuses no data; 0 masks nothing)
        triples = [(str(u), str(i), float(matrix[u, i])) for u, i in zip(*np.nonzero(matrix))] or [("0", "0", 0.0)]
        return Dataset.build(triples, fmt="UIR", global_uid_map=users, global_iid_map=items)
    model = _model(scores[0])
    model.score = lambda user_idx, item_idx=None: scores[user_idx] if item_idx is None else scores[user_idx, item_idx]
    (mean,), (per_user,) = ranking_eval(model, [NDCG(k=-1 if case["k"] is None else case["k"])], dataset(train),
                                        dataset(relevance), rating_threshold=rating_threshold)
    return {str(u): float(v) for u, v in per_user.items()}, float(mean)


matrix_variants = {"ranking_eval_NDCG": ranking_eval_ndcg,
                   "ranking_eval_NDCG_threshold4": lambda case: ranking_eval_ndcg(case, rating_threshold=4.0)}
MATRIX_CASES = CASES_PATH.parent / "cases_matrices.json"


def matrix_cases():
    "The recommender cases of cases_matrices.json that cornac can take: every item scored (a dense score row)."
    return [c for c in json.loads(MATRIX_CASES.read_text()) if all(s is not None for row in c["scores"] for s in row)]


if __name__ == "__main__":   # the census run; tests import `variants` and `matrix_variants` only
    import cornac
    meta = {"version": cornac.__version__, "numpy": np.__version__}
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("cornac", {**meta, "notes": "ranking_eval's loop body per query: Recommender.rank + NDCG.compute, "
                                     "rating_threshold 1.0"}, results)
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases(more=True)}
    save("cornac", {**meta, "notes": "as results_cornac.json, on cases_more.json"}, results, more=True)
    results = {c["name"]: {v: run_variant(f, c) for v, f in matrix_variants.items()} for c in matrix_cases()}
    save("cornac_matrices", {**meta, "notes": "cases_matrices.json through cornac's ranking_eval"}, results)
