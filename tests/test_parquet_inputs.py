"""Runs and qrels read from Parquet (and frames with the same column names) give the numbers the same data gives as
TREC text, through `evaluate`, a held `Evaluator` and the command line; `engine.inputs` decides what each input is."""
import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from ndcg_nb import evaluate
from ndcg_nb.__main__ import main
from ndcg_nb.engine.evaluator import Evaluator
from ndcg_nb.engine.inputs import (FRAME, NESTED_DICT, PARQUET_FILE, PARQUET_STREAM, TREC_FILE, as_qrels, as_run,
                                   input_kind)
from ndcg_nb.engine.runs import read_qrels, read_run
from ndcg_nb.errors import InputError

MEASURES = ["ndcg", "ndcg_cut.10", "map"]


def lines(seed=0, queries=12, docs=30):
    "A run (ties included) and its qrels as rows: (query, doc, score) and (query, doc, grade)."
    rng = np.random.default_rng(seed)
    run = [(f"q{q}", f"d{d}", float(rng.integers(0, 8)) / 4) for q in range(queries) for d in rng.permutation(docs)[:20]]
    qrels = [(f"q{q}", f"d{d}", int(rng.integers(0, 4))) for q in range(queries - 1) for d in range(0, docs, 2)]
    return run, qrels


@pytest.fixture
def files(tmp_path):
    "The same run and qrels as TREC text, as Parquet with ir_measures' names, and as Parquet with ndcg_nb's."
    run, qrels = lines()
    (tmp_path / "run.txt").write_text("".join(f"{q} Q0 {d} {i} {s} tag\n" for i, (q, d, s) in enumerate(run)))
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    ir_run = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    ir_qrels = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    ir_run.to_parquet(tmp_path / "run.parquet")
    ir_qrels.to_parquet(tmp_path / "qrels.parquet")
    ir_run.set_axis(["query", "doc", "score"], axis=1).to_parquet(tmp_path / "own_run.parquet")
    ir_qrels.set_axis(["query", "doc", "relevance"], axis=1).to_parquet(tmp_path / "own_qrels.parquet")
    return tmp_path


def values(evaluation) -> pd.DataFrame:
    return evaluation.per_query.sort_values(["measure", "query"]).reset_index(drop=True)


def test_inputs_are_told_apart(files):
    assert [input_kind(files / name) for name in ("run.txt", "run.parquet", "own_run.parquet")] == \
        [TREC_FILE, PARQUET_FILE, PARQUET_FILE]
    (files / "parquet_without_suffix").write_bytes((files / "run.parquet").read_bytes())
    assert input_kind(str(files / "parquet_without_suffix")) == PARQUET_FILE      # by its first bytes
    with open(files / "run.parquet", "rb") as stream:
        assert input_kind(stream) == PARQUET_STREAM
    assert (input_kind({"q": {"d": 1.0}}), input_kind(pd.DataFrame())) == (NESTED_DICT, FRAME)


@pytest.mark.parametrize("names", ["ir_measures", "ndcg_nb"])
def test_parquet_reads_as_the_text_does(files, names):
    prefix = "" if names == "ir_measures" else "own_"
    run, text_run = as_run(files / f"{prefix}run.parquet"), read_run(files / "run.txt")
    qrels, text_qrels = as_qrels(files / f"{prefix}qrels.parquet"), read_qrels(files / "qrels.txt")
    columns = ["query", "doc", "score", "order"]
    assert run[columns].astype(str).values.tolist() == text_run[columns].astype(str).values.tolist()
    assert qrels[["query", "doc", "relevance"]].values.tolist() == text_qrels[["query", "doc", "relevance"]].values.tolist()


@pytest.mark.parametrize("qrels, run", [("qrels.parquet", "run.parquet"), ("own_qrels.parquet", "own_run.parquet"),
                                        ("qrels.txt", "run.parquet"), ("qrels.parquet", "run.txt")])
