"""The command line as users of other tools reach for it: `eval` takes `score`'s policy
options, swapped qrels and run get "did you swap qrels and run?", `--silent` keeps Dask's log lines
off standard error, and `compare --p-value interval` gives a bootstrap p-value that agrees with its
interval."""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ndcg_nb
from ndcg_nb.__main__ import main
from ndcg_nb.evaluation import evaluate
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

ROOT = Path(ndcg_nb.__file__).resolve().parents[1]     # the checkout these tests import
SAMPLE_B = SAMPLE_RUN.with_name("sample_b.run")


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def values(trec_text: str) -> dict:
    "trec_eval's three columns as {(measure, query): value}."
    return {(m, q): float(v) for m, q, v in (line.split("\t") for line in trec_text.strip().splitlines())}


# -- eval takes --gain, --discount, --truncation, --normalization (and --zero-idcg) --------------------

@pytest.mark.parametrize("options", [
    {"gain": "exponential"}, {"discount": "inverse_rank"}, {"discount": "jk:base=3"}, {"truncation": "pad:fill=-1"},
    {"normalization": "retrieved"}, {"normalization": "minmax"}, {"zero_idcg": "one"},
    {"gain": "exponential", "discount": "ln", "truncation": "pad:fill=0", "normalization": "full"},
])
def test_eval_policy_options_are_the_convention_fields(capsys, options):
    argv = [f"--{k.replace('_', '-')}={v}" for k, v in options.items()]
    code, out, err = run_cli(capsys, "eval", SAMPLE_QRELS, SAMPLE_RUN, "-m", "nDCG@5", "-m", "nDCG@100", "-q", "--silent",
                             *argv)
    assert code == 0, err
    expected = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@5", "nDCG@100"], progress=False, **options)
    assert values(out) == values(expected.to_trec(per_query=True))
    plain = values(evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@5", "nDCG@100"], progress=False).to_trec(per_query=True))
    assert values(out) != plain, f"{options} changed nothing on the sample: the test would not see them ignored"


def test_eval_policy_options_with_set_and_preset(capsys):
    code, out, _ = run_cli(capsys, "eval", SAMPLE_QRELS, SAMPLE_RUN, "-m", "nDCG@10", "--preset", "sklearn",
                           "--gain", "exponential", "--set", "gain=exponential", "--silent")
    assert code == 0
    assert values(out) == values(evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@10"], preset="sklearn", gain="exponential",
                                          progress=False).to_trec())
    code, out, err = run_cli(capsys, "eval", SAMPLE_QRELS, SAMPLE_RUN, "--gain", "exponential", "--set", "gain=linear")
    assert (code, out) == (2, "")
    assert err.strip() == "ndcg-nb: error: --gain exponential and --set gain=linear disagree: give one of them"


def test_eval_policy_options_unknown_policy(capsys):
    code, _, err = run_cli(capsys, "eval", SAMPLE_QRELS, SAMPLE_RUN, "--discount", "log3")
    assert code == 2 and "unknown discount policy 'log3'" in err, err


def test_compare_takes_the_policy_options_too(capsys):
    code, out, err = run_cli(capsys, "compare", SAMPLE_QRELS, SAMPLE_RUN, SAMPLE_B, "-m", "nDCG@10", "--test", "t",
                             "--gain", "exponential", "--format", "json")
    assert code == 0, err
    row = json.loads(out)[0]
    assert row["mean"] == evaluate(SAMPLE_QRELS, SAMPLE_B, ["nDCG@10"], gain="exponential",
                                   progress=False).value("nDCG@10")


# -- swapped qrels and run ------------------------------------------------------------------------------

def test_swapped_qrels_and_run(capsys):
    code, out, err = run_cli(capsys, "eval", SAMPLE_RUN, SAMPLE_QRELS)
    assert (code, out) == (1, "")
    assert err.startswith("ndcg-nb: error: ") and len(err.splitlines()) == 1
    assert (f"did you swap qrels and run? {SAMPLE_RUN} looks like a run (6 fields: query Q0 doc rank score tag) and "
            f"{SAMPLE_QRELS} looks like qrels (4 fields: query iter doc relevance): `ndcg-nb eval` takes the qrels "
            "first, then the run") in err, err


