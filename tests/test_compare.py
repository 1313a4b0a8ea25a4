"""ndcg_nb.analysis.significance, compare and value_bounds against independent oracles: SciPy's ttest_rel, bootstrap and
permutation_test for the t-test, the bootstrap and the exact permutation test; enumeration of every sign assignment
and of every order of tied documents."""
import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from ndcg_nb.analysis.comparison import SAMPLE_RUN_B, compare, evaluate_runs
from ndcg_nb.analysis.preset_differences import explain_presets
from ndcg_nb.analysis.reports import render
from ndcg_nb.analysis.significance import bonferroni, bootstrap_test, holm, paired_t_test, randomization_test
from ndcg_nb.analysis.value_bounds import bounds
from ndcg_nb.errors import NdcgWarning, UsageError
from ndcg_nb.evaluation import evaluate, parse_measure, resolve_convention
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

stats = pytest.importorskip("scipy.stats")


def _samples(count, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, 80))
        base = rng.uniform(0, 1, n)
        shift = rng.normal(rng.choice([0.0, 0.02, 0.1]), rng.choice([0.01, 0.1, 0.3]), n)
        yield base + shift, base


def test_t_test_matches_scipy():
    worst_p = worst_rel = worst_t = worst_ci = 0.0
    for x, y in _samples(400):
        mine = paired_t_test(x - y)
        ref = stats.ttest_rel(x, y)
        ci = ref.confidence_interval(0.95)
        worst_t = max(worst_t, abs(mine["statistic"] - ref.statistic) / abs(ref.statistic))
        worst_p = max(worst_p, abs(mine["p_value"] - ref.pvalue))
        if ref.pvalue > 1e-300:
            worst_rel = max(worst_rel, abs(mine["p_value"] - ref.pvalue) / ref.pvalue)
        worst_ci = max(worst_ci, abs(mine["ci_low"] - ci.low), abs(mine["ci_high"] - ci.high))
    assert worst_t < 1e-12 and worst_p < 1e-12 and worst_rel < 1e-11 and worst_ci < 1e-12


def test_randomization_exact_is_the_enumeration():
    rng = np.random.default_rng(2)
    for n in range(1, 11):
        for _ in range(3):
            d = np.round(rng.normal(0.02, 0.1, n), 3)   # rounded: many equal |sums|, the edge case of >=
            observed = abs(sum(d))
            hits = sum(abs(sum(s * v for s, v in zip(signs, d))) >= observed - 1e-9
                       for signs in itertools.product((1, -1), repeat=n))
            result = randomization_test(d, exact=True)
            assert result["exact"] and result["permutations"] == 2 ** n
            assert result["p_value"] == hits / 2 ** n


def test_randomization_exact_matches_scipy_permutation_test():
    rng = np.random.default_rng(3)
    for n in (4, 7, 12):
        x, y = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
        ref = stats.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis), vectorized=True,
                                     permutation_type="samples", n_resamples=np.inf)
        assert randomization_test(x - y, exact=True)["p_value"] == pytest.approx(ref.pvalue, abs=1e-12)


def test_randomization_sampled_close_to_exact():
    d = np.random.default_rng(4).normal(0.03, 0.1, 16)
    exact = randomization_test(d, exact=True)["p_value"]
    sampled = randomization_test(d, permutations=20_000, seed=5)
    assert not sampled["exact"] and sampled["permutations"] == 20_000
    assert abs(sampled["p_value"] - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000) + 1e-4
    assert sampled == randomization_test(d, permutations=20_000, seed=5)          # seeded: repeatable
    assert randomization_test(d, permutations=2 ** 16)["exact"]                    # 'auto': enumeration is as cheap


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_bootstrap_interval_matches_scipy(method):
    for i, (x, y) in enumerate(_samples(25, seed=6)):
        d = x - y
        mine = bootstrap_test(d, 3000, seed=i, method=method)
        ref = stats.bootstrap((d,), np.mean, n_resamples=3000, method=method, rng=np.random.default_rng(i))
        assert mine["ci_low"] == pytest.approx(ref.confidence_interval.low, abs=1e-12)
        assert mine["ci_high"] == pytest.approx(ref.confidence_interval.high, abs=1e-12)


