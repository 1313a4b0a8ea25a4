"""ndcg_nb's presets against the real libraries on random collections.

The collections have graded and negative judgments, unjudged retrieved documents, qrels
queries missing from the run, run queries missing from the qrels, and tied scores. Scores are
multiples of 1/8 in a small range, so they survive pytrec_eval's float32 reading unchanged.
"""
import numpy as np
import pandas as pd
import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")
sklearn_metrics = pytest.importorskip("sklearn.metrics")

from ndcg_nb.evaluation import evaluate

DEPTHS = (1, 3, 5, 10)


def collection(seed, n_queries=25, negative=True, ties=True, real=False):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q:02d}"
        docs = [f"d{q}_{i:03d}" for i in range(int(rng.integers(3, 40)))]
        low = -1 if negative else 0
        judged = rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False)
        qrels[qid] = {d: (round(float(rng.uniform(0, 3)), 2) if real else int(rng.integers(low, 4))) for d in judged}
        if q % 7 == 3:
            continue  # judged, never retrieved
        candidates = docs + [f"u{q}_{i}" for i in range(5)]
        retrieved = rng.choice(candidates, size=int(rng.integers(2, min(30, len(candidates)) + 1)), replace=False)
        if ties:
            scores = rng.integers(0, 12, len(retrieved)) / 8.0
        else:
            scores = rng.permutation(len(retrieved)) / 8.0 + 1.0  # distinct
        run[qid] = {d: float(s) for d, s in zip(retrieved, scores)}
    run["not_judged_query"] = {"zz": 1.0}
    return qrels, run


def per_query(result, measure):
    frame = result.per_query[result.per_query.measure == measure]
    return dict(zip(frame["query"], frame["value"]))


@pytest.mark.parametrize("seed", range(8))
def test_trec_eval_preset_matches_pytrec_eval(seed):
    qrels, run = collection(seed)
    measures = {"ndcg", "ndcg_cut." + ",".join(map(str, DEPTHS))}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = evaluate(qrels, run, ["ndcg", "ndcg_cut." + ",".join(map(str, DEPTHS))], preset="trec_eval")
    for name in ["ndcg"] + [f"ndcg_cut_{k}" for k in DEPTHS]:
        mine = per_query(ours, name)
        assert set(mine) == set(theirs), name
        for qid, values in theirs.items():
            assert mine[qid] == pytest.approx(values[name], abs=1e-12, rel=0), (name, qid)


def _sklearn_rows(qrels, run):
    for qid in sorted(set(qrels) & set(run)):
        docs = list(run[qid])
        if len(docs) < 2:
            continue
        y_true = np.array([max(qrels[qid].get(d, 0), 0) for d in docs], dtype=float)
        y_score = np.array([run[qid][d] for d in docs])
        yield qid, y_true, y_score


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_sklearn_presets_match_ndcg_score(seed, ignore_ties):
    qrels, run = collection(seed, negative=False, ties=not ignore_ties, real=seed % 2 == 1)
    preset = "sklearn_ignore_ties" if ignore_ties else "sklearn"
    ours = evaluate(qrels, run, ["ndcg"] + [f"nDCG@{k}" for k in DEPTHS], preset=preset)
    checked = 0
    for qid, y_true, y_score in _sklearn_rows(qrels, run):
        for k, name in [(None, "ndcg")] + [(k, f"nDCG@{k}") for k in DEPTHS]:
            theirs = sklearn_metrics.ndcg_score(y_true[None], y_score[None], k=k, ignore_ties=ignore_ties)
            assert ours.value(name, qid) == pytest.approx(theirs, abs=1e-12, rel=0), (name, qid)
            checked += 1
    assert checked > 50


