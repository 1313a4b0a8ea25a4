"""Measure names in ir_measures' syntax, and ir_measures measure objects, give ir_measures' numbers: on the sample
data (against ir_measures itself) and on the issue 19 census cases with integer grades (against the values
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
    ir_measures = _ir_measures()
    nDCG = ir_measures.nDCG
    assert str(nDCG @ 10) == "nDCG@10"
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@10", nDCG @ 10])
    values = dict(zip(result.aggregate["measure"], result.aggregate["value"]))
    assert round(values["ndcg_cut_10"], 4) == 0.1431            # the text nDCG@10 keeps trec_eval's number
    assert round(values["nDCG()@10"], 4) == 0.1193              # ir_measures' object gives ir_measures' number
    assert result.value(nDCG @ 10) == values["nDCG()@10"]


def test_measure_object_without_depth_and_refusals():
    ir_measures = _ir_measures()
    assert parse_measure(ir_measures.nDCG)[0].k is None
    with pytest.raises(Exception, match="not P"):
        parse_measure(ir_measures.P @ 10)
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
