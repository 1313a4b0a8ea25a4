"""Every preset against its tool on the 37 shared cases of the census (tests/data/conventions/cases.json), and the
presets of the tools that rules beyond the census concern (documents named as their query, documents a tool ignores,
users without test rows, the rows and labels Spark is given) on the cases of tests/data/conventions/cases_more.json
(MORE_SPECS: only those tools' results, results_<tool>_more.json, so a new case there asks no other tool to run again).

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
(`given_order`) and PySpark's dropped relevances (every label relevant, `judged_grade=1`), RankLib's wrapping int gain, label-sorted ideal and rounded -qrel labels (`int32_exponential`,
`grade_order`, `ideal_grades`), the rankers' groups of 0 labels (`unjudged_queries="one"`), Recommenders' early 0 and
pandas division (`no_hits`, `zero_idcg="signed_skip"`), TF-Ranking's padding of negative labels (`negative="drop"`).

A tool that gives a number no rule can repeat is refused instead, and the refusal is tested against the tool:
pyNTCIREVAL's negative grades (`negative="raise"`, the ntcir presets).

Spark runs here (pyspark 4.3 in local mode, Java 17): results_pyspark.json is what PySpark's `RankingMetrics` and
Scala's graded `RankingMetrics.of` returned (tests/conventions_support/run_pyspark.py); the live run, a Spark job per
query, is on request (NDCG_NB_SPARK_TESTS=1), as the other Spark tests are.

Where the tool's recorded mean is its own aggregate over the case (torchmetrics' metric class, Recommenders'
`ndcg_at_k` on all users at once), the mean is compared too; their per-query values come from the tool run on one
query at a time.
"""
import importlib
import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from ndcg_nb.errors import InputError
from ndcg_nb.evaluation import evaluate
from ndcg_nb.presets import PRESET_NOTES

DATA = Path(__file__).resolve().parent / "data" / "conventions"
CASES = {case["name"]: case for case in json.loads((DATA / "cases.json").read_text())}
# cases of rules the census does not reach; only the tools these rules concern are run on them (MORE_SPECS)
MORE_CASES = {case["name"]: case for case in json.loads((DATA / "cases_more.json").read_text())}
ALL_CASES = {**CASES, **MORE_CASES}
TOL = 1e-12
FLOAT32_TOL = 1e-6
GDEVAL_TOL = 5e-6        # gdeval prints %.5f
F32_LABELS = "float32 labels"   # CatBoost and XGBoost store labels as float32: FLOAT32_TOL on cases with such grades
SPARK_ON_REQUEST = ("Spark runs on request: NDCG_NB_SPARK_TESTS=1 (with Java and pyspark), as in tests/test_distributed.py; "
                    "results_pyspark.json holds what it returned here")
SPARK_OFF = os.environ.get("NDCG_NB_SPARK_TESTS") != "1" or shutil.which("java") is None

TIE_CASES = {name for name, case in CASES.items()
             if any(len(set(docs.values())) < len(docs) for docs in case["run"].values())}

RANX_TIES = ("ranx orders tied scores with numba's unstable quicksort and make_comparable() sorts the run again, "
             "reversing tied blocks (FINDINGS.md item 4): the order depends on the sorting history, not on a rule")
# TF-Ranking shuffles tied predictions at random (utils.sort_by_scores(shuffle_ties=True)); its derived values use input
# order, which is what the preset does, so its tie cases are compared: a real run is only within evaluate(..., bounds=True).
ARGSORT = ("the census file holds np.argsort's order on the census machine (NumPy 2.4.6, AVX-512); the order "
           "depends on the NumPy build and CPU, so tie cases are compared with scikit-learn run here (the live test)")

CORNAC_TIES = ("cornac's Recommender.rank orders ties as np.argsort(scores)[::-1] (the preset's numpy_argsort, whose order "
               "depends on the NumPy build and CPU) or, under a cut-off shorter than the list, as np.argpartition leaves them "
               "(no rule): compared with cornac run here (the live test)")
