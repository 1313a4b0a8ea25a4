"""The example plugin's own tests: ndcg_nb's conformance kit checks every policy it registers."""
from ndcg_nb.testing import check_plugin


def test_example_plugin_keeps_the_hook_contracts():
    assert check_plugin("example") == []
