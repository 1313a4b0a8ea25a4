"""The rest of a results table: map, P@10, recall@100, recip_rank and their kin, named in
trec_eval's, ir_measures' or ranx's dialect, computed by ir_measures with pytrec_eval in the same `Evaluation` as
ndcg_nb's NDCG, and equal to the tools themselves:

- trec_eval's names print the lines trec_eval 10.0 prints on its own test collection (`tests/data/trec_eval`,
  under no flag, -q, -c, -M100 and -l2), byte for byte, and equal pytrec_eval's values to 1e-9;
- ir_measures' names equal ir_measures' own per-query values and means to 1e-9;
- ranx's names equal ranx's (`make_comparable=True`) to 1e-9 on collections without tied scores;
- without the ir_measures extra, the error names the extra to install, before any file is read.
"""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from ndcg_nb import Evaluator, compare, evaluate
from ndcg_nb.__main__ import main
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
from ndcg_nb.errors import MissingExtraError, UsageError

ir_measures = pytest.importorskip("ir_measures", reason="the ir_measures extra is not installed")
pytrec_eval = pytest.importorskip("pytrec_eval", reason="the ir_measures extra is not installed")

TREC = Path(__file__).resolve().parent / "data" / "trec_eval" / "test"
SAMPLE_B = SAMPLE_RUN.with_name("sample_b.run")
TREC_MEASURES = ["map", "map_cut", "P", "recall", "recip_rank", "Rprec", "bpref", "success", "set_P", "set_recall",
                 "set_map", "set_F"]
PYTREC_NAMES = {"map", "recip_rank", "Rprec", "bpref", "set_P", "set_recall", "set_map", "set_F", "P", "recall",
                "map_cut", "success"}


# -- trec_eval's names: trec_eval's own printed lines --------------------------------------------------------------

@pytest.mark.parametrize("expected, qrels, run, options", [
    ("out.test.a", "qrels.test", "results.test", {}),
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"missing_queries": "zero"}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"missing_queries": "zero", "max_docs": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"min_grade": 2}),
])
def test_trec_eval_lines(expected, qrels, run, options):
    "Every line trec_eval printed for these measures, ndcg_nb prints the same (-l2 is min_grade=2)."
    result = evaluate(TREC / qrels, TREC / run, TREC_MEASURES, **options)
    upstream = {}
    for line in (TREC / expected).read_text().splitlines():
        measure, query, _ = line.split("\t")
        if measure.strip().split("_")[0] in ("map", "P", "recall", "recip", "Rprec", "bpref", "success", "set") \
                and not measure.startswith(("Rprec_mult", "set_relative")):
            upstream[measure.strip(), query] = line
    ours = {}
    for line in result.to_trec(per_query=expected != "out.test.a").splitlines():
        measure, query, _ = line.split("\t")
        ours[measure.strip(), query] = line
    assert len(upstream) >= 38
    for key, line in upstream.items():
        assert ours.get(key) == line, key
    provided = {m for m in result.aggregate["measure"] if m == "bpref" or m.startswith("set_")}
    assert set(result.providers) == provided        # the rest computed by ndcg_nb, under the trec_eval preset


def _trec_dicts(qrels_path, run_path):
    qrels, run = {}, {}
    for line in Path(qrels_path).read_text().split("\n"):
        if line.strip():
            q, _, d, r = line.split()[:4]
            qrels.setdefault(q, {})[d] = int(r)
    for line in Path(run_path).read_text().split("\n"):
        if line.strip():
            q, _, d, _, s = line.split()[:5]
            run.setdefault(q, {})[d] = float(s)
    return qrels, run


@pytest.mark.parametrize("qrels_path, run_path", [(SAMPLE_QRELS, SAMPLE_RUN), (SAMPLE_QRELS, SAMPLE_B),
                                                  (TREC / "qrels.test", TREC / "results.trunc")])
