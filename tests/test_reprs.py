"""Notebook habits: compact HTML and short text reprs, `result["nDCG@10"]`, and progress in a kernel."""
import dataclasses
import sys
import types

import numpy as np
import pandas as pd
import pytest

from ndcg_nb.analysis.comparison import evaluate_runs
from ndcg_nb.metrics.core import DatasetScore, ndcg_dataset
from ndcg_nb.evaluation import Evaluation, evaluate
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
from ndcg_nb.analysis.value_bounds import bounds

HOSTILE_QRELS = pd.DataFrame({"query": ["<q&1>", "<q&1>", "q2"], "doc": ["a", "b", "a"], "relevance": [2, 0, 1]})
HOSTILE_RUN = pd.DataFrame({"query": ["<q&1>", "<q&1>", "q2"], "doc": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]})


def test_getitem_is_the_mean():
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg", "ndcg_cut.10", "nDCG@10"])
    assert result["ndcg_cut.10"] == result.value("ndcg_cut.10") == result.value("ndcg_cut_10")
    assert result["nDCG@10"] == result.value("nDCG@10") == result.value("nDCG()@10") != result["ndcg_cut_10"]
    assert result["ndcg"] == result.value("ndcg")
    with pytest.raises(KeyError):
        result["nDCG@7"]


def test_evaluation_reprs_are_short():
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg", "ndcg_cut.10"])
    text = repr(result)
    assert len(text.splitlines()) <= 12 and "0.1431" in text and "ndcg_cut_10" in text
    assert "preset trec_eval" in text and "integer_grades=True" in text and "gain=" not in text
    html = result._repr_html_()
    assert "<table" in html and "ndcg_cut_10" in html and "preset trec_eval" in html
    assert "status" not in html  # the per-query frame is not dumped
    assert len(html) < 5000
    for name in ("per_query", "aggregate", "convention", "run_tag", "notes"):   # what an evaluation holds
        assert getattr(result, name) is not None, name


def test_convention_line_names_only_changes():
    result = evaluate(SAMPLE_QRELS, SAMPLE_RUN, "nDCG@10", preset="trec_eval", gain="exponential")
    assert "gain='exponential'" in repr(result) and "discount" not in repr(result)


def tagged(result, tag):
    "The same evaluation under another run tag."
    return Evaluation(result.per_query, result.aggregate, result.convention, tag, result.notes)


def test_html_is_escaped():
    runs = {"<b>run&1</b>": HOSTILE_RUN, "plain": HOSTILE_RUN}
    for obj in (tagged(evaluate(HOSTILE_QRELS, HOSTILE_RUN, "nDCG@10"), "<i>tag&</i>"),
                evaluate_runs(HOSTILE_QRELS, runs, ["nDCG@10"]),
                bounds(HOSTILE_QRELS, HOSTILE_RUN, "nDCG@10")):
        html = obj._repr_html_()
        assert "<b>run" not in html and "<i>tag" not in html and "<q&1>" not in html, html
    assert "&lt;b&gt;run&amp;1&lt;/b&gt;" in evaluate_runs(HOSTILE_QRELS, runs, ["nDCG@10"])._repr_html_()
    assert "&lt;i&gt;tag&amp;&lt;/i&gt;" in tagged(evaluate(HOSTILE_QRELS, HOSTILE_RUN, "nDCG@10"), "<i>tag&</i>")._repr_html_()


def test_runs_evaluation():
    both = evaluate_runs(SAMPLE_QRELS, {"a": SAMPLE_RUN, "b": SAMPLE_RUN}, ["ndcg", "nDCG@10"])
    by_run = both["nDCG@10"]
    assert list(by_run.index) == ["a", "b"]
    assert by_run["a"] == evaluate(SAMPLE_QRELS, SAMPLE_RUN, "nDCG@10")["nDCG@10"]
    text = repr(both)
    assert len(text.splitlines()) <= 12 and "2 runs" in text and "preset trec_eval" in text
    assert "<table" in both._repr_html_() and "per_query" not in text


def test_bounds_reprs():
    b = bounds(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut.10"])
    text = repr(b)
    assert len(text.splitlines()) <= 12 and "tie_low" in text and "preset trec_eval" in text
    assert "<table" in b._repr_html_() and len(b._repr_html_()) < 5000


def test_dataset_score_reprs():
    r = ndcg_dataset(np.tile([3.0, 2.0, 0.0, 1.0], (1000, 1)), 3)
    text = repr(r)
    assert len(text) < 600 and len(text.splitlines()) <= 8 and "1000" in text and f"{r.value:.4f}" in text
    assert "<" not in text.replace("<=", "")
    html = r._repr_html_()
    assert len(html) < 2000 and "1000" in html
    assert float(r) == r.value
    odd = DatasetScore(0.5, "mean", np.array([0.5]), np.ones(1), np.ones(1), 1, 1, 0, "zero", {"gain": "<g&>"})
    assert "<g&>" not in odd._repr_html_() and "&lt;g&amp;&gt;" in odd._repr_html_()


class ZMQInteractiveShell:  # the name Jupyter's kernel shell has
    config = {"IPKernelApp": {}}


def _fake_kernel(monkeypatch):
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: ZMQInteractiveShell()
    monkeypatch.setitem(sys.modules, "IPython", fake)


def test_progress_in_a_kernel_with_tqdm(monkeypatch, capsys):
    pytest.importorskip("tqdm")
    _fake_kernel(monkeypatch)
    evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", progress=True)
    err = capsys.readouterr().err
    assert "[####" not in err and "3/3" in err, err  # tqdm's bar (text, as no widget library is loaded here)
    evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", progress=False)
    assert capsys.readouterr().err == ""


def test_progress_in_a_kernel_without_tqdm(monkeypatch, capsys):
    _fake_kernel(monkeypatch)
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", progress=True)
    assert "[####" in capsys.readouterr().err  # the stderr bar
    evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg")
    assert capsys.readouterr().err == ""  # not a terminal and no tqdm: silent


def test_progress_outside_a_kernel_keeps_the_stderr_bar(capsys):
    evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", progress=True)
    assert "[####" in capsys.readouterr().err


def test_import_stays_light():
    import subprocess
    code = "import sys, ndcg_nb, ndcg_nb.engine.scoring; print('tqdm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
