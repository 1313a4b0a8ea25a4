"""trec_eval 10's NDCG family with gain tables: `ndcg`, `dcg`, `ideal_dcg`, `ndcg_rel` and `Rndcg`, with
and without a table, under -c, -J and -M, against trec_eval 10 built from its source; and ir_measures'
`nDCG(gains=...)` against ir_measures itself.

- expected_gains.json: the project's shared conformance file (12 cases on trec_eval's test collection).
- expected_gains_more.json: 840 cases recorded by tools/trec_eval_gain_cases.py with trec_eval 10.0 built from its
  source (values printed with 17 digits), on the test collection and on gains/gains.qrels and gains/gains.run.

Every value, per query and `all`, within 1e-12 of trec_eval's (NaN where trec_eval prints nan).
"""
import json
import math
from collections import defaultdict
from pathlib import Path

import pytest

from ndcg_nb.__main__ import main
from ndcg_nb.evaluation import evaluate

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
SHARED = json.loads((DATA / "expected_gains.json").read_text())["cases"]
RECORDED = json.loads((DATA / "expected_gains_more.json").read_text())["cases"]
OPTIONS = {"-c": {"missing_queries": "zero"}, "-J": {"unjudged": "drop"}}


def _options(flags) -> dict:
    "The convention fields of trec_eval's flags -c, -J and -M<n>."
    options = {}
    for flag in flags:
        options.update(OPTIONS.get(flag, {"max_docs": int(flag[2:])} if flag.startswith("-M") else {}))
    return options


def _same(ours: float, theirs: str) -> bool:
    expected = float(theirs)
    return math.isnan(ours) and math.isnan(expected) or abs(ours - expected) <= 1e-12


def _check(cases, qrels, run, flags) -> int:
    "Every value of `cases` (one qrels, run and flags) against one evaluation of all their measures; how many."
    measures = [case["measure"] for case in cases]
    result = evaluate(DATA / qrels, DATA / run, measures, preset="trec_eval", progress=False, **_options(flags))
    compared = 0
    for case in cases:
        for name, values in case["trec_eval_10_full_precision"].items():
            for query, value in values.items():
                ours = result.value(case["measure"]) if query == "all" else result.value(case["measure"], query)
                assert _same(ours, value), f"{case['command']}: {name} {query} ours {ours!r}, trec_eval {value}"
                compared += 1
    return compared


def test_shared_conformance_cases():
    compared = sum(_check([case], case["qrels"] if "/" in case["qrels"] else f"test/{case['qrels']}",
                          case["run"] if "/" in case["run"] else f"test/{case['run']}", case["flags"]) for case in SHARED)
    assert len(SHARED) == 12 and compared == 12 * 4


GROUPS = defaultdict(list)
for _case in RECORDED:
    GROUPS[_case["qrels"], _case["run"], tuple(_case["flags"])].append(_case)


@pytest.mark.parametrize("key", sorted(GROUPS), ids=lambda key: f"{key[0]}{''.join(key[2])}")
def test_recorded_cases(key):
    cases = GROUPS[key]
    assert _check(cases, *key) >= len(cases)


def test_recorded_cases_reach_every_rule():
    "The recorded values include what the rules make of unusual tables: NDCG below 0 and above 1, NaN, and 0."
    values = [float(v) for case in RECORDED if case["measure"].startswith(("ndcg", "Rndcg"))
              for per_query in case["trec_eval_10_full_precision"].values() for v in per_query.values()]
    assert min(values) < 0 and max(values) > 1 and any(map(math.isnan, values))
    assert len(RECORDED) == 840 and len(GROUPS) == 12