def test_sklearn_preset_averages_ties_in_closed_form():
    """All documents tied: sklearn's expected DCG is the mean gain times the summed discounts."""
    qrels = {"q": {"a": 3, "b": 0, "c": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    y_true, y_score = np.array([[3.0, 0, 1]]), np.array([[1.0, 1, 1]])
    assert evaluate(qrels, run, "nDCG@2", preset="sklearn").value("nDCG@2", "q") == pytest.approx(
        sklearn_metrics.ndcg_score(y_true, y_score, k=2), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_ranx_presets_match_ranx(seed):
    ranx = pytest.importorskip("ranx")
    qrels, run = collection(seed, ties=False)
    positive_qrels = {q: {d: r for d, r in docs.items()} for q, docs in qrels.items()}
    ranx_qrels = ranx.Qrels(positive_qrels)
    ranx_run = ranx.Run(run)
    names = ["ndcg"] + [f"ndcg@{k}" for k in DEPTHS]
    burges = ["ndcg_burges"] + [f"ndcg_burges@{k}" for k in DEPTHS]
    ranx.evaluate(ranx_qrels, ranx_run, names + burges, make_comparable=True)
    ours = evaluate(qrels, run, ["ndcg"] + [f"nDCG@{k}" for k in DEPTHS], preset="ranx")
    ours_burges = evaluate(qrels, run, ["ndcg"] + [f"nDCG@{k}" for k in DEPTHS], preset="ranx_burges")
    by_dialect = evaluate(qrels, run, names[1:] + burges)      # ranx's own names, no preset: ranx's convention
    for result, metric_names in ((ours, names), (ours_burges, burges), (by_dialect, names[1:] + burges)):
        for metric in metric_names:
            ours_name = metric if result is by_dialect else "ndcg" if "@" not in metric else "nDCG@" + metric.split("@")[1]
            theirs = ranx_run.scores[metric]
            mine = per_query(result, ours_name)
            assert set(mine) == set(qrels)
            for qid in qrels:
                assert mine[qid] == pytest.approx(theirs.get(qid, 0.0), abs=1e-12, rel=0), (metric, qid)
    assert {c.preset for c in by_dialect.conventions.values()} == {"ranx", "ranx_burges"}


def test_dataframe_and_dict_inputs_agree():
    qrels, run = collection(3)
    qrels_frame = pd.DataFrame([(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
                               columns=["qid", "docno", "grade"])
    run_frame = pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                             columns=["query", "doc", "score"])
    a = evaluate(qrels, run, ["ndcg", "nDCG@10"])
    b = evaluate(qrels_frame.rename(columns={"qid": "query", "docno": "doc", "grade": "relevance"}), run_frame,
                 ["ndcg", "nDCG@10"])
    pd.testing.assert_frame_equal(a.per_query, b.per_query)


def test_scores_equal_in_single_precision_tie_as_in_trec_eval():
    """trec_eval 9.x (and pytrec_eval) keep scores as C floats: scores that differ only past float32 precision tie
    and are ordered by document id. The trec_eval_9 preset rounds them the same way; the trec_eval preset, reading
    doubles as trec_eval 10.0 does, does not."""
    rng = np.random.default_rng(11)
    qrels, run = {}, {}
    for q in range(30):
        docs = [f"d{q}-{i:03d}" for i in range(40)]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs, rng.integers(0, 4, 40))}
        base = rng.integers(0, 8, 40) * 12.5 + 1000.0            # large scores, a grid of 8 values
        run[f"q{q}"] = {d: float(b + rng.integers(0, 3) * 1e-5) for d, b in zip(docs, base)}  # below float32 resolution
    ours = evaluate(qrels, run, ["ndcg", "ndcg_cut.10"], preset="trec_eval_9")
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.10"}).evaluate(run)
    for query, values in theirs.items():
        assert ours.value("ndcg", query) == pytest.approx(values["ndcg"], abs=1e-15)
        assert ours.value("ndcg_cut.10", query) == pytest.approx(values["ndcg_cut_10"], abs=1e-15)
    doubles = evaluate(qrels, run, ["ndcg_cut.10"], preset="trec_eval")
    assert any(doubles.value("ndcg_cut.10", q) != pytest.approx(v["ndcg_cut_10"], abs=1e-6) for q, v in theirs.items())
