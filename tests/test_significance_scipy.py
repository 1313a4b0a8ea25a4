"""The Wilcoxon signed-rank and sign tests against SciPy and against their null distributions written
out; the bootstrap's default p-value against its own interval (and against SciPy's BCa interval); SciPy kept out
of `import ndcg_nb`."""
import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ndcg_nb
from ndcg_nb.analysis.comparison import SAMPLE_RUN_B, TESTS, compare, evaluate_runs
from ndcg_nb.analysis.significance import BOOTSTRAP_METHODS, bootstrap_test, sign_test, wilcoxon_test
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

stats = pytest.importorskip("scipy.stats")
import scipy  # noqa: E402

ROOT = Path(ndcg_nb.__file__).resolve().parents[1]
SCIPY_1_15 = tuple(int(part) for part in scipy.__version__.split(".")[:2]) >= (1, 15)


def _vectors():
    "Differences with ties, zeros, all equal, few and many: (label, vector)."
    rng = np.random.default_rng(30)
    yield "one", np.array([0.2])
    yield "two", np.array([0.2, -0.1])
    yield "five distinct", np.array([0.5, -0.1, 0.3, 0.2, 0.4])
    yield "all equal", np.full(6, 0.1)
    yield "all equal, many", np.full(40, -0.05)
    yield "ties", np.array([0.1, 0.1, 0.2, -0.2, 0.3, 0.1, -0.1])
    yield "zeros", np.array([0.0, 0.0, 0.3, -0.1, 0.2, 0.4, 0.0, 0.15])
    yield "ties and zeros, 13", np.round(rng.normal(0.02, 0.1, 13), 1)
    yield "ties and zeros, 14", np.round(rng.normal(0.02, 0.1, 14), 1)
    yield "one non-zero", np.array([0.0, 0.0, 0.0, 0.25])
    for n in (3, 8, 20, 50, 51, 80, 200, 1000):
        yield f"distinct {n}", rng.normal(0.01, 0.1, n)
        yield f"rounded {n}", np.round(rng.normal(0.01, 0.1, n), 2)


@pytest.mark.parametrize("label,d", list(_vectors()), ids=lambda v: v if isinstance(v, str) else "")
def test_wilcoxon_is_scipys(label, d):
    ours, theirs = wilcoxon_test(d), stats.wilcoxon(d)
    assert ours["p_value"] == float(theirs.pvalue), label
    assert ours["statistic"] == float(theirs.statistic), label
    assert ours["n_nonzero"] == np.count_nonzero(d)


@pytest.mark.parametrize("label,d", list(_vectors()), ids=lambda v: v if isinstance(v, str) else "")
def test_sign_test_is_binomtest(label, d):
    positive, nonzero = int((d > 0).sum()), int((d != 0).sum())
    ours = sign_test(d)
    assert ours["p_value"] == stats.binomtest(positive, nonzero, 0.5, alternative="two-sided").pvalue, label
    assert (ours["statistic"], ours["n_nonzero"]) == (positive, nonzero)
    # p = 1/2: twice the smaller binomial tail, at most 1
    tail = sum(math.comb(nonzero, i) for i in range(min(positive, nonzero - positive) + 1)) / 2 ** nonzero
    assert ours["p_value"] == pytest.approx(min(1.0, 2 * tail), rel=1e-12, abs=1e-300)


def _signed_rank_sums(ranks):
    "The rank sum of the positive differences for every sign assignment of `ranks`."
    return np.array([sum(r for r, s in zip(ranks, signs) if s) for signs in itertools.product((0, 1), repeat=len(ranks))])


def _two_sided(sums, observed):
    return min(1.0, 2 * min(np.mean(sums <= observed + 1e-9), np.mean(sums >= observed - 1e-9)))


def test_wilcoxon_exact_distribution_without_ties():
    rng = np.random.default_rng(31)
    for n in range(1, 13):
        d = rng.normal(0.03, 0.1, n)
        ranks = pd.Series(np.abs(d)).rank().to_numpy()
        expected = _two_sided(_signed_rank_sums(ranks), ranks[d > 0].sum())
        assert wilcoxon_test(d)["p_value"] == pytest.approx(expected, rel=1e-12)