def test_bootstrap_p_value_is_the_shift_method():
    d = np.array([0.1, -0.02, 0.05, 0.2, 0.0, 0.07])
    index = np.random.default_rng(8).integers(0, len(d), (500, len(d)))
    z = (d - d.mean())[index]
    t_star = np.abs(z.mean(axis=1)) / (z.std(axis=1, ddof=1) / math.sqrt(len(d)))
    observed = abs(d.mean()) / (d.std(ddof=1) / math.sqrt(len(d)))
    expected = np.count_nonzero(np.nan_to_num(t_star) >= observed * (1 - 1e-12)) / 500
    assert bootstrap_test(d, 500, seed=8, p_value="studentized")["p_value"] == expected


def test_corrections():
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan])
    naive = np.full(5, np.nan)
    known = p[:4]
    order = np.argsort(known)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (4 - rank) * known[i]))
        naive[i] = running
    np.testing.assert_allclose(holm(p), naive, rtol=0, atol=1e-15)
    np.testing.assert_allclose(bonferroni(p)[:4], np.minimum(1, 4 * known), rtol=0, atol=1e-15)
    assert np.isnan(bonferroni(p)[4])


def test_compare_table_and_corrections_per_family():
    runs = {"a": SAMPLE_RUN, "b": SAMPLE_RUN_B, "a_again": SAMPLE_RUN}
    table = compare(SAMPLE_QRELS, runs, ["ndcg", "ndcg_cut_10"], baseline="a", resamples=500)
    assert len(table) == 2 * 2 * 3
    for (test, measure), rows in table.groupby(["test", "measure"]):
        np.testing.assert_allclose(rows["p_corrected"], holm(rows["p_value"].to_numpy()), atol=1e-15)
    same = table[(table.run == "a_again") & (table.test == "t")]
    assert same["difference"].eq(0).all() and same["p_value"].isna().all()       # identical runs: no t statistic
    across = compare(SAMPLE_QRELS, runs, ["ndcg", "ndcg_cut_10"], baseline="a", tests="randomization", family="test",
                     correction="bonferroni")
    np.testing.assert_allclose(across["p_corrected"], np.minimum(1, across["p_value"] * 4), atol=1e-15)
    t_rows = table[(table.test == "t") & (table.run == "b")]
    per_query = evaluate_runs(SAMPLE_QRELS, runs, ["ndcg"]).per_query("ndcg")
    ref = stats.ttest_rel(per_query["b"], per_query["a"])
    assert t_rows[t_rows.measure == "ndcg"]["p_value"].iloc[0] == pytest.approx(ref.pvalue, abs=1e-12)


def test_unpaired_queries_warn_and_are_left_out():
    run_a = {"101": {"DOC-101-07": 2.0}, "102": {"DOC-102-05": 1.0}, "103": {"DOC-103-06": 1.0}}
    run_b = {"101": {"DOC-101-07": 2.0}, "102": {"DOC-102-00": 1.0}}
    with pytest.warns(NdcgWarning, match="counted for only one"):
        table = compare(SAMPLE_QRELS, {"a": run_a, "b": run_b}, "ndcg", tests="t")
    assert table["n_queries"].iloc[0] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        full = compare(SAMPLE_QRELS, {"a": run_a, "b": run_b}, "ndcg", tests="t", missing_queries="zero")
    assert full["n_queries"].iloc[0] == 6