def test_swapped_in_compare_and_a_run_twice(capsys):
    code, _, err = run_cli(capsys, "compare", SAMPLE_RUN, SAMPLE_QRELS, SAMPLE_B)
    assert code == 1 and "did you swap qrels and run?" in err and "`ndcg-nb compare`" in err, err
    code, _, err = run_cli(capsys, "eval", SAMPLE_RUN, SAMPLE_RUN)
    assert code == 1 and f"did you swap qrels and run? {SAMPLE_RUN} looks like a run" in err, err


def test_qrels_twice(capsys):
    code, _, err = run_cli(capsys, "eval", SAMPLE_QRELS, SAMPLE_QRELS)
    assert code == 1 and f"did you swap qrels and run? {SAMPLE_QRELS} looks like qrels" in err, err


def test_no_swap_hint_for_other_errors(capsys, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("101 Q0 DOC-101-00 1 nan tag\n")
    code, _, err = run_cli(capsys, "eval", SAMPLE_QRELS, bad)
    assert code == 1 and "did you swap" not in err, err


# -- --silent with Dask: no log lines on standard error -------------------------------------------------

DASK = pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="needs the dask extra")
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NDCG_NB_LOAD_PLUGINS": ""}


@DASK
def test_silent_keeps_dask_logs_off_stderr(tmp_path):
    "A local cluster's scheduler and workers log at INFO and WARNING; with --silent, stderr stays empty."
    argv = ["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "nDCG@10", "--dask", "local"]
    code = ("import logging, sys; logging.basicConfig(level=logging.INFO); "   # a user's root handler would show them
            "from ndcg_nb.__main__ import main; sys.exit(main(sys.argv[1:]))")
    loud = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=ENV, cwd=tmp_path,
                          timeout=300)
    quiet = subprocess.run([sys.executable, "-c", code, *argv, "--silent"], capture_output=True, text=True, env=ENV,
                           cwd=tmp_path, timeout=300)
    assert loud.returncode == quiet.returncode == 0, loud.stderr + quiet.stderr
    assert "distributed." in loud.stderr, "without --silent Dask logs nothing here: the test would prove nothing"
    assert quiet.stderr == "", quiet.stderr
    assert quiet.stdout == loud.stdout == evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["nDCG@10"], progress=False).to_trec() + "\n"


# -- compare --p-value interval: the bootstrap's p-value and interval agree ----------------------------

def test_compare_p_value_interval_agrees_with_its_interval(capsys):
    "The default p-value inverts the interval, BCa or percentile alike: p < 1 - confidence exactly when 0 is outside."
    common = ["compare", SAMPLE_QRELS, SAMPLE_RUN, SAMPLE_B, "-m", "ndcg", "-m", "nDCG@10", "--test", "bootstrap",
              "--format", "json", "--correction", "none"]
    for method in ("bca", "percentile"):
        for confidence in ("0.9", "0.95", "0.99"):
            code, out, err = run_cli(capsys, *common, "--bootstrap-method", method, "--confidence", confidence)
            assert code == 0, err
            for row in json.loads(out):
                assert f"{method} interval, p-value inverts the interval" in row["detail"], row
                excludes_zero = not row["ci_low"] <= 0 <= row["ci_high"]
                assert (row["p_value"] < 1 - float(confidence)) == excludes_zero, row
    code, out, _ = run_cli(capsys, *common, "--p-value", "studentized")
    assert code == 0 and all("bca interval" in row["detail"] and "inverts" not in row["detail"]
                             for row in json.loads(out))


def test_compare_p_value_options_refused(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["compare", str(SAMPLE_QRELS), str(SAMPLE_RUN), str(SAMPLE_B), "--p-value", "exact"])
    assert exit.value.code == 2
    assert "argument --p-value: invalid choice: 'exact'" in capsys.readouterr().err
