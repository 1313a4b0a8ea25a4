"""Careless input: swapped qrels and run of any kind, a run given as subtopic qrels, query weights at any scale,
parameters given twice, a NaN weight, a gzip bomb of one repeated line, query ids that print alike, empty and UTF-16
inputs, numbers beyond floating point. Each must get the right number (the plain mean for equal weights) or an error
naming what the user wrote, never a silent wrong number, unbounded memory, or an error that points elsewhere."""
import gzip
import resource
import subprocess
import sys
import textwrap
import time
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

from ndcg_nb import evaluate, hookimpl, ndcg, ndcg_dataset, ndcg_score, register_plugin, unregister_plugin
from ndcg_nb.errors import InputError, PluginError, UsageError
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN, TrecFormatError, read_run
from ndcg_nb.integrations.alpha_ndcg import alpha_ndcg

QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1, "e": 0}}
RUN = {"q1": {"a": 0.9, "b": 0.3, "c": 0.5}, "q2": {"d": 0.2, "e": 0.7}}


# --- 1. swapped qrels and run, whatever the input kind --------------------------------------------------------------

def test_ranx_objects_swapped():
    ranx = pytest.importorskip("ranx")
    with pytest.raises(InputError, match="the qrels given is a ranx Run, which is a run: did you swap qrels and run"):
        evaluate(ranx.Run(RUN), ranx.Qrels(QRELS))


