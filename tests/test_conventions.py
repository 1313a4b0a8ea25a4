"""Every preset against its tool on the 37 shared cases of issue 19 (tests/data/conventions/cases.json).

The tools' values are in tests/data/conventions/results_<tool>.json (the tool run by the census) or
results_<tool>_derived.json (a transcription of the tool's cited source, for tools that cannot run here); see
FINDINGS.md there. Each preset's per-query values must equal the tool's to TOL = 1e-12, except where a tool computes
in float32 (torchmetrics, TF-Ranking: 1e-6, about 8 float32 ulps of a value near 1) or prints rounded values (gdeval:
5 decimals, so 5e-6; RecBole's derived values are not rounded per query, so 1e-12 holds). Where the tool is installed
here, it is also run on the cases (the census scripts, copied in tests/conventions_support/).

A case is left out of a comparison only for a reason written next to it, never to hide a failure: a tool's random or
path-dependent tie order, or an order that depends on the NumPy build (then the preset's note in
ndcg_nb.presets.PRESET_NOTES says so). Every deterministic rule of a tool is a convention field or a built-in policy
and its cases are compared: torchmetrics' empty-target rule (`zero_grade_sum`), Spark's unsorted graded ideal
(`given_order`), RankLib's wrapping int gain, label-sorted ideal and rounded -qrel labels (`int32_exponential`,
`grade_order`, `ideal_grades`), the rankers' groups of 0 labels (`unjudged_queries="one"`), Recommenders' early 0 and
pandas division (`no_hits`, `zero_idcg="signed_skip"`), TF-Ranking's padding of negative labels (`negative="drop"`).

Where the tool's recorded mean is its own aggregate over the case (torchmetrics' metric class, Recommenders'
`ndcg_at_k` on all users at once), the mean is compared too; their per-query values come from the tool run on one
query at a time.
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
# TF-Ranking shuffles tied predictions at random (utils.sort_by_scores(shuffle_ties=True)); its derived values use input
# order, which is what the preset does, so its tie cases are compared: a real run is only within evaluate(..., bounds=True).
ARGSORT = ("the census file holds np.argsort's order on the census machine (NumPy 2.4.6, AVX-512); the order "
           "depends on the NumPy build and CPU, so tie cases are compared with scikit-learn run here (the live test)")

PARTIAL_PER_QUERY = {"trectools"}   # lists only queries with a defined value, but counts IDCG-0 and unjudged queries
                                    # as 0 in its mean: the means are compared, and the listed values
TOOL_MEANS = {"class_neg_mean", "class_neg_median", "class_pos_mean", "class_skip_mean",   # the tool's own aggregate
              "ndcg_at_k_binary", "ndcg_at_k_raw", "ndcg_at_k_exp"}
ALONE_SKIPPED = {"class_skip_mean"}  # per query, the class run on that query alone returns 0.0 when it skips it (all
                                     # queries skipped); over the case it leaves it out: our queries are a subset
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
    ("torchmetrics:functional=true", "torchmetrics", "functional", FLOAT32_TOL, {}),
    ("torchmetrics", "torchmetrics", "class_neg_mean", FLOAT32_TOL, {}),
    ("torchmetrics:aggregation=median", "torchmetrics", "class_neg_median", FLOAT32_TOL, {}),
    ("torchmetrics:empty_target_action=pos", "torchmetrics", "class_pos_mean", FLOAT32_TOL, {}),
    ("torchmetrics:empty_target_action=skip", "torchmetrics", "class_skip_mean", FLOAT32_TOL, {}),
    ("tf_ranking", "tf_ranking_derived", "NDCGMetric_default_no_mask", FLOAT32_TOL, {}),
    ("tf_ranking:mask=true", "tf_ranking_derived", "NDCGMetric_mask_given", FLOAT32_TOL, {}),
    ("catboost", "catboost", "NDCG_Base_LogPosition", F32_LABELS, {}),
    ("catboost:type=base;denominator=position", "catboost", "NDCG_Base_Position", F32_LABELS, {}),
    ("catboost:type=exp", "catboost", "NDCG_Exp_LogPosition", F32_LABELS, {}),
    ("catboost:type=exp;denominator=position", "catboost", "NDCG_Exp_Position", F32_LABELS, {}),
    ("ranklib", "ranklib_derived", "NDCG", TOL, {}),
    ("ranklib:qrel_file=true", "ranklib_derived", "NDCG_with_qrel_file", TOL, {}),
    ("spark_mllib", "spark_mllib_derived", "ndcgAt_binary", TOL, {}),
    ("spark_mllib:graded=true", "spark_mllib_derived", "ndcgAt_graded", TOL, {}),
    ("recommenders", "recommenders", "ndcg_at_k_binary", TOL, {}),
    ("recommenders:score_type=raw", "recommenders", "ndcg_at_k_raw", TOL, {}),
    ("recommenders:score_type=exp", "recommenders", "ndcg_at_k_exp", TOL, {}),
    ("recbole", "recbole_derived", "NDCG", TOL, {}),
    ("elliot", "elliot_derived", "nDCG_threshold0_default", TOL, {}),
    ("elliot:threshold=1", "elliot_derived", "nDCG_threshold1", TOL, {}),
    ("vespa", "vespa_derived", "VespaEvaluator_binary_sets", TOL, {}),
    ("vespa:graded=true", "vespa_derived", "VespaEvaluator_graded", TOL, {}),
    ("elasticsearch", "elasticsearch_derived", "dcg_normalize", TOL, {}),
    ("elasticsearch:unknown_doc_rating=0", "elasticsearch_derived", "dcg_normalize_unknown0", TOL, {}),
    ("sklearn", "sklearn", "ndcg_score", TOL, {}),
    ("sklearn_ignore_ties", "sklearn", "ndcg_score_ignore_ties", TOL, {name: ARGSORT for name in TIE_CASES}),
    ("ranx", "ranx", "ndcg", TOL, {name: RANX_TIES for name in TIE_CASES}),
    ("ranx_burges", "ranx", "ndcg_burges", TOL, {name: RANX_TIES for name in TIE_CASES}),
    ("lightgbm", "lightgbm", "ndcg", TOL, {}),
    (("lightgbm", {}), "lightgbm", "ndcg_linear_label_gain", TOL, {}),
    ("xgboost", "xgboost", "ndcg", TOL, {}),
    ("xgboost:exp_gain=false", "xgboost", "ndcg_linear_exp_gain_false", F32_LABELS, {}),
]
OVERRIDES = {"ndcg_linear_label_gain": {"gain": "linear"}}   # LightGBM with label_gain = [0, 1, 2, ...]


def _results(stem):
    return json.loads((DATA / f"results_{stem}.json").read_text())["cases"]


def _excluded(rule, results, variant):
    "The cases a spec leaves out, each with its reason (a dict: case -> reason)."
    assert isinstance(rule, dict), rule
    return rule


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
    mean = entry["mean"]
    if stem in PARTIAL_PER_QUERY or failed_queries or variant in TOOL_MEANS:
        if isinstance(mean, (int, float)) and not math.isnan(mean):
            assert our_mean(preset, CASES[name], OVERRIDES.get(variant)) == pytest.approx(mean, abs=tol, rel=0), (preset, name)
        elif variant in TOOL_MEANS:       # the tool's aggregate is NaN (a NaN-skipping mean of nothing): ours too
            assert math.isnan(our_mean(preset, CASES[name], OVERRIDES.get(variant))), (preset, name, mean)
    if variant in ALONE_SKIPPED:
        assert set(mine) <= set(theirs), (preset, name, mine, theirs)
        theirs = {q: v for q, v in theirs.items() if q in mine}
    elif stem in PARTIAL_PER_QUERY or failed_queries:
        assert set(theirs) <= set(mine), (preset, name, mine, theirs)
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
