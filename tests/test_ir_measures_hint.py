"""The note a user of ir_measures or ranx needs. With no preset named, `nDCG@10` is ir_measures'
measure and counts a judged query missing from the run as 0, as ir_measures does: no such note. Under a preset named
(or `missing_queries='skip'`) the same name may leave that query out; then the result's summary (text and HTML) and
`ndcg-nb eval` say so, and how to get the tool's number; otherwise nothing is added."""
import html

import pytest

from ndcg_nb import evaluate
from ndcg_nb.__main__ import main
from ndcg_nb.engine.measures import ir_measures_hint
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

HINT = ir_measures_hint("nDCG@10", 1)     # the sample's topic 106 is judged and missing from the run


def _hints(result) -> list:
    return [note for note in result.notes if "left out" in note]


def test_the_sample_has_a_judged_query_missing_from_the_run():
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut_10"], progress=False)
    assert result.aggregate.n_missing_skipped.tolist() == [1]
    assert HINT.startswith("nDCG@10 left out the 1 judged query missing from the run; ir_measures counts it 0")


def test_summary_shows_the_hint():
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@10", "ndcg"], preset="trec_eval", progress=False)
    assert repr(result).splitlines()[-1] == f"  note: {HINT}"
    assert f"note: {html.escape(HINT)}" in result._repr_html_()
    trec = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut_10"], progress=False)
    assert result["nDCG@10"] == trec["ndcg_cut_10"]


def test_ranx_names_get_ranx_in_the_hint():
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg@10"], preset="trec_eval", progress=False)
    assert _hints(result) == [ir_measures_hint("ndcg@10", 1)]
    assert "ranx counts it 0" in _hints(result)[0]


@pytest.mark.parametrize("measures, overrides", [
    (["ndcg_cut_10"], {}),                             # trec_eval's own name: the user asked for trec_eval's measure
    (["nDCG@10"], {}),                                 # no preset named: ir_measures' convention counts the query 0
    (["nDCG()@10", "ndcg@10"], {}),
    (["nDCG@10"], {"preset": "trec_eval", "missing_queries": "zero"}),
])
def test_no_hint_when_nothing_was_left_out_or_asked_otherwise(measures, overrides):
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, measures, progress=False, **overrides)
    assert _hints(result) == [] and "left out" not in repr(result) and "left out" not in result._repr_html_()


def test_the_command_line_prints_the_hint_on_stderr(capsys):
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "nDCG@10"]) == 0
    out, err = capsys.readouterr()
    assert out.strip().split("\t")[-1] == "0.1193"                 # ir_measures' number: no preset named
    assert err.strip() == ("ndcg-nb: note: no preset named, so each measure takes the convention of its dialect: "
                           "ir_measures for nDCG@10")
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "nDCG@10", "--preset", "trec_eval"]) == 0
    out, err = capsys.readouterr()
    assert out.strip().split("\t")[-1] == "0.1431"                 # the preset named: trec_eval's
    assert err.strip() == ("ndcg-nb: note: nDCG@10 left out the 1 judged query missing from the run; ir_measures "
                           "counts it 0, as nDCG@10 does under its own convention: leave out --preset, or add -c")
    for quiet in (["--silent"], ["-c"], ["-m", "ndcg_cut.10"]):
        argv = ["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "--preset", "trec_eval"]
        argv += (["-m", "nDCG@10"] if quiet[0] != "-m" else []) + quiet
        assert main(argv) == 0
        assert capsys.readouterr().err == "", argv
