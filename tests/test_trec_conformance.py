"""ndcg and ndcg_cut against trec_eval 10.0 on its own test collection (tests/data/trec_eval).

For every case of expected_ndcg.json: every ndcg / ndcg_cut value (per query and `all`) within
1e-12 of trec_eval's full-precision output, and every line ndcg_nb prints in trec_eval format
identical to the line in trec_eval's expected output file (4 decimals) where upstream has one.
"""
import json
import re
import shlex
from pathlib import Path

import pytest

from ndcg_nb.evaluation import evaluate

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
CASES = json.loads((DATA / "expected_ndcg.json").read_text())["cases"]
NDCG = re.compile(r"^ndcg(_cut_\d+|_\d.*)?$")


def _arguments(command: str):
    """The trec_eval flags that matter for ndcg: -c, -J, -M n, and the ndcg measures asked for."""
    words = shlex.split(command)[1:]
    options = {}
    measures = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-c":
            options["missing_queries"] = "zero"
        elif word == "-J":
            options["unjudged"] = "drop"
        elif word.startswith("-M"):
            options["max_docs"] = int(word[2:])
        elif word == "-m":
            i += 1
            measures.append(words[i])
        elif word.startswith("-m"):
            measures.append(word[2:])
        i += 1
    ndcg_measures = [m for m in measures if m.startswith("ndcg") and not m.startswith("ndcg_rel")]
    if "all_trec" in measures or not ndcg_measures:
        ndcg_measures = ["ndcg", "ndcg_cut"]
    return options, ndcg_measures


def _expected(case, key):
    return {measure: values for measure, values in case.get(key, {}).items() if NDCG.match(measure)}


CHECKED = [c for c in CASES if _expected(c, "full_precision_trec_eval_10_0")]


def test_every_case_with_ndcg_values_is_checked():
    assert {c["id"] for c in CHECKED} == {"a", "aq", "aqc", "aqcM", "aql", "meas_params", "gen_binary",
                                         "gen_graded_neg", "gen_graded_neg_J", "gen_rag24_graded", "gen_302",
                                         "gen_trunc_c", "gen_trunc_cM", "gen_trunc_M10"}


def _evaluation(case):
    options, measures = _arguments(case["command"])
    return evaluate(DATA / case["qrels"], DATA / case["run"], measures, preset="trec_eval", **options)


@pytest.mark.parametrize("case", CHECKED, ids=lambda c: c["id"])
def test_full_precision(case):
    result = _evaluation(case)
    expected = _expected(case, "full_precision_trec_eval_10_0")
    compared = 0
    for measure, values in expected.items():
        name = measure if not measure.startswith("ndcg_") or measure.startswith("ndcg_cut") else "ndcg." + measure[5:]
        for query, value in values.items():
            ours = result.value(name, query)
            assert ours == pytest.approx(value, abs=1e-12, rel=0), f"{case['id']} {measure} {query}"
            compared += 1
    assert compared >= len(expected)


@pytest.mark.parametrize("case", [c for c in CHECKED if c.get("expected_file")], ids=lambda c: c["id"])
def test_printed_lines_equal_trec_eval_expected_output(case):
    result = _evaluation(case)
    upstream = {tuple(line.split("\t")[:2]): line for line in (DATA / case["expected_file"]).read_text().splitlines()}
    upstream = {(m.strip(), q): line for (m, q), line in upstream.items()}
    printed = result.to_trec(per_query=True).splitlines()
    assert printed
    matched = 0
    for line in printed:
        measure, query, _ = line.split("\t")
        key = (measure.strip(), query)
        if key in upstream:
            assert line == upstream[key], f"{case['id']}: ours {line!r} upstream {upstream[key]!r}"
            matched += 1
    expected_lines = sum(len(v) for v in _expected(case, "expected_4dp").values())
    assert matched == expected_lines


@pytest.mark.parametrize("case", [c for c in CHECKED if c.get("values_4dp")], ids=lambda c: c["id"])
def test_four_decimals_of_generated_cases(case):
    result = _evaluation(case)
    for measure, values in _expected(case, "values_4dp").items():
        for query, value in values.items():
            assert round(result.value(measure, query), 4) == pytest.approx(value, abs=1e-9), f"{measure} {query}"
