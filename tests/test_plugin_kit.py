"""The conformance kit catches a gain that depends on a grade's position or its neighbours, a policy that writes
into its input array and a discount that gives NDCG above 1; and it passes the built-ins."""
import subprocess
import sys

import numpy as np
import pytest

from ndcg_nb import hookimpl, register_plugin, unregister_plugin
from ndcg_nb.plugins import list_plugins
from ndcg_nb.testing import ContractError, check_plugin


class Careless:
    @hookimpl
    def register_gains(self, register):
        register("by_position", lambda grades: grades * np.arange(len(grades)), "g * index")
        register("centred", lambda grades: grades - grades.mean(), "g - mean(g)")

        def doubled(grades):
            grades *= 2
            return grades
        register("in_place", doubled, "2 * g, in place")

    @hookimpl
    def register_discounts(self, register):
        register("growing", lambda ranks: np.log2(ranks + 1.0), "log2(rank + 1): grows with rank")


@pytest.fixture
def careless():
    name = register_plugin(Careless(), name="careless-kit")
    yield name
    unregister_plugin(name)


def test_the_kit_catches_position_neighbours_in_place_writes_and_ndcg_above_one(careless):
    findings = {}
    for finding in check_plugin(careless, raise_on_findings=False):
        findings.setdefault(finding.policy, finding.problem)          # the first finding of each policy
    assert set(findings) == {"by_position", "centred", "in_place", "growing"}, findings
    assert findings["by_position"].startswith("is not element by element")
    assert findings["centred"] == "gives other gains when the grades come in two calls than in one"
    assert "wrote into its input array" in findings["in_place"]
    assert findings["growing"].startswith("gives NDCG 1.") and "> 1" in findings["growing"]
    with pytest.raises(ContractError, match="5 problem"):
        check_plugin(careless)


def test_the_builtins_pass_and_the_kit_says_what_it_checked():
    found = check_plugin("ndcg_nb.builtins")
    assert found == [] and len(found.checked) == sum(
        len(row[kind + 's']) for row in list_plugins() if row['plugin'] == 'ndcg_nb.builtins'
        for kind in ('gain', 'discount', 'truncation', 'normalization'))
    summary = found.summary()
    assert "table (table={-1: -1, 0: 0, 1: 1, 2: 3, 3: 7, 4: 15})" in summary
    assert "NDCG at most 1 on a list and its reverse" in summary


def test_cli_check_plugin_passes_the_builtins():
    done = subprocess.run([sys.executable, "-m", "ndcg_nb", "check-plugin", "ndcg_nb.builtins"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "every policy keeps its hook's contract" in done.stdout
