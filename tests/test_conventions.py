"""Every preset against its tool on the 37 shared cases of issue 19 (tests/data/conventions/cases.json).

The tools' values are in tests/data/conventions/results_<tool>.json (the tool run by the census) or
results_<tool>_derived.json (a transcription of the tool's cited source, for tools that cannot run here); see
FINDINGS.md there. Each preset's per-query values must equal the tool's to TOL = 1e-12, except where a tool computes
in float32 (torchmetrics, TF-Ranking: 1e-6, about 8 float32 ulps of a value near 1) or prints rounded values (gdeval:
5 decimals, so 5e-6; RecBole's derived values are not rounded per query, so 1e-12 holds). Where the tool is installed
here, it is also run on the cases (the census scripts, copied in tests/conventions_support/).

A case is left out of a comparison only for a reason written next to it (EXCLUDED), never to hide a failure: a
tool's random or path-dependent tie order, or a rule no convention field can hold (then the preset's note in
ndcg_nb.presets.PRESET_NOTES says so).
"""
import importlib
import json
import math
from pathlib import Path

import numpy as np
import pytest

from ndcg_nb.evaluation import evaluate
from ndcg_nb.presets import PRESET_NOTES

DATA = Path(__file__).resolve().parent / "data" / "conventions"
CASES = {case["name"]: case for case in json.loads((DATA / "cases.json").read_text())}
TOL = 1e-12
FLOAT32_TOL = 1e-6
GDEVAL_TOL = 5e-6        # gdeval prints %.5f
F32_LABELS = "float32 labels"   # CatBoost and XGBoost store labels as float32: FLOAT32_TOL on cases with such grades

TIE_CASES = {name for name, case in CASES.items()
             if any(len(set(docs.values())) < len(docs) for docs in case["run"].values())}

RANX_TIES = ("ranx orders tied scores with numba's unstable quicksort and make_comparable() sorts the run again, "
             "reversing tied blocks (FINDINGS.md item 4): the order depends on the sorting history, not on a rule")
TFR_TIES = ("TF-Ranking shuffles tied predictions at random (utils.sort_by_scores(shuffle_ties=True)); the derived "
            "values use input order, which is what the preset does, so tie cases are compared; a real TF-Ranking run "
            "would only be within evaluate(..., bounds=True)")
SPARK_UNSORTED = ("Spark's graded ndcgAt walks the ideal in the caller's label order (FINDINGS.md item 8); the "
                  "derived values pass qrels insertion order, which is not sorted in this case")
TORCH_EMPTY = ("the torchmetrics class calls a query 'empty' when its grades sum to 0 and scores it by "
               "empty_target_action (retrieval/base.py): no convention field holds a rule on the sum of grades")
GBM_EMPTY_GROUP = ("a run query without qrels is a group of 0 labels for the ranker and scores 1 (IDCG 0); ndcg_nb has "
                   "no judgment for it and leaves it out (the preset's note says so)")
TFR_PADDING = ("without a mask TF-Ranking treats a negative label as padding and moves it to the end of the list "
               "(_prepare_and_validate_params); ndcg_nb scores it 0 where it ranks")
ARGSORT = ("the census file holds np.argsort's order on the census machine (NumPy 2.4.6, AVX-512); the order "
           "depends on the NumPy build and CPU, so tie cases are compared with scikit-learn run here (the live test)")
RANKLIB_WRAP = "RankLib's gain (1 << g) - 1 is a Java int: grade 31 wraps, 32 gives 0 (DCGScorer.java)"
RANKLIB_RINT = "RankLib rounds -qrel labels with Math.rint where it truncates the ranked list's labels with (int)"
RECOMMENDERS_NO_HIT = ("Recommenders returns 0 for a user without any hit before dividing, so an IDCG-0 user "
                       "without hits scores 0 instead of NaN (python_evaluation.py ndcg_at_k)")

GBM = {name: GBM_EMPTY_GROUP for name, case in CASES.items() if set(case["run"]) - set(case["qrels"])}
PARTIAL_PER_QUERY = {"trectools"}   # lists only queries with a defined value, but counts IDCG-0 and unjudged queries
                                    # as 0 in its mean: the means are compared, and the listed values
