"""RecPack 0.3.6 `metrics.NDCGK(K).calculate(y_true, y_pred)` on each case as user x item matrices: a query is a user
(a row), the documents of the case are the items (columns), y_true holds the qrels' grades (`NDCGK`) or, as RecPack's
pipelines pass them, 1 for each grade above 0 (`NDCGK_binary_values`), and y_pred the run's scores, each stored
explicitly (a stored 0 stays a prediction). K is the case's k, or the number of items without one. The
per-user values are `NDCGK.results` (users without a nonzero y_true value are left out by RecPack); the mean is
`NDCGK.value`. RecPack pins NumPy 1 and pandas 2, so it runs in a venv of its own: installed with its pins
(`python -m venv --system-site-packages /tmp/venvs/recpack; /tmp/venvs/recpack/bin/pip install recpack==0.3.6`),
`/tmp/venvs/recpack/bin/python -m tests.conventions_support.run_recpack` writes results_recpack.json and
results_recpack_matrices.json (NumPy 1.26.4); installed with `pip install --no-deps recpack==0.3.6` over NumPy 2 and
pandas 3 (where ndcg_nb runs too, so tests/test_sparse_matrices.py and tests/test_conventions.py run it live), its
metrics give the same values on every case."""
import json
import numpy as np
from scipy.sparse import csr_matrix
from .common import CASES_PATH, load_cases, run_variant, save


def matrices(case):
    "(users, y_true, y_pred): the case's queries as rows, its documents as columns."
    users = sorted(set(case["qrels"]) | set(case["run"]))
    items = list(dict.fromkeys(d for side in ("run", "qrels") for q in users for d in case[side].get(q, {})))
    def matrix(side):
        triples = [(users.index(q), items.index(d), float(v)) for q in users for d, v in case[side].get(q, {}).items()]
        rows, cols, values = zip(*triples) if triples else ((), (), ())
        return csr_matrix((np.array(values, dtype=float), (np.array(rows, dtype=int), np.array(cols, dtype=int))),
                          shape=(len(users), len(items)))
    return users, items, matrix("qrels"), matrix("run")


def ndcgk(case):
    from recpack.metrics import NDCGK
    users, items, y_true, y_pred = matrices(case)
    metric = NDCGK(case["k"] if case["k"] is not None else len(items))
    metric.calculate(y_true, y_pred)
    results = metric.results
    return {users[int(u)]: float(v) for u, v in zip(results["user_id"], results["score"])}, float(metric.value)


def binary_values(case):
    "The case with each grade above 0 stored as 1 and the others not stored, as RecPack's `binary_values` reads them."
    return {**case, "qrels": {q: {d: 1 for d, g in docs.items() if g > 0} for q, docs in case["qrels"].items()}}


variants = {"NDCGK": ndcgk, "NDCGK_binary_values": lambda case: ndcgk(binary_values(case))}


# --- the recommender cases (cases_matrices.json): the matrices as RecPack's pipeline hands them to NDCGK --------------

def pipeline_ndcgk(case):
    """NDCGK(K) on a case of cases_matrices.json: y_true its relevance, y_pred its scores (a None is no stored entry)
    less the training items as `recpack/pipelines/pipeline.py` removes them (`Pipeline._predict_and_postprocess`,
    remove_history: `X_pred - X_pred.multiply(data_in.binary_values)`). K = the case's k or the number of items."""
    from recpack.metrics import NDCGK
    relevance, train = (csr_matrix(np.array(case[side], dtype=float)) for side in ("relevance", "train"))
    scores = np.array([[np.nan if s is None else s for s in row] for row in case["scores"]])
    stored = np.nonzero(~np.isnan(scores))
    predicted = csr_matrix((scores[stored], stored), shape=scores.shape)
    predicted = predicted - predicted.multiply(train.astype(bool))
    metric = NDCGK(case["k"] if case["k"] is not None else scores.shape[1])
    metric.calculate(relevance, predicted)
    results = metric.results
    return {str(int(u)): float(v) for u, v in zip(results["user_id"], results["score"])}, float(metric.value)


matrix_variants = {"pipeline_NDCGK": pipeline_ndcgk}
MATRIX_CASES = CASES_PATH.parent / "cases_matrices.json"

if __name__ == "__main__":   # the census run, in RecPack's venv; tests import `variants` and `matrix_variants` only
    from importlib.metadata import version
    meta = {"version": version("recpack"), "numpy": np.__version__}
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases()}
    save("recpack", {**meta, "notes": "NDCGK(K = case k, or the number of items); y_true, y_pred as csr matrices, "
                                      "entries stored"}, results)
    results = {c["name"]: {v: run_variant(f, c) for v, f in variants.items()} for c in load_cases(more=True)}
    save("recpack", {**meta, "notes": "as results_recpack.json, on cases_more.json"}, results, more=True)
    results = {c["name"]: {v: run_variant(f, c) for v, f in matrix_variants.items()}
               for c in json.loads(MATRIX_CASES.read_text())}
    save("recpack_matrices", {**meta, "notes": "cases_matrices.json as RecPack's pipeline passes them to NDCGK"}, results)
