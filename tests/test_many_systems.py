"""Comparisons of many runs against independent oracles: every raw paired p-value is `scipy.stats.ttest_rel`'s,
every corrected one statsmodels' `multipletests` or SciPy's `false_discovery_control`, Tukey's HSD and the letters
ranx's own (`ranx.compare`, its `Report`), the randomised Tukey HSD reproducible from its seed and close to the
exact enumeration, the ANOVA's sums of squares those of the two-way layout; `ndcg-nb compare` over any number of
runs."""
import itertools
import json
import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from ndcg_nb.__main__ import main
from ndcg_nb.analysis.comparison import compare, evaluate_runs
from ndcg_nb.analysis.many_systems import randomized_tukey_hsd, simulated_runs, tukey_hsd, two_way_anova
from ndcg_nb.analysis.pairs_table import pairs_table, render_letters, significance_letters
from ndcg_nb.analysis.significance import SmallSampleWarning, correct
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
from ndcg_nb.errors import MissingExtraError, UsageError

stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest")
SAMPLE_B = SAMPLE_RUN.with_name("sample_b.run")


@pytest.fixture(scope="module")
def twelve():
    "Twelve made-up systems on 80 topics, close neighbours and far-apart ones."
    qrels, runs = simulated_runs(systems=12, queries=80, seed=11)
    return qrels, runs, evaluate_runs(qrels, runs, ["ndcg", "ndcg_cut.10"])


@pytest.mark.parametrize("method, family", [("holm", "measure"), ("bonferroni", "test"), ("hommel", "table"),
                                            ("bh", "measure"), ("by", "table"), (None, "test")])
def test_raw_and_corrected_p_values(twelve, method, family):
    _, _, evaluated = twelve
    table = evaluated.compare(tests=("t", "sign"), correction=method, family=family)
    assert len(table) == 66 * 2 * 2
    for row in table[table.test == "t"].itertuples():
        values = evaluated.per_query(row.measure)
        assert abs(row.p_value - stats.ttest_rel(values[row.run], values[row.baseline]).pvalue) <= 1e-12
    keys = {"measure": ["test", "measure"], "test": ["test"], "table": None}[family]
    groups = [table] if keys is None else [rows for _, rows in table.groupby(keys)]
    for rows in groups:
        p = rows["p_value"].to_numpy()
        if method is None:
            expected = p
        elif method in ("bh", "by"):
            expected = stats.false_discovery_control(p, method=method)
        else:
            expected = multitest.multipletests(p, method=method)[1]
        np.testing.assert_allclose(rows["p_corrected"], expected, rtol=0, atol=1e-12)


def test_nan_p_values_stay_out_of_the_family():
    "An identical run has no t statistic; its NaN neither changes the others' corrected values nor becomes one."
    runs = {"a": SAMPLE_RUN, "b": SAMPLE_B, "a2": SAMPLE_RUN}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        table = compare(SAMPLE_QRELS, runs, ["ndcg", "ndcg_cut.10"], tests="t", correction="hommel")
    for _, rows in table.groupby("measure"):
        known = rows["p_value"].notna()
        assert known.sum() == 2 and rows["p_corrected"][~known].isna().all()
        np.testing.assert_allclose(rows["p_corrected"][known], multitest.multipletests(rows["p_value"][known],
                                                                                     method="hommel")[1], atol=1e-12)


def test_several_baselines(twelve):
    _, _, evaluated = twelve
    table = evaluated.compare(["sys03", "sys07"], tests="t")
    pairs = set(zip(table["run"], table["baseline"]))
    assert len(table) == 2 * (11 + 10) and ("sys07", "sys03") in pairs and ("sys03", "sys07") not in pairs
    assert table.attrs["baselines"] == ["sys03", "sys07"] and table.attrs["baseline"] == "sys03"
    with pytest.raises(UsageError, match="baseline 'nope' is not one of the runs"):
        evaluated.compare(["sys03", "nope"])