# (preset spec, results file stem, variant, tolerance, {case: reason to leave it out})
SPECS = [
    ("trec_eval", "pytrec_eval", "ndcg_int_grades", TOL, {}),
    ("trec_eval:judged_only=true", "pytrec_eval", "ndcg_judged_only", TOL, {}),
    ("ir_measures", "ir_measures", "nDCG", TOL, {}),
    ("ir_measures:judged_only=true", "ir_measures", "nDCG_judged_only", TOL, {}),
    ("gdeval", "ir_measures", "gdeval_nDCG_exp-log2", GDEVAL_TOL, {}),
    ("trectools", "trectools", "ndcg_trec_eval_True", TOL, {}),
    ("trectools:trec_eval=false", "trectools", "ndcg_trec_eval_False_exp", TOL, {}),
    ("trectools:remove_unjudged=true", "trectools", "ndcg_removeUnjudged", TOL, {}),
    ("ntcir", "pyntcireval", "MSnDCG", TOL, {}),
    ("ntcir_ndcg_b:b=2", "pyntcireval", "nDCG_b2", TOL, {}),
    ("ntcir_ndcg_b:b=3", "pyntcireval", "nDCG_b3", TOL, {}),
    ("torchmetrics", "torchmetrics", "functional", FLOAT32_TOL, {}),
    ("torchmetrics", "torchmetrics", "class_neg_mean", FLOAT32_TOL, "empty"),
    ("torchmetrics:aggregation=median", "torchmetrics", "class_neg_median", FLOAT32_TOL, "empty"),
    ("tf_ranking", "tf_ranking_derived", "NDCGMetric_default_no_mask", FLOAT32_TOL, "tfr_padding"),
    ("tf_ranking:mask=true", "tf_ranking_derived", "NDCGMetric_mask_given", FLOAT32_TOL, {}),
    ("catboost", "catboost", "NDCG_Base_LogPosition", F32_LABELS, GBM),
    ("catboost:type=base;denominator=position", "catboost", "NDCG_Base_Position", F32_LABELS, GBM),
    ("catboost:type=exp", "catboost", "NDCG_Exp_LogPosition", F32_LABELS, GBM),
    ("catboost:type=exp;denominator=position", "catboost", "NDCG_Exp_Position", F32_LABELS, GBM),
    ("ranklib", "ranklib_derived", "NDCG", TOL, {"very_high_grades": RANKLIB_WRAP}),
    ("ranklib:qrel_file=true", "ranklib_derived", "NDCG_with_qrel_file", TOL,
     {"very_high_grades": RANKLIB_WRAP, "float_grades": RANKLIB_RINT, "float_grades_ties": RANKLIB_RINT}),
    ("spark_mllib", "spark_mllib_derived", "ndcgAt_binary", TOL, {}),
    ("spark_mllib:graded=true", "spark_mllib_derived", "ndcgAt_graded", TOL, "spark"),
    ("recommenders", "recommenders", "ndcg_at_k_binary", TOL, {}),
    ("recommenders:score_type=raw", "recommenders", "ndcg_at_k_raw", TOL, "recommenders"),
    ("recommenders:score_type=exp", "recommenders", "ndcg_at_k_exp", TOL, "recommenders"),
    ("recbole", "recbole_derived", "NDCG", TOL, {}),
    ("elliot", "elliot_derived", "nDCG_threshold0_default", TOL, {}),
    ("elliot:threshold=1", "elliot_derived", "nDCG_threshold1", TOL, {}),
    ("vespa", "vespa_derived", "VespaEvaluator_binary_sets", TOL, {}),
    ("vespa:graded=true", "vespa_derived", "VespaEvaluator_graded", TOL, {}),
    ("elasticsearch", "elasticsearch_derived", "dcg_normalize", TOL, "es"),
    ("elasticsearch:unknown_doc_rating=0", "elasticsearch_derived", "dcg_normalize_unknown0", TOL, "es"),
    ("sklearn", "sklearn", "ndcg_score", TOL, {}),
    ("sklearn_ignore_ties", "sklearn", "ndcg_score_ignore_ties", TOL, {name: ARGSORT for name in TIE_CASES}),
    ("ranx", "ranx", "ndcg", TOL, {name: RANX_TIES for name in TIE_CASES}),
    ("ranx_burges", "ranx", "ndcg_burges", TOL, {name: RANX_TIES for name in TIE_CASES}),
    ("lightgbm", "lightgbm", "ndcg", TOL, GBM),
    (("lightgbm", {}), "lightgbm", "ndcg_linear_label_gain", TOL, GBM),
    ("xgboost", "xgboost", "ndcg", TOL, GBM),
    ("xgboost:exp_gain=false", "xgboost", "ndcg_linear_exp_gain_false", F32_LABELS, GBM),
]
OVERRIDES = {"ndcg_linear_label_gain": {"gain": "linear"}}   # LightGBM with label_gain = [0, 1, 2, ...]


