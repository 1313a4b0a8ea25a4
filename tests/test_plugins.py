"""The plugin system: entry-point discovery of a real package, run-time registration, errors."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ndcg_nb
from ndcg_nb import PluginError, PolicyConflictError, hookimpl, list_plugins, ndcg, register_plugin, unregister_plugin

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def installed_example(tmp_path_factory):
    """pip-install tests/example_plugin into a private target directory (the environment is left untouched)."""
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(HERE / "example_plugin")],
                   check=True, capture_output=True, text=True, cwd=build)
    return target


def _run(code, site):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_entry_point_plugin_is_used_by_name(installed_example):
    code = """
import json
from ndcg_nb import ndcg, list_plugins
print(json.dumps({"value": ndcg([2, 0, 1], gain="binary", discount="reciprocal"),
                  "plugins": list_plugins()}))
"""
    done = _run(code, installed_example)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    # binary gains [1, 0, 1] with weights 1/rank; ideal [1, 1, 0]
    assert out["value"] == pytest.approx((1 + 1 / 3) / (1 + 1 / 2), abs=1e-15)
    example = {row["plugin"]: row for row in out["plugins"]}["example"]
    assert example["version"] == "0.1.0"
    assert example["gains"] == ["binary"] and example["discounts"] == ["reciprocal"]


def test_entry_point_plugin_appears_in_cli_listing(installed_example):
    done = _run("from ndcg_nb.__main__ import main; raise SystemExit(main(['plugins']))", installed_example)
    assert done.returncode == 0, done.stderr
    assert "example" in done.stdout and "reciprocal" in done.stdout


def test_example_plugin_passes_its_own_conformance_tests(installed_example):
    tests = HERE / "example_plugin" / "tests"
    done = _run(f"import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', {str(tests)!r}]))",
                installed_example)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_entry_point_plugin_parameters(installed_example):
    done = _run("from ndcg_nb import ndcg; print(ndcg([1, 2, 3], gain='binary:threshold=3'))", installed_example)
    assert done.returncode == 0, done.stderr
    # binary gains [0, 0, 1] vs ideal [1, 0, 0] under log2: (1/2) / 1
    assert float(done.stdout) == pytest.approx(0.5, abs=1e-15)


def test_broken_entry_point_is_named_and_skipped(tmp_path):
    pkg = tmp_path / "broken_plugin-0.0.1.dist-info"
    pkg.mkdir()
    (pkg / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.0.1\n")
    (pkg / "entry_points.txt").write_text("[ndcg_nb]\nbroken = no_such_module_for_ndcg_nb\n")
    done = _run("from ndcg_nb import ndcg; print(ndcg([1, 0]))", tmp_path)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == 1.0
    assert ("PluginWarning: plugin 'broken' (broken-plugin 0.0.1) could not be loaded (no_such_module_for_ndcg_nb): "
            "ModuleNotFoundError") in done.stderr


class Squared:
    @hookimpl
    def register_gains(self, register):
        register("squared", lambda grades: grades ** 2, "rel squared")


def test_runtime_registration_and_unregistration():
    name = register_plugin(Squared(), name="squared-plugin")
    try:
        assert ndcg([2, 1], gain="squared") == 1.0
        assert ndcg([1, 2], gain="squared") == pytest.approx((1 + 4 / np.log2(3)) / (4 + 1 / np.log2(3)), abs=1e-15)
        assert {r["plugin"]: r for r in list_plugins()}["squared-plugin"]["gains"] == ["squared"]
    finally:
        unregister_plugin(name)
    with pytest.raises(LookupError, match="unknown gain policy 'squared'"):
        ndcg([1], gain="squared")


class Failing:
    @hookimpl
    def register_discounts(self, register):
        def explode(ranks):
            raise ZeroDivisionError("no ranks today")
        register("explode", explode)

    @hookimpl
    def register_gains(self, register):
        register("wrong_shape", lambda grades: grades[:1])


def test_failing_policy_names_plugin():
    name = register_plugin(Failing(), name="failing-plugin")
    try:
        with pytest.raises(PluginError, match="discount policy 'explode' from plugin 'failing-plugin' failed: "
                                              "ZeroDivisionError: no ranks today"):
            ndcg([1, 0], discount="explode")
        with pytest.raises(PluginError, match="gain policy 'wrong_shape' from plugin 'failing-plugin' returned shape"):
            ndcg([1, 0], gain="wrong_shape")
    finally:
        unregister_plugin(name)


class Reorders:
    @hookimpl
    def register_truncations(self, register):
        register("reverse", lambda grades, lengths, k: (grades[::-1], lengths))


def test_truncation_contract_is_enforced():
    name = register_plugin(Reorders(), name="reorders")
    try:
        with pytest.raises(PluginError, match="truncation policy 'reverse' from plugin 'reorders' changed grades"):
            ndcg([3, 1, 0], truncation="reverse")
    finally:
        unregister_plugin(name)


class Duplicate:
    @hookimpl
    def register_discounts(self, register):
        register("log2", lambda ranks: np.ones(len(ranks)))


def test_duplicate_names_both_plugins():
    with pytest.raises(PolicyConflictError, match="'ndcg_nb.builtins' and plugin 'dup'"):
        register_plugin(Duplicate(), name="dup")
    assert "dup" not in {r["plugin"] for r in list_plugins()}


def test_hookimpl_is_public():
    assert ndcg_nb.hookimpl is hookimpl


def test_every_example_of_the_plugin_guide_runs_on_its_own():
    "A reader who copies one code cell of the guide into a fresh session gets no NameError: each imports what it uses."
    guide = json.loads((HERE.parent / "nbs" / "80_plugin_guide.ipynb").read_text())
    shown = ["".join(c["source"]) for c in guide["cells"] if c["cell_type"] == "code"]
    shown = [code for code in shown if not code.startswith(("#| hide", "show_doc(")) and "#| echo: false" not in code]
    assert len(shown) >= 10
    for code in shown:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=HERE.parent / "nbs",
                              timeout=300)
        assert done.returncode == 0, code + "\n" + done.stderr