def test_command_line_prints_trec_eval_lines(capsys):
    "`ndcg-nb eval -m dcg ...` prints what trec_eval prints, at its 4 decimals."
    case = {c["measure"]: c for c in RECORDED if c["qrels"] == "test/qrels.rel_level" and not c["flags"]}
    measures = ["dcg", "ideal_dcg", "ndcg.0=1,1=4", "ndcg.-1=-2,1=1", "ndcg_rel.0=1,1=4", "Rndcg.1=1.5,2=1"]
    argv = ["eval", DATA / "test" / "qrels.rel_level", DATA / "test" / "results.test", "-q", "--silent"]
    assert main([str(a) for a in argv + [x for m in measures for x in ("-m", m)]]) == 0
    printed = [line.split("\t") for line in capsys.readouterr().out.strip().splitlines()]
    expected = {(name, query): value for m in measures
                for name, values in case[m]["trec_eval_10_full_precision"].items() for query, value in values.items()}
    assert len(printed) == len(expected) == 6 * 4
    for name, query, value in printed:
        assert value == f"{float(expected[name.strip(), query]):6.4f}", (name, query)


# -- ir_measures' nDCG(gains=...): the qrels rewritten, then trec_eval -----------------------------------

# ir_measures' own test of nDCG (tests/test_pytrec_eval.py, test_nDCG; Apache-2.0): qrels with a -1, a run
IR_QRELS = {"0": {"D0": 1, "D1": -1, "D2": 0, "D3": 2, "D4": 0}, "1": {"D0": 1, "D3": 2, "D4": -1, "D5": 0}}
IR_RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1}, "1": {"D1": 0.8, "D4": 0.7, "D3": 0.3, "D2": 0.4}}


def test_ir_measures_own_example():
    """ir_measures' test asserts 0.97177 and 0.14949 for nDCG(gains={0:1,1:4}) there, with its `assertMetrics` (4 places,
    `assertAlmostEqual`). A gain table read wrongly gives other values here (1.0413 and 0.5193 for one such reading,
    an NDCG above 1), which this test must refuse."""
    result = evaluate(IR_QRELS, IR_RUN, ["nDCG(gains={0:1,1:4})"], progress=False)
    ours = [result.value("nDCG(gains={0:1,1:4})", q) for q in ("0", "1")]
    assert all(round(a - b, 4) == 0 for a, b in zip(ours, [0.97177, 0.14949])), ours


GAINS = [{0: 1, 1: 4}, {0: -1}, {2: 0}, {1: 3, 2: 7}, {-1: 5, 0: 0}]


@pytest.mark.parametrize("gains", GAINS, ids=str)
@pytest.mark.parametrize("depth", [None, 3])
@pytest.mark.parametrize("judged_only", [False, True])
def test_ir_measures_gains_against_ir_measures(gains, depth, judged_only):
    ir_measures = pytest.importorskip("ir_measures")
    measure = ir_measures.nDCG(gains=gains, judged_only=judged_only)
    measure = measure if depth is None else measure @ depth
    qrels = [ir_measures.Qrel(q, d, r) for q, docs in IR_QRELS.items() for d, r in docs.items()]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in IR_RUN.items() for d, s in docs.items()]
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    result = evaluate(IR_QRELS, IR_RUN, [measure], progress=False)
    name = result.aggregate["measure"].iloc[0]
    assert theirs and all(abs(result.value(name, q) - v) <= 1e-12 for q, v in theirs.items())


def test_ir_measures_gains_on_the_test_collection():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = DATA / "test" / "qrels.rel_level", DATA / "test" / "results.test"
    for gains in GAINS:
        measure = ir_measures.nDCG(gains=gains) @ 10
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc(
            [measure], ir_measures.read_trec_qrels(str(qrels)), ir_measures.read_trec_run(str(run)))}
        result = evaluate(qrels, run, [measure], progress=False)
        name = result.aggregate["measure"].iloc[0]
        assert all(abs(result.value(name, q) - v) <= 1e-12 for q, v in theirs.items()), gains


def test_ir_measures_refuses_gains_that_are_not_whole_numbers():
    with pytest.raises(Exception, match="ir_measures takes whole-number gains"):
        evaluate(IR_QRELS, IR_RUN, ["nDCG(gains={0:0.5})"], progress=False)