def test_trec_eval_names_equal_pytrec_eval(qrels_path, run_path):
    "Full precision: per query and the mean over the run's judged queries (trec_eval without -c)."
    qrels, run = _trec_dicts(qrels_path, run_path)
    names = ["map", "P_5", "P_10", "recall_100", "recip_rank", "Rprec", "bpref", "map_cut_10", "success_5", "set_F"]
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.5,10", "recall.100", "recip_rank", "Rprec", "bpref",
                                                    "map_cut.10", "success.5", "set_F"}).evaluate(run)
    ours = evaluate(qrels_path, run_path, ["map", "P.5,10", "recall.100", "recip_rank", "Rprec", "bpref",
                                           "map_cut.10", "success.5", "set_F"])
    for name in names:
        for query, values in theirs.items():
            assert ours.value(name, query) == pytest.approx(values[name], abs=1e-9, rel=0), (name, query)
        assert ours.value(name) == pytest.approx(np.mean([v[name] for v in theirs.values()]), abs=1e-9, rel=0)


def test_relevance_level_and_judged_only_reach_pytrec_eval():
    qrels, run = _trec_dicts(TREC / "qrels.rel_level", TREC / "results.test")
    level_2 = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.10"}, relevance_level=2).evaluate(run)
    ours = evaluate(TREC / "qrels.rel_level", TREC / "results.test", ["map", "P.10"], min_grade=2)
    for query, values in level_2.items():
        assert ours.value("map", query) == pytest.approx(values["map"], abs=1e-9, rel=0)
        assert ours.value("P_10", query) == pytest.approx(values["P_10"], abs=1e-9, rel=0)
    qrels_list = list(ir_measures.read_trec_qrels(str(TREC / "qrels.test")))
    run_list = list(ir_measures.read_trec_run(str(TREC / "results.test")))
    judged = ir_measures.P(judged_only=True) @ 10
    theirs = {m.query_id: m.value for m in ir_measures.pytrec_eval.iter_calc([judged], qrels_list, run_list)}
    ours = evaluate(TREC / "qrels.test", TREC / "results.test", ["P.10"], unjudged="drop")       # trec_eval -J
    for query, value in theirs.items():
        assert ours.value("P_10", query) == pytest.approx(value, abs=1e-9, rel=0)


# -- ir_measures' names --------------------------------------------------------------------------------------------

IR_NAMES = ["AP", "P@10", "R@100", "RR", "Bpref", "Success@5", "AP@10", "P(rel=2)@5", "SetF(beta=0.5)",
            "SetP", "SetR", "P(judged_only=True)@10"]


@pytest.mark.parametrize("qrels_path, run_path", [(SAMPLE_QRELS, SAMPLE_RUN), (TREC / "qrels.rel_level", TREC / "results.trunc")])
def test_ir_measures_names_equal_ir_measures(qrels_path, run_path):
    """Per query and the mean, which counts a judged query missing from the run as 0, as ir_measures' does. (`Rprec`
    is spelt alike by trec_eval and ir_measures, and is trec_eval's.)"""
    measures = [ir_measures.parse_measure(name) for name in IR_NAMES]
    qrels_dict, run_dict = _trec_dicts(qrels_path, run_path)        # results.trunc has lines ir_measures cannot read
    qrels = [ir_measures.Qrel(q, d, r) for q, docs in qrels_dict.items() for d, r in docs.items()]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in run_dict.items() for d, s in docs.items()]
    means = ir_measures.calc_aggregate(measures, qrels, run)
    per_query = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    ours = evaluate(qrels_path, run_path, IR_NAMES)
    by_object = evaluate(qrels_path, run_path, measures)
    for name, measure in zip(IR_NAMES, measures):
        label = ours.aggregate["measure"].iloc[IR_NAMES.index(name)]
        assert ours.value(label) == pytest.approx(means[measure], abs=1e-9, rel=0), name
        assert by_object.value(measure) == ours.value(label)
        for (measured, query), value in per_query.items():
            if measured == str(measure):
                assert ours.value(label, query) == pytest.approx(value, abs=1e-9, rel=0), (name, query)
    assert set(ours.aggregate["n_missing_skipped"]) == {0}


