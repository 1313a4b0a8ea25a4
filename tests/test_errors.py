"""Bad input raises an error that names the problem: the cases no notebook checks.

nbs/30_core.ipynb ("Bad input") and nbs/83_bad_input.ipynb check ndcg's own errors (empty list,
depths 0, -3 and 2.5, nan grades, mixed nesting, unknown policies, zero IDCG), and
nbs/26_policy_binding.ipynb the policy errors (installed policies listed, unknown parameter, a failing
gain table); the cases below are the ones they leave out.
"""
import numpy as np
import pytest

from ndcg_nb import PluginError, cg, dcg, idcg, ndcg, ndcg_dataset


@pytest.mark.parametrize("metric", [cg, dcg, idcg])
def test_empty_list(metric):
    with pytest.raises(ValueError, match="empty"):
        metric([])


@pytest.mark.parametrize("k", [True, "3"])
def test_bad_depth(k):
    with pytest.raises(ValueError, match="depth k must be a positive integer"):
        ndcg([1, 2, 3], k)


@pytest.mark.parametrize("bad", [[1, float("inf")], np.array([0.0, np.nan])])
def test_non_finite_grades(bad):
    with pytest.raises(ValueError, match="rank 2; grades must be finite"):
        ndcg(bad)


def test_nan_padded_batch_without_lengths():
    with pytest.raises(ValueError, match=r"list 1, rank 2.*give lengths= or mask="):
        ndcg(np.array([[1.0, 2.0], [3.0, np.nan]]))
    assert ndcg(np.array([[1.0, 2.0], [3.0, np.nan]]), lengths=[2, 1])[1] == 1.0


def test_nesting_too_deep():
    with pytest.raises(TypeError, match="nested more than two levels"):
        ndcg([[1, [2]], [3]])


def test_gain_table_missing_grade_names_plugin():
    with pytest.raises(PluginError, match="gain policy 'table' from plugin 'ndcg_nb.builtins' failed.*grade 3 is not"):
        ndcg([3, 1], gain=("table", {"table": [0, 1, 3]}))


def test_zero_idcg_raise_names_lists():
    with pytest.raises(ValueError, match="2 list.*list 0, 2"):
        ndcg_dataset([[0], [1], [0, 0]], zero_idcg="raise")


def test_plugin_normalization_above_one_is_refused():
    "A normalization giving NDCG = 2 on a list without harmful documents is refused by evaluate."
    from ndcg_nb import evaluate, hookimpl, register_plugin, unregister_plugin

    class Doubling:
        @hookimpl
        def register_normalizations(self, register):
            register("half_ideal", lambda dcg, *, ideal_dcg: (0 * dcg, ideal_dcg / 2), "half the ideal")

    register_plugin(Doubling(), name="doubling")
    try:
        with pytest.raises(PluginError, match="normalization policy 'half_ideal' from plugin 'doubling' gives list"):
            evaluate({"q": {"a": 2, "b": 1}}, {"q": {"a": 2.0, "b": 1.0}}, ["ndcg"], normalization="half_ideal")
    finally:
        unregister_plugin("doubling")
