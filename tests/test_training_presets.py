"""The presets of the training-time metrics (PyTorch-Ignite, TorchRec, Keras-RS, metrax) against the tools' own values.

Each tool ran through its own API on the census's 37 shared cases and on the cases of cases_training.json (query
weights, an IDCG of 0 under a cut-off, lists of negative labels only, one-document lists, grades below a relevance
threshold); tests/conventions_support/run_<tool>.py, whose docstring says how, wrote results_<tool>.json. Here each
preset must give every query's value and the tool's own mean (its aggregate over the case, one batch or merged
updates) to FLOAT32_TOL: the four compute in float32 (Ignite's and TorchRec's discounts, Keras-RS and metrax
throughout). tests/test_conventions.py compares the same presets on the shared cases, per query.

A case is left out only for a reason written next to it; each rule the presets cannot hold (PRESET_NOTES) has a test
of its own below that checks what the tool did against the rule as the note states it. Where a tool is installed
(Ignite in the test environment; TorchRec, Keras-RS and metrax in a venv of their own, found under $NDCG_NB_VENVS,
/tmp/venvs by default), its runner is run again and the same comparisons hold for what it returns now.
"""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ndcg_nb.evaluation import evaluate
from ndcg_nb.presets import PRESET_NOTES

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "conventions"
SHARED = {case["name"]: case for case in json.loads((DATA / "cases.json").read_text())}
CASES = {**SHARED, **{case["name"]: case for case in json.loads((DATA / "cases_training.json").read_text())}}
FLOAT32_TOL = 1e-6
TIE_CASES = {name for name, case in CASES.items()
             if any(len(set(docs.values())) < len(docs) for docs in case["run"].values())}
FLOAT32_TIES = TIE_CASES | {"float32_ties"}    # 1 + 1e-9 and 1 are one float32

TORCH_SORT = "torch.sort without stable=True orders ties in no specified way: test_tool_tie_order_is_within_bounds"
KERAS_TIES = "Keras-RS shuffles tied predictions at random: test_tool_tie_order_is_within_bounds"
KERAS_PADDING = "every label of list 1 negative: weight 0 in Keras-RS's mean (test_keras_rs_leaves_out_all_padding_lists)"
METRAX_CLIP = "IDCG < 0: metrax clips NDCG at 1 (test_metrax_clips_at_one)"
TORCHREC_1E6 = "IDCG@1 = 0 with DCG@1 = -1: TorchRec divides by 1e-6 (test_torchrec_replaces_a_zero_idcg_by_1e_6)"
WEIGHTS_CASES = {"weighted_lists", "weighted_lists_all_relevant"}

# (preset, results stem, variant, how the tool's values follow from the preset's, {case: reason to leave it out})
SPECS = [
    ("ignite", "ignite", "NDCG", "plain", {}),
    ("ignite:gain_function=linear_rank", "ignite", "NDCG_linear", "plain", {}),
    ("ignite:ignore_zero_hits=false", "ignite", "NDCG_zero_hits_counted", "plain", {}),
    ("ignite:relevance_threshold=0.5", "ignite", "NDCG_threshold_0.5", "plain", {}),
    ("torchrec", "torchrec", "NDCG", "plain", {**{n: TORCH_SORT for n in TIE_CASES},
                                                "idcg_zero_at_k_negative_first": TORCHREC_1E6}),
    ("torchrec:exponential_gain=true", "torchrec", "NDCG_exponential", "plain",
     {**{n: TORCH_SORT for n in TIE_CASES}, "idcg_zero_at_k_negative_first": TORCHREC_1E6}),
    ("torchrec", "torchrec", "NDCG_default", "one_minus", {**{n: TORCH_SORT for n in TIE_CASES},
                                                           "idcg_zero_at_k_negative_first": TORCHREC_1E6}),
    ("torchrec", "torchrec", "NDCG_weighted", "session_weight", {**{n: TORCH_SORT for n in TIE_CASES},
                                                                 "idcg_zero_at_k_negative_first": TORCHREC_1E6}),
    ("torchrec", "torchrec", "NDCG_remove_single", "no_single", {**{n: TORCH_SORT for n in TIE_CASES},
                                                                 "idcg_zero_at_k_negative_first": TORCHREC_1E6}),
    ("keras_rs", "keras_rs", "NDCG", "plain", {**{n: KERAS_TIES for n in FLOAT32_TIES}, "all_negative_only": KERAS_PADDING}),
    ("keras_rs", "keras_rs", "NDCG_weighted", "list_weight", {**{n: KERAS_TIES for n in FLOAT32_TIES},
                                                              "all_negative_only": KERAS_PADDING}),
    ("metrax", "metrax", "NDCGAtK", "plain", {"all_negative": METRAX_CLIP, "all_negative_only": METRAX_CLIP}),
]