RECPACK_TIES = "RecPack's get_top_K_ranks orders tied scores by np.argpartition: no rule (the preset keeps item order)"
RECPACK_GRADES = ("grades other than 0 and 1: RecPack's pipelines pass binary interactions, and on other values NDCGK divides "
                  "a value v at rank r by log2(r * v + 1) (PRESET_NOTES['recpack']); variant NDCGK_binary_values compares them")
BINARY_CASES = {name for name, case in ALL_CASES.items() if {g for docs in case["qrels"].values() for g in docs.values()} <= {0, 1}}

TORCH_SORT = ("TorchRec orders tied predictions with torch.sort(descending=True) without stable=True, an order torch "
              "leaves unspecified: compared with ndcg_nb's tie bounds in tests/test_training_presets.py")
KERAS_TIES = ("Keras-RS shuffles tied predictions at random, shuffle_ties=False included (scores equal in float32 too): "
              "compared with ndcg_nb's tie bounds in tests/test_training_presets.py")
METRAX_CLIP = ("IDCG < 0: metrax clips NDCG at 1 and the preset divides (PRESET_NOTES['metrax']); "
               "tests/test_training_presets.py checks the clip")

PARTIAL_PER_QUERY = {"trectools"}   # lists only queries with a defined value, but counts IDCG-0 and unjudged queries
                                    # as 0 in its mean: the means are compared, and the listed values
TOOL_MEANS = {"class_neg_mean", "class_neg_median", "class_pos_mean", "class_skip_mean",   # the tool's own aggregate
              "ndcg_at_k_binary", "ndcg_at_k_raw", "ndcg_at_k_exp",
              "class_neg_mean_ignore_index", "class_skip_mean_ignore_index", "class_pos_mean_ignore_index"}
ALONE_SKIPPED = {"class_skip_mean", "class_skip_mean_ignore_index"}  # per query, the class run on that query alone returns 0.0 when it skips it (all
                                     # queries skipped); over the case it leaves it out: our queries are a subset
ROUNDED_MEANS = {"beir", "mteb"}   # the tool's mean is rounded to 5 decimals (its per-query values, caught from its
                                   # pytrec_eval call, are not): ours rounded alike must equal it