def _untied(runs):
    "The runs with each query's scores made distinct (ranx orders tied scores by an unstable sort)."
    return {name: {q: {d: s + j * 1e-7 for j, (d, s) in enumerate(docs.items())} for q, docs in run.items()}
            for name, run in runs.items()}


def _ranx(qrels, runs):
    ranx = pytest.importorskip("ranx")
    return ranx, ranx.Qrels(qrels), [ranx.Run(run, name=name) for name, run in runs.items()]


def test_tukey_is_ranx_own(twelve):
    qrels, runs = twelve[0], _untied(twelve[1])
    ranx, ranx_qrels, ranx_runs = _ranx(qrels, runs)
    report = ranx.compare(ranx_qrels, ranx_runs, ["ndcg@10"], stat_test="tukey", max_p=0.05)
    ours = compare(qrels, runs, "ndcg_cut.10", tests="tukey", preset="ranx")
    assert len(ours) == 66
    for row in ours.itertuples():
        theirs = report.comparisons[row.run, row.baseline]["ndcg@10"]["p_value"]
        assert abs(row.p_value - theirs) <= 1e-12, (row.run, row.baseline)
        assert row.p_corrected == row.p_value


def test_letters_are_ranx_own(twelve):
    qrels, runs = twelve[0], _untied(twelve[1])
    ranx, ranx_qrels, ranx_runs = _ranx(qrels, runs)
    report = ranx.compare(ranx_qrels, ranx_runs, ["ndcg@10", "ndcg@5"], stat_test="student", max_p=0.05)
    table = compare(qrels, runs, ["ndcg_cut.10", "ndcg_cut.5"], tests="t", correction=None, preset="ranx")
    assert not np.isclose(table["p_value"], 0.05, rtol=0, atol=1e-9).any()      # ranx: p <= max_p; here p < alpha
    letters = significance_letters(table)
    assert letters["letter"].tolist() == list("abcdefghijkl")
    some = 0
    for measure, ranx_name in (("ndcg_cut_10", "ndcg@10"), ("ndcg_cut_5", "ndcg@5")):
        for run in runs:
            assert letters.loc[run, f"{measure} beats"] == report.get_superscript_for_latex(run, ranx_name), run
            some += len(letters.loc[run, f"{measure} beats"])
    assert 0 < some < 2 * 66             # some pairs significant, some not


def test_randomized_tukey_reproducible_and_exact_in_the_limit():
    rng = np.random.default_rng(5)
    scores = pd.DataFrame(rng.uniform(0, 1, (3, 3)) + [0.0, 0.2, 0.4], columns=["x", "y", "z"])
    first = randomized_tukey_hsd(scores, 30_000, seed=9)
    assert first.p_value.tolist() == randomized_tukey_hsd(scores, 30_000, seed=9).p_value.tolist()
    assert first.p_value.tolist() != randomized_tukey_hsd(scores, 30_000, seed=10).p_value.tolist()
    v = scores.to_numpy()
    ranges = [np.ptp(np.array([v[t, list(p)] for t, p in enumerate(orders)]).mean(axis=0))
              for orders in itertools.product(itertools.permutations(range(3)), repeat=3)]
    for a, b in itertools.combinations(range(3), 2):
        exact = np.mean(np.array(ranges) >= abs(v[:, a].mean() - v[:, b].mean()) - 1e-12)
        assert abs(first.p_value[a, b] - exact) < 4 * math.sqrt(exact * (1 - exact) / 30_000) + 1e-9


def test_randomized_tukey_in_compare_is_seeded(twelve):
    _, _, evaluated = twelve
    one = evaluated.compare(tests="randomized_tukey", permutations=3000, seed=4)
    again = evaluated.compare(tests="randomized_tukey", permutations=3000, seed=4)
    assert one["p_value"].tolist() == again["p_value"].tolist()
    # family-wise: never below the uncorrected randomised test's smallest possible value, and at least Tukey's share
    hsd = tukey_hsd(evaluated.scores("ndcg"))
    assert ((one["p_value"] >= 0) & (one["p_value"] <= 1)).all() and hsd.p_value.shape == (12, 12)