def _results(stem):
    return json.loads((DATA / f"results_{stem}.json").read_text())["cases"]


def _excluded(rule, results, variant):
    "The cases a spec leaves out, each with its reason."
    if isinstance(rule, dict):
        return rule
    out = {}
    for name, case in CASES.items():
        if rule == "empty" and any(sum(case["qrels"].get(q, {}).get(d, 0) for d in docs) == 0
                                   for q, docs in case["run"].items()):
            out[name] = TORCH_EMPTY
        if rule == "tfr_padding" and any(g < 0 for q, docs in case["run"].items() for d in docs
                                         for g in [case["qrels"].get(q, {}).get(d, 0)]):
            out[name] = TFR_PADDING
        if rule == "spark" and any(list(g.values()) != sorted(g.values(), reverse=True) for g in case["qrels"].values()):
            out[name] = SPARK_UNSORTED
        if rule == "recommenders":
            for q, grades in case["qrels"].items():
                positive = [d for d, g in grades.items() if g > 0]
                if not positive or not any(d in grades for d in list(case["run"].get(q, {}))[:case["k"] or 1000]):
                    out[name] = RECOMMENDERS_NO_HIT
    return out


def ours(preset, case, overrides=None):
    "ndcg_nb's per-query values of `case` under `preset`: {query: value} of the counted queries."
    measure = "ndcg" if case["k"] is None else f"ndcg@{case['k']}"
    result = evaluate(case["qrels"], case["run"], [measure], preset=preset, no_common_query="score", **(overrides or {}))
    frame = result.per_query
    frame = frame[frame["counted"]]
    return {str(q): float(v) for q, v in zip(frame["query"], frame["value"]) if not math.isnan(v)}


def our_mean(preset, case, overrides=None):
    measure = "ndcg" if case["k"] is None else f"ndcg@{case['k']}"
    result = evaluate(case["qrels"], case["run"], [measure], preset=preset, no_common_query="score", **(overrides or {}))
    return float(result.value(result.per_query["measure"].iloc[0]))


def _theirs(entry):
    "The tool's per-query values of one case and variant, without the queries it leaves out (None, NaN)."
    return {q: v for q, v in entry["per_query"].items() if isinstance(v, (int, float)) and not math.isnan(v)}


def _compare(preset, stem, variant, tol, name, entry):
    "The preset's values on case `name` against the tool's `entry` ({'per_query', 'mean'})."
    if tol == F32_LABELS:
        grades = [g for docs in CASES[name]["qrels"].values() for g in docs.values()]
        tol = FLOAT32_TOL if any(float(np.float32(g)) != g for g in grades) else TOL
    theirs = _theirs(entry)
    mine = ours(preset, CASES[name], OVERRIDES.get(variant))
    # a tool whose per-query output failed for some query (the census records the error text) while its mean is
    # printed: check the queries it did give, and the mean, which counts the others
    failed_queries = any(isinstance(v, str) for v in entry["per_query"].values())
    if stem in PARTIAL_PER_QUERY or failed_queries:
        assert set(theirs) <= set(mine), (preset, name, mine, theirs)
        mean = entry["mean"]
        if isinstance(mean, (int, float)) and not math.isnan(mean):
            assert our_mean(preset, CASES[name], OVERRIDES.get(variant)) == pytest.approx(mean, abs=tol, rel=0)
    else:
        assert set(mine) == set(theirs), (preset, name, mine, theirs)
    for query, value in theirs.items():
        assert mine[query] == pytest.approx(value, abs=tol, rel=0), (preset, name, query, mine[query], value)


def _params():
    for preset, stem, variant, tol, rule in SPECS:
        results = _results(stem)
        excluded = _excluded(rule, results, variant)
        for name in CASES:
            entry = results[name].get(variant)
            marks = []
            if entry is None or "error" in entry:
                reason = f"{stem} {variant} refuses case {name}: {entry and entry.get('error')}"
                marks = [pytest.mark.skip(reason=reason)]
            elif name in excluded:
                marks = [pytest.mark.skip(reason=excluded[name])]
            label = preset if isinstance(preset, str) else preset[0] + "+" + variant
            yield pytest.param(preset, stem, variant, tol, name, marks=marks, id=f"{label}-{variant}-{name}")


@pytest.mark.parametrize("preset, stem, variant, tol, name", list(_params()))
def test_preset_matches_census(preset, stem, variant, tol, name):
    _compare(preset, stem, variant, tol, name, _results(stem)[name][variant])