def _results(stem):
    return json.loads((DATA / f"results_{stem}.json").read_text())["cases"]


def _values(entry):
    return {q: v for q, v in entry["per_query"].items() if isinstance(v, (int, float)) and not math.isnan(v)}


def _mean(value):
    return value if isinstance(value, (int, float)) else float("nan")


def preset_values(preset, case, query_weights=None):
    "The preset's counted per-query values of `case` and its (weighted) mean."
    measure = "ndcg" if case["k"] is None else f"ndcg@{case['k']}"
    result = evaluate(case["qrels"], case["run"], [measure], preset=preset, no_common_query="score",
                      query_weights=query_weights)
    frame = result.per_query[result.per_query["counted"]]
    values = {str(q): float(v) for q, v in zip(frame["query"], frame["value"]) if not math.isnan(v)}
    return values, float(result.value(measure))


def _has_relevant(case, query):
    "A list with a label of positive gain (Keras-RS's `sum(relevance) > 0`)."
    return any(case["qrels"].get(query, {}).get(d, 0) > 0 for d in case["run"][query])


def expected(preset, case, how):
    "What the tool should give on `case`, from the preset: ({query: value}, mean)."
    weights = {q: case.get("query_weights", {}).get(q, 1.0) for q in case["run"]}
    if how == "no_single":          # remove_single_length_sessions: the one-document lists never reach the metric
        case = {**case, "run": {q: docs for q, docs in case["run"].items() if len(docs) > 1}}
    values, mean = preset_values(preset, case)
    if how == "one_minus":          # report_ndcg_as_decreasing_curve=True
        return {q: 1 - v for q, v in values.items()}, 1 - mean
    if how == "session_weight":     # NDCG times the session's largest weight, summed over the number of sessions
        return {q: v * weights[q] for q, v in values.items()}, sum(v * weights[q] for q, v in values.items()) / len(values)
    if how == "list_weight":        # a list without a relevant label weighs the mean weight of the batch's other lists
        relevant = [w for q, w in weights.items() if _has_relevant(case, q)]
        default = sum(relevant) / len(relevant) if relevant else 1.0
        per_list = {q: (w if _has_relevant(case, q) else default) for q, w in weights.items()}
        return values, preset_values(preset, case, per_list)[1]
    return values, mean


def check(preset, how, name, entry):
    mine, mine_mean = expected(preset, CASES[name], how)
    theirs = _values(entry)
    assert set(mine) == set(theirs), (preset, name, mine, theirs)
    for query, value in theirs.items():
        assert mine[query] == pytest.approx(value, abs=FLOAT32_TOL, rel=0), (preset, name, query, mine[query], value)
    tool_mean = _mean(entry["mean"])
    if math.isnan(tool_mean):
        assert math.isnan(mine_mean), (preset, name, mine_mean)
    else:
        assert mine_mean == pytest.approx(tool_mean, abs=FLOAT32_TOL, rel=0), (preset, name, mine_mean, tool_mean)


def _params(live=False):
    for preset, stem, variant, how, excluded in SPECS:
        for name in CASES:
            if how in ("session_weight", "list_weight") and name not in WEIGHTS_CASES:
                continue              # the weighted variants differ from the plain ones only where weights are given
            marks = [pytest.mark.skip(reason=excluded[name])] if name in excluded else []
            yield pytest.param(preset, stem, variant, how, name, marks=marks,
                               id=f"{'live-' if live else ''}{preset}-{variant}-{name}")


@pytest.mark.parametrize("preset, stem, variant, how, name", list(_params()))
def test_preset_matches_recorded_tool(preset, stem, variant, how, name):
    entry = _results(stem)[name][variant]
    assert "error" not in entry, entry
    check(preset, how, name, entry)


# --- what the presets cannot hold, as the notes state it, against the tools' values -----------------------------------

@pytest.mark.parametrize("stem, variant, preset", [("torchrec", "NDCG", "torchrec"), ("keras_rs", "NDCG", "keras_rs"),
                                                   ("keras_rs", "NDCG_no_shuffle_seed0", "keras_rs")])
@pytest.mark.parametrize("name", sorted(FLOAT32_TIES & set(SHARED)))
def test_tool_tie_order_is_within_bounds(stem, variant, preset, name):
    "On every tie case, the tool's value is one that some order of the tied documents gives (evaluate(bounds=True))."
    case = CASES[name]
    measure = "ndcg" if case["k"] is None else f"ndcg@{case['k']}"
    bounds = evaluate(case["qrels"], case["run"], [measure], preset=preset, bounds=True, no_common_query="score").per_query
    for query, value in _values(_results(stem)[name][variant]).items():
        row = bounds[bounds["query"] == query].iloc[0]
        assert row["tie_low"] - FLOAT32_TOL <= value <= row["tie_high"] + FLOAT32_TOL, (name, query, value, row.to_dict())