def test_ir_measures_records_swapped():
    Qrel = namedtuple("Qrel", "query_id doc_id relevance")
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    qrels = [Qrel(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    run = [ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    with pytest.raises(InputError, match="is (ScoredDoc|Qrel) records with a '(score|relevance)' field, which is a "
                                         "(run|qrels): did you swap qrels and run"):
        evaluate(run, qrels)


def test_frames_swapped():
    qrels = pd.DataFrame([(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()],
                         columns=["query", "doc", "relevance"])
    run = pd.DataFrame([(q, d, s) for q, docs in RUN.items() for d, s in docs.items()], columns=["query", "doc", "score"])
    with pytest.raises(InputError, match="did you swap qrels and run"):
        evaluate(run, qrels)


def test_dicts_swapped():
    "pytrec_eval's habit (whole grades, float scores) reversed; scores given as floats are taken at their word."
    scores = {"q1": {"a": 12.87, "b": 11.5, "c": 10.25}}
    grades = {"q1": {"a": 2, "b": 0, "c": 1}}
    with pytest.raises(InputError, match=r"the qrels dict holds non-whole numbers \(12.87\) and the run dict only "
                                         r"whole ones \(2\): did you swap qrels and run"):
        evaluate(scores, grades)
    ideal = 2 + 1 / np.log2(3)                      # a (2), c (1); the run ranks a, b (0), c
    assert evaluate(grades, scores).aggregate["value"].iloc[0] == pytest.approx((2 + 1 / np.log2(4)) / ideal, rel=1e-15)


# --- 2. a run file given to alpha-nDCG as subtopic qrels ----------------------------------------------------------

def test_alpha_ndcg_refuses_a_run_as_subtopic_qrels():
    with pytest.raises(TrecFormatError, match="line 1: a subtopic qrels line has 4 fields .* this one 6: this looks "
                                              "like a run"):
        alpha_ndcg(SAMPLE_RUN, SAMPLE_RUN)


# --- 3. equal query weights at any scale -----------------------------------------------------------------------------

@pytest.mark.parametrize("weight", [1e308, 5e-324, 1e-300, 3.0])
def test_equal_query_weights_give_the_plain_mean(weight):
    plain = evaluate(QRELS, RUN).aggregate["value"].iloc[0]
    weighted = evaluate(QRELS, RUN, query_weights={"q1": weight, "q2": weight}).aggregate["value"].iloc[0]
    assert weighted == pytest.approx(plain, rel=1e-15)
    assert ndcg_dataset([[2, 1, 0], [0, 1]], weights=[weight, weight]).value == \
        pytest.approx(ndcg_dataset([[2, 1, 0], [0, 1]]).value, rel=1e-15)


def test_unequal_extreme_weights_are_a_weighted_mean():
    "1e308 and 0.5e308: the weighted mean 2/3 and 1/3 of the two values, not an overflow."
    values = ndcg([[0, 1], [1, 0]])
    got = ndcg_dataset([[0, 1], [1, 0]], weights=[1e308, 0.5e308]).value
    assert got == pytest.approx((2 * values[0] + values[1]) / 3, rel=1e-15)


# --- 4. a preset parameter given twice ----------------------------------------------------------------------------

def test_preset_parameter_given_twice():
    with pytest.raises(UsageError, match="parameter 'complete' is given twice in policy "
                                         "'trec_eval:complete=true;complete=false'"):
        evaluate(QRELS, RUN, preset="trec_eval:complete=true;complete=false")


def test_preset_parameter_given_twice_on_the_command_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "ndcg_nb", "eval", str(SAMPLE_QRELS), str(SAMPLE_RUN),
                          "--preset", "trec_eval:complete=true;complete=false"], capture_output=True, text=True)
    assert out.returncode != 0 and "given twice" in out.stderr, out.stderr


# --- 5. a NaN sample weight in ndcg_score ---------------------------------------------------------------------------

def test_ndcg_score_refuses_a_nan_weight():
    with pytest.raises(InputError, match=r"sample_weight\[0\] is nan; sample_weight must be finite"):
        ndcg_score([[1, 0, 2]], [[0.5, 0.2, 0.1]], sample_weight=[np.nan])
    with pytest.raises(InputError, match="weights"):
        ndcg_dataset([[1, 0], [0, 1]], weights=[np.nan, 1])   # as ndcg_dataset already did


# --- 6. a gzip bomb of one repeated run line ------------------------------------------------------------------------

def test_gzip_bomb_of_a_repeated_line_refused_in_bounded_memory(tmp_path):
    "2 GiB of one run line in a 5 MB file (gzip members, each 1 MiB inflated): refused under 2 GB and 60 s."
    member = gzip.compress(b"q1 Q0 doc1 1 1.0 run\n" * 50_000, 9)
    bomb = tmp_path / "bomb.run.gz"
    with open(bomb, "wb") as out:
        for _ in range((2 << 30) // (21 * 50_000)):
            out.write(member)
    assert bomb.stat().st_size < 8 << 20
    code = textwrap.dedent(f"""
        from ndcg_nb import evaluate
        try:
            evaluate({str(SAMPLE_QRELS)!r}, {str(bomb)!r})
        except Exception as exc:
            print(type(exc).__name__, exc)
    """)
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    took = time.monotonic() - start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    assert out.stdout.startswith("TrecFormatError"), out.stdout + out.stderr
    assert "inflates more than 100 times" in out.stdout
    assert took < 60 and peak_kb < 2 * 1024 * 1024, (took, peak_kb)


# --- 7. query ids that print alike ----------------------------------------------------------------------------------

def test_qid_mixing_a_number_and_its_text():
    with pytest.raises(InputError, match="qid holds 1 and '1', different values that print alike as '1'"):
        ndcg([3, 2, 1, 0], qid=[1, "1", 1, "1"])
    assert len(ndcg([3, 2, 1, 0], qid=[1, 2, 1, 2])) == 2


# --- 8. empty inputs ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("qrels, run, said", [
    ({}, {}, "nothing to score: the run holds no line and the qrels hold no judgment"),
    (QRELS, {}, "nothing to score: the run holds no line"),
    ({}, RUN, "nothing to score: the qrels hold no judgment"),
])
def test_empty_inputs(qrels, run, said):
    with pytest.raises(InputError) as caught:
        evaluate(qrels, run)
    assert str(caught.value) == said


# --- 9. a UTF-16 run ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_run_names_the_encoding(tmp_path, encoding):
    path = tmp_path / "powershell.run"
    path.write_bytes(SAMPLE_RUN.read_text().encode(encoding))
    with pytest.raises(TrecFormatError, match="UTF-16"):
        read_run(path)


# --- 10. presets' parameters named as the user wrote them ------------------------------------------------------------

@pytest.mark.parametrize("preset, said", [
    ("ntcir_ndcg_b:b=1", "parameter b of preset 'ntcir_ndcg_b' must be greater than 1, got 1"),
    ("elliot:threshold=nan", "parameter threshold of preset 'elliot' must be a finite number"),
    ("trectools:depth=0", "parameter depth of preset 'trectools' must be a positive integer"),
])
def test_preset_parameters_named(preset, said):
    with pytest.raises(UsageError) as caught:
        evaluate(QRELS, RUN, preset=preset)
    assert said in str(caught.value)
    assert "unjudged_grade" not in str(caught.value) and "jk" not in str(caught.value)


def test_preset_plugin_with_a_bad_field_is_named():
    class Careless:
        @hookimpl
        def register_presets(self, register):
            register("careless", lambda: {"gain": "linear", "tie": "input"}, "a misspelt field")
            register("careless_value", lambda: {"gain": "linear", "ties": "randomly"}, "a value no field takes")
    register_plugin(Careless(), name="careless-presets-31")
    try:
        with pytest.raises(PluginError, match="preset 'careless' from plugin 'careless-presets-31' returned a "
                                              "convention ndcg_nb cannot use: unknown convention field 'tie'"):
            evaluate(QRELS, RUN, preset="careless")
        with pytest.raises(PluginError, match="plugin 'careless-presets-31'.*ties='randomly'"):
            evaluate(QRELS, RUN, preset="careless_value")
    finally:
        unregister_plugin("careless-presets-31")


# --- 11. numbers beyond floating point ------------------------------------------------------------------------------

def test_huge_integer_grade_in_a_dict():
    with pytest.raises(TrecFormatError, match=r"relevance 100000000000\.\.\. \(401 digits\) is not a finite number "
                                              r"\(query 'q1', document 'a'\)"):
        evaluate({"q1": {"a": 10**400}}, RUN)


@pytest.mark.parametrize("grades, place", [([10**400, 1], "rank 1"), ([[1, 2], [1, 10**400]], "rank 2 of list 1"),
                                           ([[1], [1, 10**400]], "rank 2 of list 1")])
def test_huge_integer_grade_in_a_list(grades, place):
    with pytest.raises(InputError, match=f"grades: the value at {place} \\(401 digits"):
        ndcg(grades)


def test_overflow_names_the_query():
    qrels = {"q1": {"a": 1}, "q7": {d: 1023 for d in "cdef"}}
    run = {"q1": {"a": 1.0}, "q7": {"c": 1.0, "d": 0.5, "e": 0.3, "f": 0.1}}
    for preset in ("lightgbm", "trec_eval"):
        with pytest.raises(InputError, match="DCG or IDCG of query 'q7' overflows"):
            evaluate(qrels, run, preset=preset, gain="exponential")
    with pytest.raises(InputError, match="DCG or IDCG of query 'b' overflows"):
        ndcg([1, 1e308, 1e308, 1e308], qid=["a", "b", "b", "b"])


def test_built_in_gain_overflow_blames_the_grade():
    with pytest.raises(InputError, match="2000 in the grades has no finite gain under gain policy 'exponential'"):
        ndcg([2000, 1], gain="exponential")


def test_spark_row_place_is_a_row_of_its_partition():
    "Spark's monotonically_increasing_id (partition << 33 | row) is shown as the partition and the row in it."
    from ndcg_nb.integrations.partition_scoring import _place
    assert _place(8589934592 + 2, "run", {"spark": True}) == \
        ("run frame (Spark partition 1; rows counted from the partition's start)", "row", 2)