@pytest.mark.skipif(not SCIPY_1_15, reason="before SciPy 1.15 'auto' used the normal approximation for ties and zeros")
def test_wilcoxon_ties_and_zeros_up_to_13_are_the_sign_flip_distribution():
    rng = np.random.default_rng(32)
    for n in (4, 7, 10, 13):
        d = np.round(rng.normal(0.02, 0.1, n), 1)           # one decimal: ties, and zeros often
        kept = d[d != 0]
        ranks = pd.Series(np.abs(kept)).rank().to_numpy()
        expected = _two_sided(_signed_rank_sums(ranks), ranks[kept > 0].sum())
        assert wilcoxon_test(d)["p_value"] == pytest.approx(expected, rel=1e-9), d


def test_wilcoxon_normal_approximation_with_ties_and_zeros():
    rng = np.random.default_rng(33)
    for n in (60, 150, 400):
        d = np.round(rng.normal(0.01, 0.05, n), 2)
        kept = d[d != 0]
        m = len(kept)
        ranks = pd.Series(np.abs(kept)).rank().to_numpy()
        ties = pd.Series(np.abs(kept)).value_counts().to_numpy()
        sigma = math.sqrt(m * (m + 1) * (2 * m + 1) / 24 - (ties ** 3 - ties).sum() / 48)
        z = (ranks[kept > 0].sum() - m * (m + 1) / 4) / sigma
        assert (d == 0).any() and (ties > 1).any()
        assert wilcoxon_test(d)["p_value"] == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-10)


def test_nothing_to_rank_or_count():
    for n in (1, 5, 13, 14, 100):
        assert wilcoxon_test(np.zeros(n))["p_value"] == sign_test(np.zeros(n))["p_value"] == 1.0
    for n in (2, 5, 13):        # where SciPy answers, it says the same (it refuses one zero, and says NaN past 13)
        with np.errstate(invalid="ignore"):
            assert stats.wilcoxon(np.zeros(n)).pvalue == 1.0
    for d in ([], [0.1, np.nan]):
        assert math.isnan(wilcoxon_test(d)["p_value"]) and math.isnan(sign_test(d)["p_value"])


def test_compare_runs_the_rank_tests_by_name():
    assert {"wilcoxon", "sign"} <= set(TESTS)
    runs = evaluate_runs(SAMPLE_QRELS, {"a": SAMPLE_RUN, "b": SAMPLE_RUN_B}, ["ndcg", "nDCG@10", "nDCG@5"])
    table = runs.compare(tests=("wilcoxon", "sign"), correction=None)
    assert len(table) == 3 * 2
    assert set(runs.compare()["test"]) == {"t", "randomization", "bootstrap"}       # the default stays the three
    for row in table.itertuples():
        pair = runs.per_query(row.measure)
        d = (pair["b"] - pair["a"]).to_numpy()
        if row.test == "wilcoxon":
            assert row.p_value == stats.wilcoxon(d).pvalue
        else:
            assert row.p_value == stats.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue
        assert math.isnan(row.ci_low) and math.isnan(row.ci_high)


# ---- the bootstrap's default p-value agrees with its interval

def _excludes_zero(row) -> bool:
    return row["ci_low"] > 0 or row["ci_high"] < 0


def test_sample_case_p_value_agrees_with_the_interval():
    table = compare(SAMPLE_QRELS, {"a": SAMPLE_RUN, "b": SAMPLE_RUN_B}, ["ndcg_cut.10"])     # trec_eval's NDCG@10 on the sample runs
    row = table[table.test == "bootstrap"].iloc[0]
    assert "bca interval, p-value inverts the interval" in row["detail"]
    assert row["ci_low"] == pytest.approx(0.0210, abs=5e-5) and row["ci_high"] == pytest.approx(0.1356, abs=5e-5)
    assert _excludes_zero(row) and row["p_value"] < 0.05 and row["significant"]
    old = compare(SAMPLE_QRELS, {"a": SAMPLE_RUN, "b": SAMPLE_RUN_B}, ["ndcg_cut.10"], tests="bootstrap",
                  bootstrap_p_value="studentized").iloc[0]
    assert (old["ci_low"], old["ci_high"]) == (row["ci_low"], row["ci_high"])
    assert old["p_value"] == pytest.approx(0.1336, abs=5e-5)          # the disagreement the default removes


