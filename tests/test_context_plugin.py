"""The fixture package tests/context_plugin: a truncation that asks for context, a normalization
and two measures, installed through its entry point and used by name from the command line."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ndcg_nb.evaluation import evaluate
from ndcg_nb.policies import log2_discount

HERE = Path(__file__).parent
DATA = HERE / "data" / "trec_eval" / "test"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    "pip-install the fixture package into a private folder (the environment is left untouched)."
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(HERE / "context_plugin")],
                   check=True, capture_output=True, text=True)
    return target


def cli(site, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    code = f"from ndcg_nb.__main__ import main; raise SystemExit(main({list(args)!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def values(done) -> dict:
    assert done.returncode == 0, done.stderr
    return {(row["measure"], row["query"]): row["value"] for row in json.loads(done.stdout)["per_query"]}


def test_listed_with_every_kind(site):
    done = cli(site, "plugins", "--format", "json")
    assert done.returncode == 0, done.stderr
    row = next(r for r in json.loads(done.stdout) if r["plugin"] == "condensed")
    assert (row["status"], row["distribution"]) == ("ok", "ndcg-nb-condensed")
    assert (row["truncations"], row["normalizations"], row["measures"]) == (
        ["condensed"], ["page_of_relevant"], ["ndcg_condensed", "ndcg_page"])


def test_condensed_measure_equals_trec_eval_judged_only(site):
    "Dropping unjudged documents inside the truncation gives trec_eval -J's numbers, computed another way."
    common = [str(DATA / "qrels.test"), str(DATA / "results.test"), "--format", "json", "-q", "--silent"]
    condensed = values(cli(site, "eval", *common, "-m", "ndcg_condensed@10", "-m", "ndcg_condensed"))
    judged_only = values(cli(site, "eval", *common, "-m", "ndcg_cut.10", "-m", "ndcg", "-J"))
    assert len(condensed) == len(judged_only) == 6     # three queries, two measures
    for (measure, query), value in condensed.items():
        plain = {"ndcg_condensed@10": "ndcg_cut_10", "ndcg_condensed": "ndcg"}[measure]
        assert value == pytest.approx(judged_only[plain, query], abs=1e-12), (measure, query)
    # and the condensed list does change something on this run
    plain = values(cli(site, "eval", *common, "-m", "ndcg"))
    assert any(abs(plain["ndcg", q] - condensed["ndcg_condensed", q]) > 1e-6 for (_, q) in plain)


def test_truncation_by_name_through_set(site):
    common = [str(DATA / "qrels.test"), str(DATA / "results.test"), "--format", "json", "-q", "--silent"]
    through_set = values(cli(site, "eval", *common, "-m", "ndcg_cut.5", "--set", "truncation=condensed"))
    measure = values(cli(site, "eval", *common, "-m", "ndcg_condensed@5"))
    assert {q: v for (_, q), v in through_set.items()} == pytest.approx({q: v for (_, q), v in measure.items()}, abs=1e-15)


def test_page_measure_by_hand(site):
    "ndcg_page@50 = DCG@50 / max(IDCG@50, DCG of 50 documents of grade 1), from the plain evaluation's columns."
    common = [str(DATA / "qrels.test"), str(DATA / "results.test"), "--format", "json", "-q", "--silent"]
    page = values(cli(site, "eval", *common, "-m", "ndcg_page@50"))
    plain = evaluate(DATA / "qrels.test", DATA / "results.test", ["ndcg_cut.50"]).per_query
    full_page = log2_discount(np.arange(1, 51)).sum()
    checked = 0
    for row in plain.itertuples():
        expected = row.dcg / max(row.idcg, full_page) if max(row.idcg, full_page) > 0 else 0.0
        assert page["ndcg_page@50", row.query] == pytest.approx(expected, abs=1e-12)
        checked += row.idcg < full_page
    assert checked > 0, "no query falls short of a page of 50: the test would not show the page"


def test_unknown_measure_lists_the_plugin_measures(site):
    done = cli(site, "eval", str(DATA / "qrels.test"), str(DATA / "results.test"), "-m", "ndcg_pages@5")
    assert done.returncode == 2
    listed = done.stderr.split("installed by plugins: ")[1].split(" (see")[0].split(", ")
    assert {"ndcg_condensed@K", "ndcg_page@K"} <= set(listed), done.stderr     # and whatever else is installed


def test_own_conformance_tests(site):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(HERE / "context_plugin" / "tests")], capture_output=True, text=True, env=env,
                          timeout=300, cwd=HERE.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout
