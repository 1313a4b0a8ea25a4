"""`evaluate_matrices` (ndcg_nb.integrations.sparse_matrices) against ndcg_nb's own `evaluate` on the same data written
as a run and qrels (every preset, sparse and dense scores, training items masked: 1e-12), and against the recommender
libraries whose evaluation it follows: cornac's `ranking_eval` and RecPack's `NDCGK`, recorded on the recommender cases
of tests/data/conventions/cases_matrices.json (results_cornac_matrices.json, results_recpack_matrices.json, written by
tests/conventions_support/run_cornac.py and run_recpack.py) and run again where installed (RecPack needs NumPy 1: it
runs in a venv of its own, so its live tests skip where it is absent)."""
import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from ndcg_nb.errors import InputError, UsageError
from ndcg_nb.evaluation import evaluate
from ndcg_nb.integrations.sparse_matrices import evaluate_matrices
from ndcg_nb.plugins import policies_of

DATA = Path(__file__).resolve().parent / "data" / "conventions"
MATRIX_CASES = {case["name"]: case for case in json.loads((DATA / "cases_matrices.json").read_text())}
TOL = 1e-12


def random_matrices(seed, users=40, items=30):
    "Graded test values (0 to 3, some stored 0s), tied scores at 0.1 steps (60% stored), training items (10%)."
    rng = np.random.default_rng(seed)
    relevance = sp.random(users, items, density=0.1, random_state=rng, format="csr")
    relevance.data = rng.integers(0, 4, relevance.nnz).astype(float)
    scores = sp.random(users, items, density=0.6, random_state=rng, format="csr")
    scores.data = np.round(rng.random(scores.nnz), 1)
    train = sp.random(users, items, density=0.1, random_state=rng, format="csr")
    return relevance, scores, train


def as_runs(relevance, scores, train):
    "The same data as qrels and a run of text ids, written entry by entry (the candidates in item order)."
    qrels, run, seen = {}, {}, set(zip(*train.nonzero()))
    coo = relevance.tocoo()
    for user, item, grade in sorted(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist())):
        qrels.setdefault(str(user), {})[str(item)] = grade
    dense = scores if isinstance(scores, np.ndarray) else None
    entries = (((u, i, dense[u, i]) for u in range(dense.shape[0]) for i in range(dense.shape[1])) if dense is not None
               else sorted(zip(*(a.tolist() for a in (scores.tocoo().row, scores.tocoo().col, scores.tocoo().data)))))
    for user, item, score in entries:
        if (user, item) not in seen:
            run.setdefault(str(user), {})[str(item)] = float(score)
    return qrels, run


def same_evaluation(mine, theirs):
    a, b = mine.per_query, theirs.per_query
    assert a["query"].tolist() == b["query"].tolist() and a["counted"].tolist() == b["counted"].tolist()
    np.testing.assert_allclose(a["value"].to_numpy(float), b["value"].to_numpy(float), rtol=0, atol=TOL)
    for measure in a["measure"].unique():
        x, y = mine.value(measure), theirs.value(measure)
        assert (math.isnan(x) and math.isnan(y)) or abs(x - y) <= TOL, (measure, x, y)


@pytest.mark.parametrize("form", ["sparse", "dense"])
@pytest.mark.parametrize("preset", sorted(policies_of("preset")))
def test_equals_evaluate_on_the_same_runs(preset, form):
    "Every preset, depths 3 and whole: per user and mean as evaluate gives them on the data written as a run and qrels."
    relevance, scores, train = random_matrices(sum(map(ord, preset)))
    scores = scores.toarray() if form == "dense" else scores
    qrels, run = as_runs(relevance, scores, train)
    try:
        theirs = evaluate(qrels, run, ["ndcg@3", "ndcg"], preset=preset, no_common_query="score")
    except InputError as refused:       # a preset that refuses these grades (ntcir: none negative here) refuses both
        with pytest.raises(InputError, match=str(refused)[:40]):
            evaluate_matrices(relevance, scores, [3, None], exclude=train, preset=preset)
        return
    same_evaluation(evaluate_matrices(relevance, scores, [3, None], exclude=train, preset=preset), theirs)


@pytest.mark.parametrize("overrides", [{"ties": "docno", "gain": "exponential"}, {"ties": "average", "zero_idcg": "one"},
                                       {"normalization": "retrieved", "unjudged_queries": "zero"},
                                       {"unjudged": "drop", "missing_queries": "zero"}, {"max_docs": 4}])
def test_policies_and_fields_apply(overrides):
    "Overrides of any field, including those that read below the cut (unjudged='drop', max_docs), as evaluate applies them."
    relevance, scores, train = random_matrices(7)
    qrels, run = as_runs(relevance, scores, train)
    same_evaluation(evaluate_matrices(relevance, scores, 5, exclude=train, preset="trec_eval", **overrides),
                    evaluate(qrels, run, ["ndcg@5"], preset="trec_eval", no_common_query="score", **overrides))


def test_ids_name_users_and_items():
    "Ids given for rows and columns: users sort as text, items break trec_eval's ties by id (descending)."
    relevance = sp.csr_matrix(np.array([[1, 0, 0], [0, 0, 1]]))
    scores = np.array([[0.5, 0.5, 0.5], [0.2, 0.1, 0.3]])
    result = evaluate_matrices(relevance, scores, 1, preset="trec_eval", users=["bob", "alice"], items=["x", "z", "y"])
    assert result.per_query["query"].tolist() == ["alice", "bob"]
    assert result.per_query["value"].tolist() == [1.0, 0.0]       # bob's tie goes to "z" first: not relevant
    assert evaluate_matrices(relevance, scores, 1, preset="trec_eval", items=["z", "x", "y"]).value("ndcg@1", "1") == 1.0


def test_mask_changes_the_ranking():
    "A training item is no candidate: masking user 0's best item lets its relevant second one reach rank 1."
    relevance = sp.csr_matrix(np.array([[0, 1, 0]]))
    scores = sp.csr_matrix(np.array([[0.9, 0.5, 0.1]]))
    masked = sp.csr_matrix(np.array([[1, 0, 0]]))
    assert evaluate_matrices(relevance, scores, 1, preset="recpack").value("ndcg@1") == 0.0
    assert evaluate_matrices(relevance, scores, 1, exclude=masked, preset="recpack").value("ndcg@1") == 1.0


@pytest.mark.parametrize("call, message", [
    (lambda r: evaluate_matrices(r, np.ones((2, 4)), 2), "scores has shape (2, 4), the relevance matrix (2, 3)"),
    (lambda r: evaluate_matrices(r, sp.csr_matrix((3, 3)), 2), "scores has shape (3, 3)"),
    (lambda r: evaluate_matrices(r, np.array([[0.1, np.inf, 0.2], [0, 0, 0]]), 2), "scores: user 0, item 1 holds inf"),
    (lambda r: evaluate_matrices(sp.csr_matrix((2, 3)), np.ones((2, 3)), 2), "relevance holds no stored entry"),
    (lambda r: evaluate_matrices(r, np.ones((2, 3)), 2, exclude=np.ones((3, 3))), "exclude has shape (3, 3)"),
    (lambda r: evaluate_matrices(r, np.ones((2, 3)), 2, users=["a", "b", "c"]), "users: 3 ids given for 2 users"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(sp.csr_matrix(np.array([[1.0, 0, 0], [0, 0, 2.0]])))


def test_bad_depth_is_named():
    with pytest.raises(UsageError, match="k must be a positive integer or None"):
        evaluate_matrices(sp.csr_matrix(np.eye(2)), np.eye(2), 0)


# --- the recommender libraries --------------------------------------------------------------------------------------

def case_matrices(case):
    relevance, train = (sp.csr_matrix(np.array(case[side], dtype=float)) for side in ("relevance", "train"))
    scores = np.array([[np.nan if s is None else s for s in row] for row in case["scores"]])
    stored = np.nonzero(~np.isnan(scores))
    return relevance, sp.csr_matrix((scores[stored], stored), shape=scores.shape), train


def cornac_mask(relevance, train, threshold):
    "cornac's masked items: the training positives (rating >= threshold) that are not test positives of the user."
    positive = lambda m: (m >= threshold).astype(float)
    return sp.csr_matrix(positive(train) - positive(train).multiply(positive(relevance)))


# (tool results, variant, preset, the training items the tool masks)
TOOLS = [("cornac_matrices", "ranking_eval_NDCG", "cornac", lambda rel, train: cornac_mask(rel, train, 1.0)),
         ("cornac_matrices", "ranking_eval_NDCG_threshold4", "cornac:rating_threshold=4",
          lambda rel, train: cornac_mask(rel, train, 4.0)),
         ("recpack_matrices", "pipeline_NDCGK", "recpack", lambda rel, train: train)]
RECPACK_GRADED = "graded: RecPack's NDCGK divides a value v at rank r by log2(r * v + 1) (PRESET_NOTES['recpack'])"


def ours(case, preset, mask):
    relevance, scores, train = case_matrices(case)
    k = case["k"] if case["k"] is not None else None
    result = evaluate_matrices(relevance, scores, k, exclude=mask(relevance, train), preset=preset)
    frame = result.per_query[result.per_query["counted"]]
    return dict(zip(frame["query"], frame["value"])), result.value(frame["measure"].iloc[0] if len(frame) else "ndcg")


def _tool_params():
    for stem, variant, preset, mask in TOOLS:
        recorded = json.loads((DATA / f"results_{stem}.json").read_text())["cases"]
        for name in MATRIX_CASES:
            entry = recorded.get(name, {}).get(variant)
            marks = []
            if entry is None or "error" in entry:
                marks = [pytest.mark.skip(reason=f"{stem} {variant} does not score case {name}: {entry and entry.get('error')}")]
            elif stem.startswith("recpack") and name == "ratings_and_threshold":
                marks = [pytest.mark.skip(reason=RECPACK_GRADED)]
            yield pytest.param(stem, variant, preset, mask, name, marks=marks, id=f"{variant}-{name}")


def compare(entry, mine, mean):
    theirs = entry["per_query"]
    assert set(mine) == set(theirs), (mine, theirs)
    for user, value in theirs.items():
        assert mine[user] == pytest.approx(value, abs=TOL, rel=0), (user, mine[user], value)
    assert mean == pytest.approx(entry["mean"], abs=TOL, rel=0)


@pytest.mark.parametrize("stem, variant, preset, mask, name", list(_tool_params()))
def test_preset_equals_the_recorded_tool(stem, variant, preset, mask, name):
    "The tool's per-user values and mean, as recorded, on each recommender case (users without test rows, masks)."
    entry = json.loads((DATA / f"results_{stem}.json").read_text())["cases"][name][variant]
    compare(entry, *ours(MATRIX_CASES[name], preset, mask))


def test_the_two_masks_differ():
    "Case items_seen_in_training: user 0's test positive seen in training is a candidate in cornac, not in RecPack."
    case = MATRIX_CASES["items_seen_in_training"]
    recorded = json.loads((DATA / "results_cornac_matrices.json").read_text())["cases"][case["name"]]["ranking_eval_NDCG"]
    assert ours(case, "cornac", lambda rel, train: train)[0]["0"] != pytest.approx(recorded["per_query"]["0"], abs=1e-3)
    assert ours(case, "cornac", TOOLS[0][3])[0]["0"] == pytest.approx(recorded["per_query"]["0"], abs=TOL)


@pytest.mark.parametrize("stem, variant, preset, mask, name", list(_tool_params()))
def test_preset_equals_the_tool_run_here(stem, variant, preset, mask, name):
    "The same, with the tool run now (cornac here; RecPack where its venv is the interpreter)."
    pytest.importorskip("cornac.metrics" if stem.startswith("cornac") else "recpack.metrics")
    from importlib import import_module
    from tests.conventions_support.common import run_variant
    runner = import_module(f"tests.conventions_support.run_{stem.split('_')[0]}")
    compare(run_variant(runner.matrix_variants[variant], MATRIX_CASES[name]), *ours(MATRIX_CASES[name], preset, mask))


@pytest.mark.parametrize("k", [5, None])
def test_cornac_ranking_eval_on_random_matrices(k):
    "cornac's own ranking_eval on 60 users x 50 items (ratings 1 to 5, a fifth of the items seen in training)."
    pytest.importorskip("cornac")
    from tests.conventions_support.run_cornac import ranking_eval_ndcg
    rng = np.random.default_rng(11)
    relevance = np.where(rng.random((60, 50)) < 0.1, rng.integers(1, 6, (60, 50)), 0)
    train = np.where((relevance == 0) & (rng.random((60, 50)) < 0.2), rng.integers(1, 6, (60, 50)), 0)
    scores = rng.random((60, 50))
    case = {"k": k, "relevance": relevance.tolist(), "scores": scores.tolist(), "train": train.tolist()}
    for threshold, preset in ((1.0, "cornac"), (4.0, "cornac:rating_threshold=4")):
        per_user, mean = ranking_eval_ndcg(case, rating_threshold=threshold)
        mask = lambda rel, tr: cornac_mask(rel, tr, threshold)
        compare({"per_query": per_user, "mean": mean}, *ours(case, preset, mask))


def test_recpack_ndcgk_on_random_matrices():
    "RecPack's NDCGK on 200 users x 100 items, binary, predictions less the training items as its pipeline removes them."
    pytest.importorskip("recpack.metrics")
    from tests.conventions_support.run_recpack import pipeline_ndcgk
    rng = np.random.default_rng(5)
    relevance = (rng.random((200, 100)) < 0.05).astype(float)
    scores = np.where(rng.random((200, 100)) < 0.5, rng.random((200, 100)), np.nan)
    case = {"k": 10, "relevance": relevance.tolist(), "train": (rng.random((200, 100)) < 0.1).astype(float).tolist(),
            "scores": [[None if np.isnan(s) else s for s in row] for row in scores]}
    per_user, mean = pipeline_ndcgk(case)
    compare({"per_query": per_user, "mean": mean}, *ours(case, "recpack", lambda rel, train: train))


def test_the_callers_matrices_are_left_as_they_were():
    "Canonical and unsorted inputs alike: the relevance, scores and exclude matrices hold the same arrays afterwards."
    relevance, scores, train = random_matrices(3)
    unsorted = sp.csr_matrix((scores.data[::-1].copy(), scores.indices.copy(), scores.indptr.copy()), shape=scores.shape)
    unsorted.indices = np.concatenate([row[::-1] for row in np.split(unsorted.indices, unsorted.indptr[1:-1])])
    unsorted.has_sorted_indices = False
    before = [(m.data.copy(), m.indices.copy(), m.indptr.copy()) for m in (relevance, unsorted, train)]
    for preset in ("trec_eval", "recpack", "ranx"):
        evaluate_matrices(relevance, unsorted, 3, exclude=train, preset=preset)
    for m, (data, indices, indptr) in zip((relevance, unsorted, train), before):
        assert np.array_equal(m.data, data) and np.array_equal(m.indices, indices) and np.array_equal(m.indptr, indptr)