@pytest.mark.parametrize("method", BOOTSTRAP_METHODS)
def test_sample_runs_significant_exactly_when_the_interval_excludes_zero(method):
    runs = evaluate_runs(SAMPLE_QRELS, {"a": SAMPLE_RUN, "b": SAMPLE_RUN_B}, ["ndcg", "nDCG@5", "nDCG@10", "ndcg_cut_20"])
    for confidence in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
        table = runs.compare(tests="bootstrap", confidence=confidence, alpha=1 - confidence, correction=None,
                             bootstrap_method=method)
        for _, row in table.iterrows():
            assert row["significant"] == _excludes_zero(row), (confidence, row["measure"])


def _random_differences(count, seed):
    rng = np.random.default_rng(seed)
    for i in range(count):
        n = int(rng.integers(2, 40))
        d = rng.normal(rng.choice([0.0, 0.02, 0.05]), rng.choice([0.02, 0.1, 0.3]), n)
        if i % 3 == 0:
            d = np.round(d, 1)          # ties, zeros, and resampled means exactly 0
        yield d


@pytest.mark.parametrize("method", BOOTSTRAP_METHODS)
def test_random_vectors_p_below_one_minus_confidence_exactly_when_the_interval_excludes_zero(method):
    checked = excluded = 0
    for i, d in enumerate(_random_differences(150, seed=34)):
        p = bootstrap_test(d, 1000, seed=i, method=method)["p_value"]
        for confidence in (0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999):
            r = bootstrap_test(d, 1000, seed=i, confidence=confidence, method=method)
            assert r["p_value"] == p
            assert (r["p_value"] < 1 - confidence) == _excludes_zero(r), (i, confidence, r)
            checked, excluded = checked + 1, excluded + _excludes_zero(r)
    assert 0.2 < excluded / checked < 0.8           # both sides of the equivalence were exercised


@pytest.mark.parametrize("method", BOOTSTRAP_METHODS)
def test_scipys_interval_at_confidence_one_minus_p_touches_zero(method):
    "SciPy's own interval, on the same resamples, at confidence 1 - p has an end at 0 (up to rounding)."
    scipy_method = {"bca": "BCa"}.get(method, method)
    touched = 0
    for i, d in enumerate(_random_differences(40, seed=35)):
        p = bootstrap_test(d, 2000, seed=i, method=method)["p_value"]
        if not 1e-6 < p < 1 - 1e-6:
            continue
        ref = stats.bootstrap((d,), np.mean, n_resamples=2000, method=scipy_method, confidence_level=1 - p,
                              rng=np.random.default_rng(i)).confidence_interval
        assert min(abs(ref.low), abs(ref.high)) < 1e-12 * max(1.0, np.abs(d).max()), (i, p, ref)
        touched += 1
    assert touched >= 20


def test_studentized_p_value_still_available():
    d = np.array([0.1, -0.02, 0.05, 0.2, 0.0, 0.07])
    default, studentized = bootstrap_test(d, 500, seed=8), bootstrap_test(d, 500, seed=8, p_value="studentized")
    assert (default["ci_low"], default["ci_high"]) == (studentized["ci_low"], studentized["ci_high"])
    assert default["statistic"] == pytest.approx(d.mean(), abs=1e-15)
    assert studentized["statistic"] == pytest.approx(d.mean() / (d.std(ddof=1) / math.sqrt(len(d))), rel=1e-12)


# ---- SciPy is imported only when a test runs

def test_importing_the_package_and_its_analysis_does_not_load_scipy():
    code = ("import sys, json, ndcg_nb, ndcg_nb.analysis.significance, ndcg_nb.analysis.comparison\n"
            "print(json.dumps('scipy' in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NDCG_NB_LOAD_PLUGINS": ""}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) is False