# -- ranx's names --------------------------------------------------------------------------------------------------

def _collection(seed, n_queries=30):
    "Graded judgments, unjudged documents, judged queries missing from the run, distinct scores (ranx sorts ties its way)."
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{q}_{i}" for i in range(int(rng.integers(3, 40)))]
        judged = rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False)
        qrels[f"q{q}"] = {d: int(rng.integers(0, 4)) for d in judged}
        if q % 6 == 2:
            continue
        retrieved = rng.choice(docs + [f"u{q}_{i}" for i in range(5)], size=int(rng.integers(2, min(30, len(docs) + 5))), replace=False)
        run[f"q{q}"] = {d: float(s) for d, s in zip(retrieved, rng.permutation(len(retrieved)) / 8.0 + 1.0)}
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_ranx_names_equal_ranx(seed):
    ranx = pytest.importorskip("ranx")
    qrels, run = _collection(seed)
    names = ["map@100", "precision@10", "recall@100", "mrr", "r-precision", "hit_rate@5", "map@10-l2",
             "precision@5-l3", "ndcg@10", "ndcg_burges@5-l2"]
    ranx_run = ranx.Run(run)
    ranx.evaluate(ranx.Qrels(qrels), ranx_run, names, make_comparable=True)
    ours = evaluate(qrels, run, names)
    for name in names:
        theirs = ranx_run.scores[name]
        for query in qrels:
            assert ours.value(name, query) == pytest.approx(theirs.get(query, 0.0), abs=1e-9, rel=0), (name, query)
        assert ours.value(name) == pytest.approx(np.mean([theirs.get(q, 0.0) for q in qrels]), abs=1e-9, rel=0)
    assert {c.preset for c in ours.conventions.values()} == {"ranx", "ranx_burges"}


# -- one evaluation, one table -------------------------------------------------------------------------------------

def test_one_table_in_the_order_asked():
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut.10", "map", "nDCG@10", "P@10", "ndcg"])
    assert result.aggregate["measure"].tolist() == ["ndcg_cut_10", "map", "nDCG@10", "P@10", "ndcg"]
    assert sorted(result.providers) == ["P@10"]                     # map: trec_eval's, computed by ndcg_nb
    assert any(note.startswith("P@10: computed by ir_measures ") for note in result.notes)
    data = json.loads(result.to_json(per_query=True))
    assert set(data["providers"]) == {"P@10"} and data["conventions"]["P@10"]["preset"] == "ir_measures"
    map_rows = result.per_query[result.per_query.measure == "map"]
    assert map_rows["status"].tolist().count("missing_from_run") == 0 and len(map_rows) == 5    # trec_eval: left out
    assert result.per_query[result.per_query.measure == "P@10"]["status"].tolist().count("missing_from_run") == 1


def test_held_evaluator_builds_the_provider_once(monkeypatch):
    built = []
    original = ir_measures.pytrec_eval.evaluator
    monkeypatch.setattr(ir_measures.pytrec_eval, "evaluator", lambda *a, **k: built.append(1) or original(*a, **k))
    evaluator = Evaluator(SAMPLE_QRELS, ["map", "P.10", "AP", "ndcg"])
    first, second = evaluator.evaluate(SAMPLE_RUN), evaluator.evaluate(SAMPLE_B)
    assert len(built) == 1                                   # one ir_measures evaluator for the qrels, both runs
    for run, held in ((SAMPLE_RUN, first), (SAMPLE_B, second)):
        fresh = evaluate(SAMPLE_QRELS, run, ["map", "P.10", "AP", "ndcg"])
        assert held.aggregate["value"].tolist() == fresh.aggregate["value"].tolist()


