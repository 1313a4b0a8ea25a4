"""Inputs people already have: qrels and runs as ir_datasets, ir_measures, ranx and PyTerrier give them,
other column names through `evaluate`'s keywords, and 1-D arrays grouped by a query id column in any row order."""
import warnings
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

from ndcg_nb.metrics.batch import as_batch
from ndcg_nb.analysis.comparison import compare
from ndcg_nb.metrics.core import ndcg
from ndcg_nb.errors import NdcgWarning
from ndcg_nb.evaluation import evaluate
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN, read_qrels, read_run
from ndcg_nb.analysis.value_bounds import bounds

MEASURES = ["ndcg", "nDCG@10"]


@pytest.fixture(scope="module")
def reference():
    return evaluate(SAMPLE_QRELS, SAMPLE_RUN, MEASURES)


def same(evaluation, reference):
    for m in MEASURES:
        assert evaluation.value(m) == reference.value(m), m
    pd.testing.assert_frame_equal(evaluation.per_query.reset_index(drop=True), reference.per_query.reset_index(drop=True))


def sample_frames():
    q, r = read_qrels(SAMPLE_QRELS), read_run(SAMPLE_RUN)
    return (pd.DataFrame({"query": q["query"].astype(str), "doc": q["doc"].astype(str), "relevance": q["relevance"].astype(int)}),
            pd.DataFrame({"query": r["query"].astype(str), "doc": r["doc"].astype(str), "score": r["score"]}))


# ---- ir_datasets ------------------------------------------------------------------------------------------------

def ir_datasets_qrels():
    "An ir_datasets dataset with the sample qrels, built offline from the local file (no download)."
    ir_datasets = pytest.importorskip("ir_datasets")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import LocalDownload
    return Dataset(TrecQrels(LocalDownload(SAMPLE_QRELS), {}))


def test_ir_datasets_qrels_object_and_generator(reference):
    dataset = ir_datasets_qrels()
    first = next(dataset.qrels_iter())
    assert type(first).__name__ == "TrecQrel" and first._fields == ("query_id", "doc_id", "relevance", "iteration")
    same(evaluate(dataset, SAMPLE_RUN, MEASURES), reference)                      # an object with qrels_iter()
    same(evaluate(dataset.qrels_iter(), SAMPLE_RUN, MEASURES), reference)         # the generator itself
    same(evaluate(list(dataset.qrels_iter()), SAMPLE_RUN, MEASURES), reference)   # a list of TrecQrel


# ---- ir_measures ------------------------------------------------------------------------------------------------

def test_ir_measures_records_and_frames(reference):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = list(ir_measures.read_trec_qrels(str(SAMPLE_QRELS))), list(ir_measures.read_trec_run(str(SAMPLE_RUN)))
    assert type(qrels[0]).__name__ == "Qrel" and type(run[0]).__name__ == "ScoredDoc"
    same(evaluate(qrels, run, MEASURES), reference)
    same(evaluate(iter(qrels), iter(run), MEASURES), reference)
    qrels_frame, run_frame = pd.DataFrame(qrels), pd.DataFrame(run)
    assert {"query_id", "doc_id", "relevance"} <= set(qrels_frame.columns) and list(run_frame.columns) == ["query_id", "doc_id", "score"]
    same(evaluate(qrels_frame, run_frame, MEASURES), reference)


def test_ir_measures_per_query_values_agree():
    "Per query, our nDCG@10 on ir_measures' own records is ir_measures' (its mean differs: it counts missing queries as 0)."
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = list(ir_measures.read_trec_qrels(str(SAMPLE_QRELS))), list(ir_measures.read_trec_run(str(SAMPLE_RUN)))
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG @ 10], qrels, run)}
    ours = evaluate(qrels, run, ["nDCG@10"])
    scored = {q: ours.value("nDCG@10", q) for q in {r.query_id for r in run} if q in {x.query_id for x in qrels}}
    assert scored and max(abs(scored[q] - theirs[q]) for q in scored) < 1e-12


# ---- ranx -------------------------------------------------------------------------------------------------------

