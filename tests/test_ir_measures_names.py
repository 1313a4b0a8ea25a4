"""Measure names in ir_measures' syntax, and ir_measures measure objects, give ir_measures' numbers: on the sample
data (against ir_measures itself) and on the census cases (tests/data/conventions/cases.json) with integer grades (against the values
ir_measures 0.4.3 printed, `results_ir_measures.json`). All to 1e-12, except gdeval (`nDCG(dcg='exp-log2')@k`):
gdeval prints 5 decimals, so that path is compared to 5e-6."""
import json
import math
from pathlib import Path

import pytest

from ndcg_nb.evaluation import evaluate
from ndcg_nb.engine.measures import parse_measure
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

CENSUS = Path(__file__).parent / "data" / "conventions"
NAMES = ["nDCG()@10", "nDCG(judged_only=True)@10", "nDCG(dcg='exp-log2')@10", "nDCG(gains={0:0,1:1,2:3})@10"]


def _tolerance(name: str) -> float:
    return 5e-6 if "exp-log2" in name else 1e-12


def _ir_measures():
    return pytest.importorskip("ir_measures", reason="ir_measures is not installed (dev extra: pip install ir-measures)")


def _value(qrels, run, measure) -> float:
    return float(evaluate(qrels, run, [measure]).aggregate["value"].iloc[0])


@pytest.mark.parametrize("name", NAMES)
def test_sample_names_give_ir_measures_numbers(name):
    ir_measures = _ir_measures()
    measure = ir_measures.parse_measure(name)
    qrels = list(ir_measures.read_trec_qrels(str(SAMPLE_QRELS)))
    run = list(ir_measures.read_trec_run(str(SAMPLE_RUN)))
    expected = ir_measures.calc_aggregate([measure], qrels, run)[measure]
    assert abs(_value(SAMPLE_QRELS, SAMPLE_RUN, name) - expected) <= _tolerance(name)
    assert abs(_value(SAMPLE_QRELS, SAMPLE_RUN, measure) - expected) <= _tolerance(name)   # the object itself


def test_measure_object_and_plain_name():
    """The text nDCG@10, the text nDCG()@10 and the object ir_measures.nDCG@10 are one measure, named once,
    with ir_measures' number when no preset is named; under a preset named, the preset's (trec_eval's, as pytrec_eval
    computes it, for preset='trec_eval')."""
    ir_measures = _ir_measures()
    pytrec_eval = pytest.importorskip("pytrec_eval")
    nDCG = ir_measures.nDCG
    assert str(nDCG @ 10) == "nDCG@10"
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@10", nDCG @ 10, "nDCG()@10"])
    assert result.aggregate["measure"].tolist() == ["nDCG@10"]
    qrels = list(ir_measures.read_trec_qrels(str(SAMPLE_QRELS)))
    run = list(ir_measures.read_trec_run(str(SAMPLE_RUN)))
    expected = ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]
    assert abs(result.value("nDCG@10") - expected) <= 1e-12 and round(expected, 4) == 0.1193
    assert result.value(nDCG @ 10) == result.value("nDCG@10")
    qrels_dict, run_dict = {}, {}
    for qrel in qrels:
        qrels_dict.setdefault(qrel.query_id, {})[qrel.doc_id] = int(qrel.relevance)
    for scored in run:
        run_dict.setdefault(scored.query_id, {})[scored.doc_id] = float(scored.score)
    theirs = pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut.10"}).evaluate(run_dict)
    trec_mean = sum(v["ndcg_cut_10"] for v in theirs.values()) / len(theirs)    # trec_eval: the run's judged queries
    named = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@10"], preset="trec_eval")
    assert abs(named.value("nDCG@10") - trec_mean) <= 1e-12 and round(trec_mean, 4) == 0.1431


def test_measure_object_without_depth_and_refusals():
    ir_measures = _ir_measures()
    assert parse_measure(ir_measures.nDCG)[0].k is None
    assert parse_measure(ir_measures.P @ 10)[0].name == "P@10"          # ir_measures computes it
    with pytest.raises(Exception, match="not ERR"):
        parse_measure(ir_measures.ERR @ 10)
    with pytest.raises(Exception, match="needs a depth"):
        parse_measure(ir_measures.nDCG(dcg="exp-log2"))


def _census_variants(k):
    at = (lambda text: f"{text}@{k}") if k is not None else (lambda text: text)
    return {"nDCG": at("nDCG()"), "nDCG_judged_only": at("nDCG(judged_only=True)"),
            "nDCG_gains_0-1-3-7": at("nDCG(gains={0:0,1:1,2:3,3:7})"),
            "gdeval_nDCG_exp-log2": f"nDCG(dcg='exp-log2')@{k if k is not None else 1000}"}


def _census():
    cases = json.loads((CENSUS / "cases.json").read_text())
    results = json.loads((CENSUS / "results_ir_measures.json").read_text())["cases"]
    out = []
    for case in cases:
        for variant, name in _census_variants(case["k"]).items():
            found = results[case["name"]][variant]
            if "error" not in found:        # ir_measures refuses float grades, gdeval grades above 4
                out.append(pytest.param(case, name, found, id=f"{case['name']}-{variant}"))
    return out


@pytest.mark.parametrize("case, name, found", _census())
def test_census_cases(case, name, found):
    result = evaluate(case["qrels"], case["run"], [name])
    per_query = result.per_query[result.per_query["counted"]]
    got = dict(zip(per_query["query"].astype(str), per_query["value"]))
    assert set(got) == set(found["per_query"])
    for query, value in found["per_query"].items():
        assert abs(got[query] - value) <= _tolerance(name), query
    mean = float(result.aggregate["value"].iloc[0])
    assert (math.isnan(mean) and math.isnan(found["mean"])) or abs(mean - found["mean"]) <= _tolerance(name)