def test_anova_sums_of_squares(twelve):
    _, _, evaluated = twelve
    scores = evaluated.scores("ndcg")
    table = two_way_anova(scores)
    v = scores.to_numpy()
    t, s = v.shape
    grand = v.mean()
    ss = [t * ((v.mean(axis=0) - grand) ** 2).sum(), s * ((v.mean(axis=1) - grand) ** 2).sum()]
    ss.append(((v - grand) ** 2).sum() - sum(ss))
    np.testing.assert_allclose(table["sum_sq"], ss, rtol=1e-10)
    f = (ss[0] / (s - 1)) / (ss[2] / ((t - 1) * (s - 1)))
    assert table.loc["system", "p_value"] == pytest.approx(stats.f.sf(f, s - 1, (t - 1) * (s - 1)), rel=1e-9)
    assert 0 < table.loc["system", "partial_omega_sq"] < table.loc["system", "partial_eta_sq"] < 1
    assert evaluated.anova("ndcg").equals(table)


def test_missing_statsmodels_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "statsmodels.stats.multitest", None)
    with pytest.raises(MissingExtraError, match=r'pip install "ndcg_nb\[stats\]"'):
        correct([0.01, 0.02], "holm")
    assert correct([0.01, 0.02], "bh").tolist() == pytest.approx([0.02, 0.02])      # SciPy's needs no extra


def test_small_sample_warning_says_which_test_to_trust():
    with pytest.warns(SmallSampleWarning, match="trust the randomization test"):
        table = compare(SAMPLE_QRELS, [SAMPLE_RUN, SAMPLE_B], "ndcg_cut.10")
    rows = table.set_index("test")
    assert rows.loc["bootstrap", "significant"] and not rows.loc["t", "significant"]
    assert "too few queries for the bootstrap" in rows.loc["bootstrap", "note"]
    assert "cannot reach alpha" in rows.loc["randomization", "note"] and rows.loc["t", "note"] == ""


def test_pairs_table_of_every_pair(twelve):
    _, _, evaluated = twelve
    table = evaluated.compare(tests=("t", "tukey"))
    pairs = pairs_table(table, "tukey")
    assert len(pairs) == 2 * 66 and pairs["significant"].equals(pairs["p_corrected"] < 0.05)
    latex = render_letters(significance_letters(table), "latex")
    assert latex.count(r"\\") == 13 and r"\textbf{" in latex


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_cli_compares_any_number_of_runs(capsys, tmp_path, twelve):
    qrels, runs, evaluated = twelve
    qrels_path = tmp_path / "made_up.qrels"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    paths = []
    for name in list(runs)[:5]:
        path = tmp_path / f"{name}.run"
        lines = []
        for q, docs in runs[name].items():
            ranked = sorted(docs.items(), key=lambda item: -item[1])
            lines += [f"{q} Q0 {d} {r} {s} {name}\n" for r, (d, s) in enumerate(ranked, 1)]
        path.write_text("".join(lines))
        paths.append(path)
    rows = json.loads(run_cli(capsys, "compare", qrels_path, *paths, "-m", "ndcg", "--test", "t", "--correction", "bh",
                              "--format", "json"))
    assert len(rows) == 10 and {r["correction"] for r in rows} == {"bh"}
    ours = evaluate_runs(qrels, {n: runs[n] for n in list(runs)[:5]}, "ndcg").compare(tests="t", correction="bh")
    np.testing.assert_allclose([r["p_corrected"] for r in rows], ours["p_corrected"], atol=1e-12)
    two = json.loads(run_cli(capsys, "compare", qrels_path, *paths, "-m", "ndcg", "--test", "t", "--baseline", "sys01",
                             "--baseline", "sys05", "--format", "json"))
    assert len(two) == 4 + 3 and {r["baseline"] for r in two} == {"sys01", "sys05"}
    letters = run_cli(capsys, "compare", qrels_path, *paths, "-m", "ndcg", "--test", "tukey", "--letters")
    assert letters.splitlines()[0].split() == ["#", "run", "ndcg"] and "under the tukey test" in letters