def test_ranx_qrels_and_run(reference):
    ranx = pytest.importorskip("ranx")
    qrels_frame, run_frame = sample_frames()
    qrels = ranx.Qrels.from_dict({q: dict(zip(g["doc"], g["relevance"].astype(int))) for q, g in qrels_frame.groupby("query")})
    run = ranx.Run.from_dict({q: dict(zip(g["doc"], g["score"])) for q, g in run_frame.groupby("query")})
    got = evaluate(qrels, run, MEASURES)
    for m in MEASURES:
        assert got.value(m) == reference.value(m)


# ---- PyTerrier frame shapes (PyTerrier itself needs Java) ---------------------------------------------------------

def terrier_frames():
    qrels, run = sample_frames()
    run = run.rename(columns={"query": "qid", "doc": "docno"})
    run["rank"] = run.groupby("qid").cumcount()
    return qrels.rename(columns={"query": "qid", "doc": "docno", "relevance": "label"}), run


def test_pyterrier_frames(reference):
    qrels, run = terrier_frames()
    same(evaluate(qrels, run, MEASURES), reference)


def test_compare_and_bounds_take_them(reference):
    qrels, run = terrier_frames()
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    records = (ScoredDoc(*row) for row in run[["qid", "docno", "score"]].itertuples(index=False))
    compared = compare(qrels, {"a": run, "b": pd.DataFrame(list(records))}, ["nDCG@10"], permutations=20, resamples=20)
    by_paths = compare(SAMPLE_QRELS, {"a": SAMPLE_RUN, "b": SAMPLE_RUN}, ["nDCG@10"], permutations=20, resamples=20)
    pd.testing.assert_frame_equal(compared, by_paths)
    by_path = bounds(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@10"])
    TrecQrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
    gen = (TrecQrel(q, d, int(r), "0") for q, d, r in qrels[["qid", "docno", "label"]].itertuples(index=False))
    assert repr(bounds(gen, run, ["nDCG@10"]).aggregate) == repr(by_path.aggregate)


# ---- column names through evaluate ------------------------------------------------------------------------------

def test_evaluate_takes_column_names(reference):
    qrels, run = terrier_frames()
    qrels = qrels.rename(columns={"qid": "topic", "docno": "id", "label": "grade"})
    run = run.rename(columns={"qid": "topic", "docno": "id", "score": "sim"})
    same(evaluate(qrels, run, MEASURES, query="topic", doc="id", relevance="grade", score="sim"), reference)
    with pytest.raises(Exception, match=r"Name the columns with query=, doc=, relevance= \(keywords of evaluate"):
        evaluate(qrels, run, MEASURES)


def test_unknown_record_type_is_refused():
    with pytest.raises(TypeError, match="run must be a path, a pandas DataFrame or a dict, or qrels/runs of ir_datasets"):
        evaluate({"q": {"d": 1}}, {1, 2})


# ---- arrays grouped by qid --------------------------------------------------------------------------------------

def grouped_rows(seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(40), rng.integers(1, 15, 40))
    labels, scores = rng.integers(0, 4, qid.size).astype(float), rng.random(qid.size)
    return qid, labels, scores, rng.permutation(qid.size)


def test_qid_groups_rows_in_any_order():
    qid, labels, scores, shuffle = grouped_rows()
    sorted_values = ndcg(labels, 10, scores=scores, group_sizes=np.bincount(qid))
    batch = as_batch(labels[shuffle], scores=scores[shuffle], qid=qid[shuffle])
    values = pd.Series(ndcg(batch, 10), index=batch.queries).sort_index()
    assert list(values.index) == list(range(40)) and np.abs(values.to_numpy() - sorted_values).max() == 0.0


def test_groupby_sizes_on_unsorted_rows_are_not_silent():
    qid, labels, scores, shuffle = grouped_rows()
    frame = pd.DataFrame({"qid": qid[shuffle], "label": labels[shuffle], "score": scores[shuffle]})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ndcg(frame["label"], 10, scores=frame["score"], group_sizes=frame.groupby("qid", sort=False).size())
    assert [w.category for w in seen] == [NdcgWarning] and "qid=" in str(seen[0].message)