def test_bad_input():
    runs = [SAMPLE_RUN, SAMPLE_RUN_B]
    cases = [(lambda: compare(SAMPLE_QRELS, runs, baseline="nope"), "not one of the runs"),
             (lambda: compare(SAMPLE_QRELS, runs, tests=("mann-whitney",)), "unknown test"),
             (lambda: compare(SAMPLE_QRELS, runs, tests=()), "unknown test"),
             (lambda: compare(SAMPLE_QRELS, runs, correction="fdr"), "correction must be"),
             (lambda: compare(SAMPLE_QRELS, runs, family="run"), "family must be"),
             (lambda: compare(SAMPLE_QRELS, runs, alpha=1.5), "strictly between"),
             (lambda: compare(SAMPLE_QRELS, [SAMPLE_RUN, SAMPLE_RUN]), "both called"),
             (lambda: compare(SAMPLE_QRELS, SAMPLE_RUN), "runs must be"),
             (lambda: randomization_test(np.ones(30), exact=True), "too many|more than"),
             (lambda: randomization_test(np.ones(30), permutations=0), "at least 1"),
             (lambda: bootstrap_test(np.ones(3), method="t"), "not one of"),
             (lambda: bootstrap_test(np.ones(3), resamples=1), "at least 2"),
             (lambda: paired_t_test([0.1, 0.2], confidence=1.0), "strictly between 0 and 1"),
             (lambda: render(pd.DataFrame({"a": [1]}), "html"), "not one of"),
             (lambda: evaluate_runs(SAMPLE_QRELS, runs, "ndcg").plot_differences("sample_b", "ndcg_cut_5"),
              "was not evaluated"),
             (lambda: explain_presets(SAMPLE_QRELS, SAMPLE_RUN, "trec_eval", "nope"), "nope")]
    for call, message in cases:
        with pytest.raises((UsageError, LookupError), match=message):
            call()


# ---- tie bounds against every order of the tied documents