def test_keras_rs_ties_are_random_without_shuffling():
    "shuffle_ties=False with a seed still moves the value of a tie case away from input order (and from the default run)."
    recorded = _results("keras_rs")
    moved = [name for name in TIE_CASES & set(SHARED)
             if abs(recorded[name]["NDCG_no_shuffle_seed0"]["mean"] - preset_values("keras_rs", CASES[name])[1]) > 1e-3]
    assert len(moved) >= 5, moved
    assert "shuffle_ties=False included" in PRESET_NOTES["keras_rs"]


def test_keras_rs_leaves_out_all_padding_lists():
    "Case all_negative_only: list 1 (labels -1, -2, -1) scores 0 alone and leaves the mean: the mean is list 2's value."
    entry = _results("keras_rs")["all_negative_only"]["NDCG"]
    values, mean = preset_values("keras_rs", CASES["all_negative_only"])
    assert values["1"] == entry["per_query"]["1"] == 0.0
    assert entry["mean"] == pytest.approx(values["2"], abs=FLOAT32_TOL, rel=0)
    assert mean == pytest.approx(values["2"] / 2, abs=1e-12, rel=0)


@pytest.mark.parametrize("name", ["all_negative", "all_negative_only"])
def test_metrax_clips_at_one(name):
    "A list of negative IDCG: the preset's value is above 1 and metrax's is 1; every other list of the case agrees."
    entry = _results("metrax")[name]["NDCGAtK"]["per_query"]
    values, _ = preset_values("metrax", CASES[name])
    clipped = {q for q, v in values.items() if v > 1}
    assert clipped and all(entry[q] == 1.0 for q in clipped)
    assert all(entry[q] == pytest.approx(v, abs=FLOAT32_TOL) for q, v in values.items() if q not in clipped)


def test_torchrec_replaces_a_zero_idcg_by_1e_6():
    "IDCG@1 of grades 0 and -1 is 0; the -1 ranked first: DCG@1 = -1 (linear) or -0.5 (2^-1 - 1), over 1e-6."
    recorded = _results("torchrec")["idcg_zero_at_k_negative_first"]
    assert recorded["NDCG"]["per_query"]["1"] == pytest.approx(-1 / 1e-6, rel=1e-9)
    assert recorded["NDCG_exponential"]["per_query"]["1"] == pytest.approx(-0.5 / 1e-6, rel=1e-9)
    assert preset_values("torchrec", CASES["idcg_zero_at_k_negative_first"])[0] == {"1": 0.0}


# --- the tools run again, where installed ------------------------------------------------------------------------------

VENVS = Path(os.environ.get("NDCG_NB_VENVS", "/tmp/venvs"))
TOOLS = {"ignite": "ignite.metrics", "torchrec": "torchrec.metrics.ndcg", "keras_rs": "keras_rs", "metrax": "metrax"}
ENV = {**os.environ, "KERAS_BACKEND": os.environ.get("KERAS_BACKEND", "jax")}   # Keras-RS's backend, as its runner sets it


def _python_with(stem):
    "An interpreter that imports the tool: this one, or the tool's venv's."
    for python in (Path(sys.executable), VENVS / stem / "bin" / "python"):
        if python.exists() and subprocess.run([str(python), "-c", f"import {TOOLS[stem]}"], cwd=ROOT, env=ENV,
                                              capture_output=True).returncode == 0:
            return python
    return None


@pytest.fixture(scope="module")
def rerun(tmp_path_factory):
    "stem -> the results its runner gives now, run once per tool (None: the tool is not installed)."
    found = {}

    def get(stem):
        if stem not in found:
            python, path = _python_with(stem), tmp_path_factory.mktemp(stem) / "results.json"
            found[stem] = None
            if python is not None:
                subprocess.run([str(python), "-m", f"tests.conventions_support.run_{stem}", "--json", str(path)], cwd=ROOT, env=ENV,
                               check=True, capture_output=True, timeout=1200)
                found[stem] = json.loads(path.read_text())["cases"]
        return found[stem]
    return get


@pytest.mark.parametrize("preset, stem, variant, how, name", list(_params(live=True)))
def test_preset_matches_tool_run_here(rerun, preset, stem, variant, how, name):
    results = rerun(stem)
    if results is None:
        pytest.skip(f"{stem} is not installed here (nor in {VENVS / stem})")
    check(preset, how, name, results[name][variant])
