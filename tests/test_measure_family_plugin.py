"""A measure family from a third-party package (tests/measure_family_plugin: rank-biased precision, installed with
pip into a private directory and found through its entry point) works by name in `evaluate`, `Evaluator`,
`compare` and `ndcg-nb eval`; registered at run time it works the same, and a failing family is named."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ndcg_nb
from ndcg_nb import PluginError, hookimpl, register_plugin, unregister_plugin
from ndcg_nb.families.base import MeasureFamily

HERE = Path(__file__).resolve().parent
QRELS = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1, "y": 1}}
RUN = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}, "q2": {"z": 2.0, "y": 1.0, "x": 0.5}}
OTHER = {"q1": {"c": 3.0, "a": 2.0}, "q2": {"x": 2.0, "y": 1.0}}


def rbp(run, qrels, p, k):
    "Rank-biased precision by its definition, one query and one rank at a time, averaged over the judged queries."
    values = []
    for query in qrels:
        ranked = sorted(run.get(query, {}).items(), key=lambda item: (-item[1], item[0]))[:k]
        values.append((1 - p) * sum(p ** i for i, (doc, _) in enumerate(ranked) if qrels[query].get(doc, 0) > 0))
    return sum(values) / len(values)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    target, build = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("build")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(HERE / "measure_family_plugin")],
                   check=True, capture_output=True, text=True, cwd=build)
    return target


def _run(args, site, **kw):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=300, **kw)


def test_by_name_in_evaluate_evaluator_and_compare(site):
    code = f"""
import json, ndcg_nb
qrels, run, other = {QRELS!r}, {RUN!r}, {OTHER!r}
names = ["rbp@2", "rbp(p=0.5)@3", "ndcg_cut.2"]
held = ndcg_nb.Evaluator(qrels, names)
table = ndcg_nb.compare(qrels, {{"a": run, "b": other}}, names)
print(json.dumps({{"evaluate": ndcg_nb.evaluate(qrels, run, names).value("rbp@2"),
                  "evaluator": held.evaluate(run).value("rbp(p=0.5)@3"),
                  "compare": table[table["test"] == "t"][["measure", "mean", "baseline_mean"]].values.tolist(),
                  "plugins": ndcg_nb.list_plugins()}}))
"""
    done = _run(["-c", code], site)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["evaluate"] == pytest.approx(rbp(RUN, QRELS, 0.8, 2), abs=1e-15)
    assert out["evaluator"] == pytest.approx(rbp(RUN, QRELS, 0.5, 3), abs=1e-15)
    compared = {measure: (mean, baseline) for measure, mean, baseline in out["compare"]}
    assert compared["rbp@2"] == pytest.approx((rbp(OTHER, QRELS, 0.8, 2), rbp(RUN, QRELS, 0.8, 2)), abs=1e-15)
    assert compared["rbp(p=0.5)@3"] == pytest.approx((rbp(OTHER, QRELS, 0.5, 3), rbp(RUN, QRELS, 0.5, 3)), abs=1e-15)
    assert "rbp" in {row["plugin"] for row in out["plugins"]}


def test_by_name_on_the_command_line(site, tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} {i} {s} sys\n" for q, docs in RUN.items()
                           for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]))))
    done = _run(["-m", "ndcg_nb", "eval", "-m", "rbp@2", str(qrels), str(run)], site)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    assert rows[-1][:2] == ["rbp@2", "all"]
    assert float(rows[-1][2]) == pytest.approx(rbp(RUN, QRELS, 0.8, 2), abs=5e-5)
    listed = _run(["-m", "ndcg_nb", "plugins"], site)
    assert listed.returncode == 0 and "rbp" in listed.stdout


class Broken(MeasureFamily):
    name = "broken_family"
    def per_query(self, ranked, measure):
        raise ZeroDivisionError("no")


class BrokenPlugin:
    @hookimpl
    def register_measure_families(register):
        register(Broken())


def test_run_time_family_and_its_failure_named():
    register_plugin(BrokenPlugin, "broken-plugin")
    try:
        with pytest.raises(PluginError, match=r"measure family 'broken_family' from plugin 'broken-plugin' failed on "
                                              r"broken_family@3: ZeroDivisionError: no"):
            ndcg_nb.evaluate(QRELS, RUN, "broken_family@3")
    finally:
        unregister_plugin(BrokenPlugin)
    with pytest.raises(ndcg_nb.errors.UsageError, match="unknown measure 'broken_family@3'"):
        ndcg_nb.evaluate(QRELS, RUN, "broken_family@3")