def test_evaluate_gives_the_numbers_of_the_text(files, qrels, run):
    from_text = evaluate(files / "qrels.txt", files / "run.txt", MEASURES, progress=False)
    given = evaluate(str(files / qrels), files / run, MEASURES, progress=False)
    pd.testing.assert_frame_equal(values(given), values(from_text))


def test_agrees_with_pytrec_eval(files):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = lines()
    judged = {}
    for q, d, g in qrels:
        judged.setdefault(q, {})[d] = g
    scored = {}
    for q, d, s in run:
        scored.setdefault(q, {})[d] = s
    theirs = pytrec_eval.RelevanceEvaluator(judged, {"ndcg", "map"}).evaluate(scored)
    ours = evaluate(files / "qrels.parquet", files / "run.parquet", ["ndcg", "map"], progress=False).per_query
    for measure in ("ndcg", "map"):
        mine = ours[ours.measure == measure].set_index("query")["value"]
        for query, their in theirs.items():
            assert mine[query] == pytest.approx(their[measure], abs=1e-12)


def test_frames_with_ir_measures_names(files):
    run, qrels = pd.read_parquet(files / "run.parquet"), pd.read_parquet(files / "qrels.parquet")
    pd.testing.assert_frame_equal(values(evaluate(qrels, run, MEASURES, progress=False)),
                                  values(evaluate(files / "qrels.txt", files / "run.txt", MEASURES, progress=False)))


def test_held_evaluator_scores_parquet_runs(files):
    held = Evaluator(files / "qrels.parquet", MEASURES)
    from_text = Evaluator(files / "qrels.txt", MEASURES).evaluate(files / "run.txt")
    pd.testing.assert_frame_equal(values(held.evaluate(files / "run.parquet")), values(from_text))
    pd.testing.assert_frame_equal(values(held.evaluate(str(files / "own_run.parquet"))), values(from_text))


def test_command_line_takes_parquet_paths(files, capsys):
    assert main(["eval", str(files / "qrels.txt"), str(files / "run.txt"), "-q", "--format", "csv"]) == 0
    from_text = capsys.readouterr().out
    assert main(["eval", str(files / "qrels.parquet"), str(files / "run.parquet"), "-q", "--format", "csv"]) == 0
    assert capsys.readouterr().out == from_text


def test_command_line_reads_parquet_from_standard_input(files):
    with open(files / "run.parquet", "rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "ndcg_nb", "eval", str(files / "qrels.parquet"), "-", "-m", "ndcg"],
                              stdin=stdin, capture_output=True, text=True, timeout=120)
    from_text = subprocess.run([sys.executable, "-m", "ndcg_nb", "eval", str(files / "qrels.txt"),
                                str(files / "run.txt"), "-m", "ndcg"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[1:] == from_text.stdout.split("\n")[1:]    # the runid line names the run's source


def test_bad_parquet_is_named(files):
    pd.DataFrame({"qid": ["q"], "doc_id": ["d"], "score": [1.0]}).to_parquet(files / "odd.parquet")
    with pytest.raises(InputError, match=r"odd.parquet has no column 'query_id'; its columns: qid, doc_id, score"):
        as_run(files / "odd.parquet")
    (files / "broken.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(InputError, match="broken.parquet: not a readable Parquet file"):
        as_run(files / "broken.parquet")
    with pytest.raises(InputError, match="did you swap qrels and run"):
        as_qrels(pd.read_parquet(files / "run.parquet"))
    assert main(["eval", str(files / "qrels.parquet"), str(files / "odd.parquet")]) == 1


def test_unknown_input_is_named():
    with pytest.raises(TypeError, match=r"run must be a path, .*; got builtins.set\. A path names a TREC file"):
        as_run({1, 2})
    with pytest.raises(TypeError, match=r"the run is a Dask DataFrame"):
        as_run(type("DataFrame", (), {"__module__": "dask.dataframe.core"})())
    with pytest.raises(TypeError, match="open as text"):
        as_run(io.StringIO("q Q0 d 1 0.5 t\n"))