def test_every_preset_has_a_census_comparison_and_a_note():
    from ndcg_nb.plugins import policies_of
    compared = {(spec if isinstance(spec, str) else spec[0]).split(":")[0] for spec, *_ in SPECS}
    assert set(policies_of("preset")) - compared == set()
    assert set(policies_of("preset")) <= set(PRESET_NOTES)


# --- the two corrected presets, on a tie case each --------------------------------------------------------------

@pytest.mark.parametrize("name", ["tie4_argsort_unstable", "tie3_issue_example", "tie10_all", "tie40_cut"])
def test_sklearn_ignore_ties_follows_numpy_argsort(name):
    """scikit-learn's ignore_ties=True ranks by np.argsort(scores)[::-1]: on tie4_argsort_unstable that is neither a
    reversed stable sort (0.58622) nor, on tie3_issue_example, the input order; compared with scikit-learn run here."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    case = CASES[name]
    (query, docs), = case["run"].items()
    grades = [case["qrels"][query].get(d, 0) for d in docs]
    expected = sklearn_metrics.ndcg_score([grades], [list(docs.values())], k=case["k"], ignore_ties=True)
    assert ours("sklearn_ignore_ties", case)[query] == pytest.approx(expected, abs=TOL, rel=0)


def test_sklearn_ignore_ties_is_not_input_order():
    "The tie case above where input order and NumPy's argsort disagree (so the test cannot pass by accident)."
    case = CASES["tie3_issue_example"]
    expected = _results("sklearn")["tie3_issue_example"]["ndcg_score_ignore_ties"]["per_query"]["1"]
    assert ours(("sklearn_ignore_ties", {}), case, {"ties": "input"})["1"] != pytest.approx(expected, abs=1e-6)


def test_xgboost_default_depth_is_32():
    "Case tie40_all (40 tied documents): XGBoost's `ndcg` is ndcg@32 (0.53439), full depth gives 0.56052."
    case = CASES["tie40_all"]
    expected = _results("xgboost")["tie40_all"]["ndcg"]["per_query"]
    assert ours("xgboost", case) == pytest.approx(expected, abs=TOL, rel=0)
    assert ours("lightgbm", case) != pytest.approx(expected, abs=1e-6)


def test_ranx_truncates_grades():
    "Case float_grades_ties: ranx reads 1.5 as 1 (int); compared without ties reaching the result."
    case = CASES["float_grades"]
    expected = _results("ranx")["float_grades"]["ndcg"]["per_query"]
    assert ours("ranx", case) == pytest.approx(expected, abs=TOL, rel=0)


# --- the tools themselves, where installed ------------------------------------------------------------------------

RUNNERS = {  # results stem -> (module to import first, runner module in tests/conventions_support)
    "sklearn": ("sklearn", "run_sklearn"), "pytrec_eval": ("pytrec_eval", "run_pytrec_eval"),
    "ranx": ("ranx", "run_ranx"), "lightgbm": ("lightgbm", "run_lightgbm"), "xgboost": ("xgboost", "run_xgboost"),
    "ir_measures": ("ir_measures", "run_ir_measures"), "trectools": ("trectools", "run_trectools"),
    "catboost": ("catboost", "run_catboost"), "pyntcireval": ("pyNTCIREVAL", "run_pyntcireval"),
    "recommenders": ("recommenders.evaluation.python_evaluation", "run_recommenders"),
    "torchmetrics": ("torchmetrics", "run_torchmetrics"),
}
LIVE = [spec for spec in SPECS if spec[1] in RUNNERS]


def _live_params():
    for preset, stem, variant, tol, rule in LIVE:
        excluded = {name: reason for name, reason in _excluded(rule, _results(stem), variant).items()
                    if reason != ARGSORT}    # scikit-learn run here calls this machine's np.argsort, as the preset does
        label = preset if isinstance(preset, str) else preset[0] + "+" + variant
        for name in CASES:
            marks = [pytest.mark.skip(reason=excluded[name])] if name in excluded else []
            yield pytest.param(preset, stem, variant, tol, name, marks=marks, id=f"live-{label}-{variant}-{name}")


@pytest.mark.parametrize("preset, stem, variant, tol, name", list(_live_params()))
def test_preset_matches_tool_run_here(preset, stem, variant, tol, name):
    package, runner = RUNNERS[stem]
    pytest.importorskip(package)
    module = importlib.import_module(f"tests.conventions_support.{runner}")
    from tests.conventions_support.common import run_variant
    entry = run_variant(module.variants[variant], CASES[name])
    if "error" in entry:
        pytest.skip(f"{stem} {variant} refuses case {name}: {entry['error']}")
    _compare(preset, stem, variant, tol, name, entry)