def _small_case(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(3):
        docs = [f"d{i}" for i in range(int(rng.integers(4, 8)))]
        scores = rng.integers(0, 3, len(docs)).astype(float)       # three levels: big tie groups
        run[f"q{q}"] = dict(zip(docs, scores))
        judged = {d: float(rng.choice([-1, 0, 1, 2, 3])) for d in docs if rng.uniform() < 0.75}
        judged.update({f"x{i}": float(rng.integers(0, 4)) for i in range(int(rng.integers(0, 3)))})  # not retrieved
        qrels[f"q{q}"] = judged or {"x0": 1.0}
    return qrels, run


def _every_tie_order(run_q):
    "Every order of the documents of one query that keeps the score order, each as a dict with distinct scores."
    by_score = {}
    for doc, score in run_q.items():
        by_score.setdefault(score, []).append(doc)
    groups = [by_score[s] for s in sorted(by_score, reverse=True)]
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [doc for group in choice for doc in group]
        yield {doc: float(len(order) - i) for i, doc in enumerate(order)}


MEASURES = ["ndcg", "ndcg_cut_3", "ndcg_cut_5", "ndcg_1=5,2=1,3=2"]   # the last: gains that do not follow grades


@pytest.mark.parametrize("preset,overrides", [("trec_eval", {}), ("sklearn", {}), ("lightgbm", {}), ("ranx", {}),
                                              ("trec_eval", {"unjudged": "drop"}), ("trec_eval", {"ties": "input"})])
def test_tie_bounds_are_the_extremes_of_every_order(preset, overrides):
    convention = resolve_convention(preset, **overrides)
    brute_force = convention.replace(ties="input")
    names = [m.name for name in MEASURES for m in parse_measure(name)]
    for seed in range(3):
        qrels, run = _small_case(seed)
        result = bounds(qrels, run, MEASURES, preset=convention).per_query.set_index(["query", "measure"])
        for q, run_q in run.items():
            orders = list(_every_tie_order(run_q))
            # every order as its own query, scored in one evaluation
            copies_qrels = {f"{q}#{i}": qrels[q] for i in range(len(orders))}
            copies_run = {f"{q}#{i}": order for i, order in enumerate(orders)}
            values = evaluate(copies_qrels, copies_run, MEASURES, preset=brute_force).per_query
            for name in names:
                found = values[values.measure == name]["value"]
                low, high = result.loc[(q, name), "tie_low"], result.loc[(q, name), "tie_high"]
                assert low == pytest.approx(found.min(), abs=1e-12), (seed, q, name)
                assert high == pytest.approx(found.max(), abs=1e-12), (seed, q, name)
                assert low - 1e-12 <= result.loc[(q, name), "value"] <= high + 1e-12


def test_tie_bounds_agree_with_the_core_worst_and_best_orders():
    from ndcg_nb.metrics.core import ndcg
    grades = [0, 2, 1, 3, 0, 1]
    scores = [2.0, 2.0, 2.0, 1.0, 1.0, 0.5]
    run = {"q": {f"d{i}": s for i, s in enumerate(scores)}}
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
    for k in (None, 2, 4):
        measure = "ndcg" if k is None else f"ndcg_cut_{k}"
        row = bounds(qrels, run, measure, preset="sklearn").per_query.iloc[0]
        assert row["tie_low"] == pytest.approx(ndcg(grades, k, scores=scores, ties="worst"), abs=1e-15)
        assert row["tie_high"] == pytest.approx(ndcg(grades, k, scores=scores, ties="best"), abs=1e-15)


def test_unjudged_bounds_and_judged_fraction():
    qrels = {"q": {"a": 2, "b": 0, "c": -1}}
    run = {"q": {"a": 5.0, "u1": 4.0, "b": 3.0, "c": 2.0, "u2": 1.0}}
    result = bounds(qrels, run, ["ndcg", "ndcg_cut_2"], max_grade=2).per_query.set_index("measure")
    # trec_eval: -1 is "pooled but unjudged", so c counts as unjudged too
    assert result.loc["ndcg", "judged_fraction"] == pytest.approx(2 / 5)
    assert result.loc["ndcg_cut_2", "judged_fraction"] == pytest.approx(1 / 2)
    as_max_all = evaluate({"q": {"a": 2, "b": 0, "c": 2, "u1": 2, "u2": 2}}, run, "ndcg").value("ndcg")
    as_max_top2 = evaluate({"q": {"a": 2, "b": 0, "c": -1, "u1": 2}}, run, "ndcg_cut_2").value("ndcg_cut_2")
    assert result.loc["ndcg", "unjudged_max"] == pytest.approx(as_max_all, abs=1e-15)
    assert result.loc["ndcg_cut_2", "unjudged_max"] == pytest.approx(as_max_top2, abs=1e-15)
    assert result.loc["ndcg_cut_2", "unjudged_zero"] == result.loc["ndcg_cut_2", "value"]
    condensed = bounds(qrels, run, "ndcg", unjudged="drop").per_query.iloc[0]
    assert condensed["unjudged_zero"] == pytest.approx(evaluate(qrels, run, "ndcg").value("ndcg"), abs=1e-15)


def test_explain_presets_names_the_field():
    same = explain_presets(SAMPLE_QRELS, SAMPLE_RUN, "trec_eval", "trec_eval", "ndcg")
    assert same.fields.empty and same.queries.empty and same.mean_a == same.mean_b
    why = explain_presets(SAMPLE_QRELS, SAMPLE_RUN, "trec_eval", "lightgbm", "ndcg_cut_10", top=None)
    a = resolve_convention("trec_eval")
    for _, row in why.queries.iterrows():
        field = row["cause"].split(" ")[0]
        alone = evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg_cut_10",
                         preset=a.replace(**{field: getattr(resolve_convention("lightgbm"), field)}))
        if np.isnan(row["value_a"]):   # counted under lightgbm only: query 999, in the run, judged nowhere, scores 1
            assert np.isnan(row[field]) and alone.value("ndcg_cut_10", row["query"]) == row["value_b"]
        else:
            assert alone.value("ndcg_cut_10", row["query"]) - row["value_a"] == pytest.approx(row[field], abs=1e-15)
    assert set(why.fields["field"]) >= {"ties", "gain", "zero_idcg", "unjudged_queries"}
