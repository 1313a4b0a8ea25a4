"""ranx's `Run` and `Qrels` objects in `compare` and `evaluate_runs` as a ranx user writes them: a dict of
name -> ranx Run, a list of ranx runs that keeps each `Run.name`, and the means ranx itself gives."""
import numpy as np
import pandas as pd
import pytest

from ndcg_nb.analysis.comparison import SAMPLE_RUN_B, compare, evaluate_runs, is_run_collection
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN, as_run
from ndcg_nb.errors import UsageError
from ndcg_nb.evaluation import evaluate

ranx = pytest.importorskip("ranx")
MEASURES = ["ndcg", "nDCG@10", "nDCG@5"]
COLUMNS = ["measure", "test", "n_queries", "mean", "baseline_mean", "difference", "statistic", "p_value", "ci_low", "ci_high"]


def _qrels():
    return ranx.Qrels.from_file(str(SAMPLE_QRELS), kind="trec")


def _run(path, name=None):
    return ranx.Run.from_file(str(path), kind="trec", name=name)


def test_compare_takes_a_dict_of_ranx_runs():
    ours = compare(_qrels(), {"bm25": _run(SAMPLE_RUN), "dense": _run(SAMPLE_RUN_B)}, MEASURES)
    by_path = compare(SAMPLE_QRELS, {"bm25": SAMPLE_RUN, "dense": SAMPLE_RUN_B}, MEASURES)
    assert set(ours["run"]) == {"dense"} and set(ours["baseline"]) == {"bm25"}
    pd.testing.assert_frame_equal(ours[COLUMNS], by_path[COLUMNS])


def test_a_list_of_ranx_runs_keeps_their_names():
    named = evaluate_runs(_qrels(), [_run(SAMPLE_RUN, "bm25"), _run(SAMPLE_RUN_B, "dense")], MEASURES)
    assert named.runs == ["bm25", "dense"]
    assert [e.run_tag for e in named.evaluations.values()] == ["bm25", "dense"]
    from_files = evaluate_runs(_qrels(), [_run(SAMPLE_RUN), _run(SAMPLE_RUN_B)], MEASURES)   # from_file: the tag
    assert from_files.runs == ["sample", "sample_b"]
    table = compare(_qrels(), [_run(SAMPLE_RUN, "bm25"), _run(SAMPLE_RUN_B, "dense")], MEASURES, baseline="dense")
    assert set(table["run"]) == {"bm25"} and set(table["baseline"]) == {"dense"}


def test_unnamed_ranx_runs_and_clashing_names():
    runs = [ranx.Run(as_run(path).assign(doc=lambda f: f["doc"].astype(str))
                     .groupby("query", observed=True)[["doc", "score"]]
                     .apply(lambda rows: dict(zip(rows["doc"], rows["score"]))).to_dict())
            for path in (SAMPLE_RUN, SAMPLE_RUN_B)]
    assert [run.name for run in runs] == [None, None]
    assert evaluate_runs(_qrels(), runs).runs == ["run1", "run2"]
    clash = [_run(SAMPLE_RUN, "same"), _run(SAMPLE_RUN_B, "same")]       # as two files of one tag: by position
    assert evaluate_runs(_qrels(), clash).runs == ["run1", "run2"]
    with pytest.raises(UsageError, match="two runs are both called 'sample.run'"):
        evaluate_runs(_qrels(), [SAMPLE_RUN, SAMPLE_RUN])


def test_the_front_door_takes_ranx_runs_by_name():
    several = evaluate(_qrels(), {"bm25": _run(SAMPLE_RUN), "dense": _run(SAMPLE_RUN_B)}, ["nDCG@10"])
    assert several.runs == ["bm25", "dense"]
    assert is_run_collection({"bm25": _run(SAMPLE_RUN)}) and not is_run_collection(_run(SAMPLE_RUN))
    one = evaluate(_qrels(), _run(SAMPLE_RUN, "bm25"), ["nDCG@10"])
    assert one.run_tag == "bm25"


def test_means_are_ranx_own_under_the_ranx_preset():
    "ranx's `evaluate` (and `compare`) on the same objects give the means ndcg_nb's `ranx` preset gives them."
    table = compare(_qrels(), {"bm25": _run(SAMPLE_RUN), "dense": _run(SAMPLE_RUN_B)}, ["ndcg_cut.10", "ndcg_cut.5"],
                    preset="ranx", tests="t")
    for measure, ranx_name in (("ndcg_cut_10", "ndcg@10"), ("ndcg_cut_5", "ndcg@5")):
        row = table[table.measure == measure].iloc[0]
        theirs = [ranx.evaluate(_qrels(), _run(path), ranx_name, make_comparable=True) for path in (SAMPLE_RUN, SAMPLE_RUN_B)]
        np.testing.assert_allclose([row["baseline_mean"], row["mean"]], theirs, rtol=0, atol=1e-12)