def test_query_weights_and_aggregation():
    alone = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["map"])
    per_query = alone.per_query.set_index("query")["value"]
    weights = {q: float(i + 1) for i, q in enumerate(per_query.index)}
    weighted = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["map"], query_weights=weights)
    expected = sum(per_query[q] * w for q, w in weights.items()) / sum(weights.values())
    assert weighted.value("map") == pytest.approx(expected, abs=1e-12)
    assert evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["map"], aggregation="median").value("map") == pytest.approx(
        float(np.median(per_query)), abs=1e-12)


def test_compare_tests_the_other_measures():
    table = compare(SAMPLE_QRELS, {"a": SAMPLE_RUN, "b": SAMPLE_B}, ["map", "ndcg_cut.10"], tests="t")
    assert table["measure"].tolist() == ["map", "ndcg_cut_10"]
    assert table.set_index("measure").loc["map", "mean"] == evaluate(SAMPLE_QRELS, SAMPLE_B, ["map"]).value("map")


def test_conventions_pytrec_eval_cannot_follow_are_refused():
    with pytest.raises(UsageError, match=r"map is computed by ir_measures with pytrec_eval, which cannot take "
                                         r"unjudged_queries='zero' \(preset sklearn\)"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg", "map"], preset="sklearn")
    with pytest.raises(UsageError, match="cannot take unjudged_queries='zero'"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["P@10"], unjudged_queries="zero")
    with pytest.raises(UsageError, match="pytrec_eval does not compute RR@10"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["mrr@10"])


def test_bounds_take_ndcg_only():
    with pytest.raises(UsageError, match="bounds are computed for NDCG measures only, not 'map'"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg", "map"], bounds=True)


# -- the command line ----------------------------------------------------------------------------------------------

def test_command_line_table(capsys):
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10",
                 "-m", "ndcg_cut_10", "-m", "recip_rank", "-q"]) == 0
    out, err = capsys.readouterr()
    expected = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["map", "ndcg_cut.10", "P.10", "recip_rank"]).to_trec(per_query=True)
    assert out.rstrip("\n") == expected
    assert [line.split("\t")[0].strip() for line in out.splitlines() if "\tall\t" in line] == \
        ["map", "recip_rank", "P_10", "ndcg_cut_10"]                 # trec_eval's order of its measures
    assert "computed by ir_measures" not in err                      # all four computed by ndcg_nb


# -- without the extra ---------------------------------------------------------------------------------------------

@pytest.fixture
def without_ir_measures(monkeypatch):
    "ir_measures as if it were not installed: importing it fails."
    monkeypatch.setitem(sys.modules, "ir_measures", None)


EXTRA = 'pip install -e ".[ir_measures]"'


def test_without_the_extra_the_error_names_it(without_ir_measures):
    with pytest.raises(MissingExtraError, match=r"AP: computed by ir_measures with pytrec_eval, which are not "
                                                r'installed: pip install -e "\.\[ir_measures\]"'):
        evaluate(SAMPLE_QRELS, "no/such/run", ["ndcg", "map", "AP"])           # said before any file is read
    with pytest.raises(MissingExtraError, match=r"^map: computed by ir_measures"):
        evaluate(SAMPLE_QRELS, "no/such/run", ["ndcg", "map"], preset="trec_eval_9")
    assert evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["map"]).value("map") > 0     # trec_eval's map needs no extra
    with pytest.raises(MissingExtraError, match=r'pip install -e "\.\[ir_measures\]"'):
        Evaluator(SAMPLE_QRELS, ["P@10"])
    assert evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg", "nDCG@10"]).value("ndcg") > 0       # NDCG needs no extra


def test_without_the_extra_the_command_line_says_so(without_ir_measures, capsys):
    assert main(["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "AP"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and EXTRA in err and err.startswith("ndcg-nb: error: AP: computed by ir_measures")


def test_the_extra_is_in_settings():
    settings = (Path(__file__).resolve().parents[1] / "settings.ini").read_text()
    line = next(line for line in settings.splitlines() if line.startswith("ir_measures_requirements"))
    assert line.split("=", 1)[1].split() == ["ir-measures", "pytrec-eval-terrier"]
