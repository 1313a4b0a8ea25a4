"""The note an ir_measures user needs (issue 20): `nDCG@10` here is trec_eval's `ndcg_cut_10`, which
leaves out a judged query missing from the run, where ir_measures counts it 0. When that happened,
the result's summary (text and HTML) and `ndcg-nb eval` say so; otherwise nothing is added."""
import html

import pytest

from ndcg_nb import evaluate
from ndcg_nb.__main__ import main
from ndcg_nb.engine.measures import ir_measures_hint
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

HINT = ir_measures_hint("nDCG@10", 1)     # the sample's topic 106 is judged and missing from the run


def test_the_sample_has_a_judged_query_missing_from_the_run():
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut_10"], progress=False)
    assert result.aggregate.n_missing_skipped.tolist() == [1]
    assert HINT.startswith("nDCG@10 is trec_eval's ndcg_cut_10: it leaves out the 1 judged query missing")


def test_summary_shows_the_hint():
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@10", "ndcg"], progress=False)
    assert repr(result).splitlines()[-1] == f"  note: {HINT}"
    assert f"note: {html.escape(HINT)}" in result._repr_html_()
    assert result["nDCG@10"] == evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut_10"], progress=False)["nDCG@10"]


@pytest.mark.parametrize("measures, overrides", [
    (["ndcg_cut_10"], {}),                 # trec_eval's own name: the user asked for trec_eval's measure
    (["nDCG()@10"], {}),                   # ir_measures' measure: counts the query 0, nothing to say
    (["nDCG@10"], {"missing_queries": "zero"}),
])
def test_no_hint_when_nothing_was_left_out_or_asked_otherwise(measures, overrides):
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, measures, progress=False, **overrides)
    assert "note:" not in repr(result) and "note:" not in result._repr_html_()


def test_the_command_line_prints_the_hint_on_stderr(capsys):
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "nDCG@10"]) == 0
    out, err = capsys.readouterr()
    assert out.strip().split("\t")[-1] == "0.1431"                 # the numbers stay trec_eval's
    assert err.strip() == ("ndcg-nb: note: nDCG@10 is trec_eval's ndcg_cut_10: it leaves out the 1 judged query "
                           "missing from the run; ir_measures counts it 0: write nDCG()@10, or add -c")
    for quiet in (["--quiet"], ["-c"], ["-m", "ndcg_cut.10"]):
        argv = ["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN)] + (["-m", "nDCG@10"] if quiet[0] != "-m" else []) + quiet
        assert main(argv) == 0
        assert capsys.readouterr().err == "", argv