# (preset spec, results file stem, variant, tolerance, {case: reason to leave it out})
SPECS = [
    ("trec_eval_9", "pytrec_eval", "ndcg_int_grades", TOL, {}),         # pytrec_eval reads scores as floats, as 9.x
    ("trec_eval", "pytrec_eval", "ndcg_int_grades", TOL,
     {"float32_ties": "scores distinct only as doubles: pytrec_eval reads floats, trec_eval 10.0 and this preset doubles "
                      "(tests/test_trec_eval10.py compares the preset with trec_eval 10.0 built from its source)"}),
    ("trec_eval_9:judged_only=true", "pytrec_eval", "ndcg_judged_only", TOL, {}),
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
    ("spark_mllib", "pyspark", "RankingMetrics_triples", TOL, {}),
    ("spark_mllib:labels=relevant", "pyspark", "RankingMetrics_pairs_relevant", TOL, {}),
    ("spark_mllib:graded=true", "pyspark", "of_graded", TOL, {}),
    ("spark_mllib:labels=relevant", "spark_mllib_derived", "ndcgAt_binary", TOL, {}),
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
    ("beir", "beir", "evaluate", TOL, {}),
    ("beir:ignore_identical_ids=false", "beir", "evaluate_keep_identical_ids", TOL, {}),
    ("mteb", "mteb", "evaluate", TOL, {}),
    ("mteb:ignore_identical_ids=true", "mteb", "evaluate_ignore_identical_ids", TOL, {}),
    ("ignite", "ignite", "NDCG", FLOAT32_TOL, {}),      # Ignite, TorchRec: float32 discounts
    ("ignite:gain_function=linear_rank", "ignite", "NDCG_linear", FLOAT32_TOL, {}),
    ("ignite:ignore_zero_hits=false", "ignite", "NDCG_zero_hits_counted", FLOAT32_TOL, {}),
    ("ignite:relevance_threshold=0.5", "ignite", "NDCG_threshold_0.5", FLOAT32_TOL, {}),
    ("torchrec", "torchrec", "NDCG", FLOAT32_TOL, {name: TORCH_SORT for name in TIE_CASES}),
    ("torchrec:exponential_gain=true", "torchrec", "NDCG_exponential", FLOAT32_TOL, {name: TORCH_SORT for name in TIE_CASES}),
    ("keras_rs", "keras_rs", "NDCG", FLOAT32_TOL, {name: KERAS_TIES for name in TIE_CASES | {"float32_ties"}}),
    ("metrax", "metrax", "NDCGAtK", FLOAT32_TOL, {"all_negative": METRAX_CLIP}),
    ("cornac", "cornac", "NDCG", TOL, {name: CORNAC_TIES for name in TIE_CASES}),
    ("recpack", "recpack", "NDCGK", TOL, {**{name: RECPACK_GRADES for name in set(CASES) - BINARY_CASES},
                                          **{name: RECPACK_TIES for name in TIE_CASES}}),
    ("recpack", "recpack", "NDCGK_binary_values", TOL, {name: RECPACK_TIES for name in TIE_CASES}),
]
# the presets of the tools the cases of cases_more.json concern, on those cases (results_<stem>.json holds them all)
MORE_SPECS = [
    ("beir", "beir_more", "evaluate", TOL, {}),
    ("beir:ignore_identical_ids=false", "beir_more", "evaluate_keep_identical_ids", TOL, {}),
    ("mteb", "mteb_more", "evaluate", TOL, {}),
    ("mteb:ignore_identical_ids=true", "mteb_more", "evaluate_ignore_identical_ids", TOL, {}),
    ("torchmetrics:functional=true", "torchmetrics_more", "functional", FLOAT32_TOL, {}),
    ("torchmetrics", "torchmetrics_more", "class_neg_mean", FLOAT32_TOL, {}),
    ("torchmetrics:aggregation=median", "torchmetrics_more", "class_neg_median", FLOAT32_TOL, {}),
    ("torchmetrics:empty_target_action=pos", "torchmetrics_more", "class_pos_mean", FLOAT32_TOL, {}),
    ("torchmetrics:empty_target_action=skip", "torchmetrics_more", "class_skip_mean", FLOAT32_TOL, {}),
    ("torchmetrics:ignore_index=true", "torchmetrics_more", "class_neg_mean_ignore_index", FLOAT32_TOL, {}),
    ("torchmetrics:ignore_index=true;empty_target_action=skip", "torchmetrics_more", "class_skip_mean_ignore_index",
     FLOAT32_TOL, {}),
    ("torchmetrics:ignore_index=true;empty_target_action=pos", "torchmetrics_more", "class_pos_mean_ignore_index",
     FLOAT32_TOL, {}),
    ("spark_mllib", "pyspark_more", "RankingMetrics_triples", TOL, {}),
    ("spark_mllib:labels=relevant", "pyspark_more", "RankingMetrics_pairs_relevant", TOL, {}),
    ("spark_mllib:graded=true", "pyspark_more", "of_graded", TOL, {}),
    ("spark_mllib:labels=relevant;relevant_from=1", "pyspark_more", "RankingMetrics_pairs_grade_at_least_1", TOL, {}),
    ("spark_mllib:rows=run", "pyspark_more", "RankingMetrics_triples_rows_run", TOL, {}),
    ("spark_mllib:rows=qrels", "pyspark_more", "RankingMetrics_triples_rows_qrels", TOL, {}),
    ("spark_mllib:rows=both", "pyspark_more", "RankingMetrics_triples_rows_both", TOL, {}),
    ("spark_mllib:graded=true;rows=run", "pyspark_more", "of_graded_rows_run", TOL, {}),
    ("recbole", "recbole_more", "NDCG", TOL, {}),
    ("recbole:users=run", "recbole_more", "NDCG_users_run", TOL, {}),
    ("cornac", "cornac_more", "NDCG", TOL, {}),
    ("recpack", "recpack_more", "NDCGK", TOL, {name: RECPACK_GRADES for name in set(MORE_CASES) - BINARY_CASES}),
    ("recpack", "recpack_more", "NDCGK_binary_values", TOL, {}),
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
    case = ALL_CASES[name]
    if tol == F32_LABELS:
        grades = [g for docs in case["qrels"].values() for g in docs.values()]
        tol = FLOAT32_TOL if any(float(np.float32(g)) != g for g in grades) else TOL
    theirs = _theirs(entry)
    mine = ours(preset, case, OVERRIDES.get(variant))
    # a tool whose per-query output failed for some query (the census records the error text) while its mean is
    # printed: check the queries it did give, and the mean, which counts the others
    failed_queries = any(isinstance(v, str) for v in entry["per_query"].values())
    mean = entry["mean"]
    if stem in PARTIAL_PER_QUERY or failed_queries or variant in TOOL_MEANS:
        if isinstance(mean, (int, float)) and not math.isnan(mean):
            assert our_mean(preset, case, OVERRIDES.get(variant)) == pytest.approx(mean, abs=tol, rel=0), (preset, name)
        elif variant in TOOL_MEANS:       # the tool's aggregate is NaN (a NaN-skipping mean of nothing): ours too
            assert math.isnan(our_mean(preset, case, OVERRIDES.get(variant))), (preset, name, mean)
    if stem.removesuffix("_more") in ROUNDED_MEANS:
        assert round(our_mean(preset, case, OVERRIDES.get(variant)), 5) == pytest.approx(mean, abs=TOL, rel=0), (preset, name)
    if variant in ALONE_SKIPPED:
        assert set(mine) <= set(theirs), (preset, name, mine, theirs)
        theirs = {q: v for q, v in theirs.items() if q in mine}
    elif stem in PARTIAL_PER_QUERY or failed_queries:
        assert set(theirs) <= set(mine), (preset, name, mine, theirs)
    else:
        assert set(mine) == set(theirs), (preset, name, mine, theirs)
    for query, value in theirs.items():
        assert mine[query] == pytest.approx(value, abs=tol, rel=0), (preset, name, query, mine[query], value)


def _params(specs=SPECS, cases=CASES):
    for preset, stem, variant, tol, rule in specs:
        results = _results(stem)
        excluded = _excluded(rule, results, variant)
        for name in cases:
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


@pytest.mark.parametrize("preset, stem, variant, tol, name", list(_params(MORE_SPECS, MORE_CASES)))
def test_preset_matches_tool_on_more_cases(preset, stem, variant, tol, name):
    _compare(preset, stem, variant, tol, name, _results(stem)[name][variant])


def test_every_preset_has_a_census_comparison_and_a_note():
    from ndcg_nb.plugins import BUILTIN_PRESETS, policies_of
    compared = {(spec if isinstance(spec, str) else spec[0]).split(":")[0] for spec, *_ in SPECS}
    ours = {name for name, policy in policies_of("preset").items() if policy.plugin == BUILTIN_PRESETS}  # not a plugin's
    assert ours - compared == set()
    assert ours <= set(PRESET_NOTES)


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


# --- what the tools do where a preset must follow an unusual rule ------------------------------------------------------

def test_spark_default_is_what_pyspark_returns():
    """Case basic judges d03 with grade 0: PySpark, given the qrels as (labels, relevances), counts d03 relevant (1.0);
    pairs of the relevant documents give 0.97474. The default preset gives PySpark's, labels=relevant the other."""
    case, recorded = CASES["basic"], _results("pyspark")["basic"]
    triples, pairs = (recorded[v]["per_query"]["1"] for v in ("RankingMetrics_triples", "RankingMetrics_pairs_relevant"))
    assert triples != pytest.approx(pairs, abs=1e-3)
    assert ours("spark_mllib", case)["1"] == pytest.approx(triples, abs=TOL, rel=0)
    assert ours("spark_mllib:labels=relevant", case)["1"] == pytest.approx(pairs, abs=TOL, rel=0)


@pytest.mark.skipif(SPARK_OFF, reason=SPARK_ON_REQUEST)
@pytest.mark.filterwarnings("ignore::FutureWarning")   # pyspark 4.3 warns that it does not fully support pandas 3
def test_pyspark_drops_the_relevances():
    "PySpark's RankingMetrics gives the same ndcgAt for any relevances, the pair's; Scala's graded API does not."
    pytest.importorskip("pyspark")
    from tests.conventions_support.run_pyspark import python_ndcg, scala_graded_ndcg
    prediction, labels, grades = ["a", "b", "c", "d"], ["c", "a", "x", "b"], [3.0, 0.0, 2.0, 0.0]
    values = {python_ndcg((prediction, labels, relevances), 3) for relevances in (grades, [0.0] * 4, [-1.0, 5.0, 2.0, 0.0])}
    assert values == {python_ndcg((prediction, labels), 3)}
    case = {"qrels": {"1": dict(zip(labels, grades))}, "run": {"1": {d: 4.0 - i for i, d in enumerate(prediction)}}, "k": 3}
    assert ours("spark_mllib", case)["1"] == pytest.approx(values.pop(), abs=TOL, rel=0)
    graded = scala_graded_ndcg((prediction, labels, grades), 3)
    assert ours("spark_mllib:graded=true", case)["1"] == pytest.approx(graded, abs=TOL, rel=0)
    assert ours("spark_mllib", case)["1"] != pytest.approx(graded, abs=1e-3)


def test_sklearn_scores_a_run_query_without_qrels_as_a_row_of_zeros():
    "Case run_query_missing_from_qrels in one ndcg_score call: query 3, without qrels, is the row [0, 0], which scores 0."
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    case = CASES["run_query_missing_from_qrels"]
    y_true = [[case["qrels"].get(q, {}).get(d, 0) for d in docs] for q, docs in case["run"].items()]
    y_score = [list(docs.values()) for docs in case["run"].values()]
    assert y_true[1] == [0, 0]
    for preset in ("sklearn", "sklearn_ignore_ties"):
        assert our_mean(preset, case) == pytest.approx(sklearn_metrics.ndcg_score(y_true, y_score), abs=TOL, rel=0)
        assert ours(preset, case)["3"] == 0.0


def test_recbole_evaluates_only_users_with_test_rows():
    """RecBole 1.2.1's own data pipeline (probe_recbole_users.py, run where RecBole is installed): a user without test
    rows is not among the users its evaluation scores, so the recbole preset leaves one out; users=run counts it 0."""
    probe = json.loads((DATA / "probe_recbole_users.json").read_text())
    assert probe["evaluated_users"] == [u for u in probe["users"] if probe["test_rows"][u] > 0] != probe["users"]
    case = MORE_CASES["user_without_test_rows"]
    assert set(ours("recbole", case)) == {"1"} and ours("recbole:users=run", case)["2"] == 0.0


NEGATIVE_CASES = [name for name, case in CASES.items() if any(g < 0 for docs in case["qrels"].values() for g in docs.values())]


@pytest.mark.parametrize("preset", ["ntcir", "ntcir_ndcg_b:b=3"])
@pytest.mark.parametrize("name", NEGATIVE_CASES)
def test_ntcir_refuses_negative_grades(preset, name):
    "Every census case with a negative grade: an error naming the first such judgment, never a number."
    (query, doc, grade), *_ = [(q, d, g) for q, docs in CASES[name]["qrels"].items() for d, g in docs.items() if g < 0]
    with pytest.raises(InputError, match=f"query '{query}', document '{doc}': grade {grade:g} is negative"):
        ours(preset, CASES[name])


def test_pyntcireval_reads_a_negative_grade_as_a_list_index():
    """pyNTCIREVAL on case negative_mixed (grades 2, -2, 1, 0, -1, 3) with L = 4 and L = 6 relevance levels (gain = level):
    two values for one input, each the rule of the ntcir note (a grade g < 0 gains level L+g-1 in the ranking and counts
    at level L+g in the ideal), which no convention holds: so the ntcir presets refuse it."""
    pytest.importorskip("pyNTCIREVAL")
    from pyNTCIREVAL import Labeler
    from pyNTCIREVAL.metrics import MSnDCG
    from ndcg_nb import ndcg
    from tests.conventions_support.derive import order
    qrels, ranked = CASES["negative_mixed"]["qrels"]["1"], order(CASES["negative_mixed"]["run"]["1"])

    def ntcireval(levels):
        labeler = Labeler(qrels)
        return MSnDCG(labeler.compute_per_level_doc_num(levels), list(range(1, levels)), None).compute(labeler.label(ranked))

    def by_the_note(levels):
        return ndcg([g if g >= 0 else levels + g - 1 for g in (qrels[d] for d in ranked)],
                    ideal=[g if g >= 0 else levels + g for g in qrels.values()])
    assert ntcireval(4) != pytest.approx(ntcireval(6), abs=1e-3)
    for levels in (4, 6):
        assert ntcireval(levels) == pytest.approx(by_the_note(levels), abs=TOL, rel=0)
    assert "ndcg_nb refuses it" in PRESET_NOTES["ntcir"]


# --- the tools themselves, where installed ------------------------------------------------------------------------

RUNNERS = {  # results stem -> (module to import first, runner module in tests/conventions_support)
    "sklearn": ("sklearn", "run_sklearn"), "pytrec_eval": ("pytrec_eval", "run_pytrec_eval"),
    "ranx": ("ranx", "run_ranx"), "lightgbm": ("lightgbm", "run_lightgbm"), "xgboost": ("xgboost", "run_xgboost"),
    "ir_measures": ("ir_measures", "run_ir_measures"), "trectools": ("trectools", "run_trectools"),
    "catboost": ("catboost", "run_catboost"), "pyntcireval": ("pyNTCIREVAL", "run_pyntcireval"),
    "recommenders": ("recommenders.evaluation.python_evaluation", "run_recommenders"),
    "torchmetrics": ("torchmetrics", "run_torchmetrics"),
    "recbole_derived": ("recbole.evaluator.metrics", "run_recbole"), "pyspark": ("pyspark", "run_pyspark"),
    "recbole": ("recbole.evaluator.metrics", "run_recbole"),                         # RecBole, BEIR, MTEB: own venvs
    "beir": ("beir.retrieval.evaluation", "run_beir"), "mteb": ("mteb", "run_mteb"),
    "cornac": ("cornac.metrics", "run_cornac"), "ignite": ("ignite.metrics", "run_ignite"), "recpack": ("recpack.metrics", "run_recpack"),   # RecPack: NumPy 1, own venv
}
LIVE = [spec for spec in SPECS if spec[1] in RUNNERS]
LIVE_MORE = [spec for spec in MORE_SPECS if spec[1].removesuffix("_more") in RUNNERS]


def _live_params(specs=LIVE, cases=CASES):
    for preset, stem, variant, tol, rule in specs:
        excluded = {name: reason for name, reason in _excluded(rule, _results(stem), variant).items()
                    if reason not in (ARGSORT, CORNAC_TIES)}   # the tool run here calls this machine's NumPy, as the preset does
        label = preset if isinstance(preset, str) else preset[0] + "+" + variant
        for name in cases:
            marks = [pytest.mark.skip(reason=excluded[name])] if name in excluded else []
            if stem.startswith("pyspark") and SPARK_OFF:
                marks = [pytest.mark.skip(reason=SPARK_ON_REQUEST)]
            yield pytest.param(preset, stem, variant, tol, name, marks=marks, id=f"live-{label}-{variant}-{name}")


@pytest.mark.parametrize("preset, stem, variant, tol, name",
                         list(_live_params()) + list(_live_params(LIVE_MORE, MORE_CASES)))
def test_preset_matches_tool_run_here(preset, stem, variant, tol, name):
    package, runner = RUNNERS[stem.removesuffix("_more")]
    pytest.importorskip(package)
    module = importlib.import_module(f"tests.conventions_support.{runner}")
    from tests.conventions_support.common import run_variant
    variants = getattr(module, "more_variants", module.variants) if stem.endswith("_more") else module.variants
    entry = run_variant(variants[variant], ALL_CASES[name])
    if "error" in entry:
        pytest.skip(f"{stem} {variant} refuses case {name}: {entry['error']}")
    _compare(preset, stem, variant, tol, name, entry)
