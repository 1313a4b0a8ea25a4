"""The command line names the runs it takes (`eval`, `compare`, `report`), or says how to.

- `NAME=PATH` names a run (`mine=-` one read from standard input); `--baseline` takes the name;
- an argument that is the name of a file, `=` and all, is that file; so is one whose part before `=` holds a `/`;
- runs not named take their run tag, else their file name, and runs of one file name in different folders the end
  of their paths that tells them apart (`a/run.txt`, `b/run.txt`), where Python's advice to "pass a dict of name ->
  run" would not help;
- two runs that nothing tells apart (the same file twice, a name given twice) are a usage error that says to write
  NAME=PATH.
"""
from __future__ import annotations

import json
import shutil

import pytest

from ndcg_nb.__main__ import main
from ndcg_nb.analysis.comparison import SAMPLE_RUN_B
from ndcg_nb.analysis.report_page import embedded_data
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def two_folders(tmp_path):
    "The sample run twice, as `a/run.txt` and `b/run.txt`: one run tag, one file name."
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(SAMPLE_RUN, tmp_path / folder / "run.txt")
    return tmp_path / "a" / "run.txt", tmp_path / "b" / "run.txt"


def test_runs_of_one_file_name_are_named_by_their_folders(capsys, two_folders):
    a, b = two_folders
    code, out, err = run_cli(capsys, "compare", SAMPLE_QRELS, a, b, "-m", "nDCG@10", "--test", "t", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert [(row["run"], row["baseline"]) for row in rows] == [("b/run.txt", "a/run.txt")]
    code, out, err = run_cli(capsys, "eval", SAMPLE_QRELS, a, b, "-m", "nDCG@10", "--format", "json")
    assert code == 0 and list(json.loads(out)) == ["a/run.txt", "b/run.txt"], err


def test_name_equals_path_names_a_run(capsys, two_folders):
    a, b = two_folders
    code, out, err = run_cli(capsys, "compare", SAMPLE_QRELS, f"bm25={a}", f"tuned={b}", "-m", "nDCG@10", "--test", "t",
                             "--baseline", "tuned", "--format", "json")
    assert code == 0, err
    assert [(row["run"], row["baseline"]) for row in json.loads(out)] == [("bm25", "tuned")]
    code, out, err = run_cli(capsys, "eval", SAMPLE_QRELS, f"bm25={a}", SAMPLE_RUN_B, "-m", "nDCG@10", "--format", "json")
    assert code == 0 and list(json.loads(out)) == ["bm25", "sample_b"], err


def test_report_takes_names_and_folders(capsys, tmp_path, two_folders):
    a, b = two_folders
    page = tmp_path / "report.html"
    code, out, err = run_cli(capsys, "report", SAMPLE_QRELS, f"bm25={a}", b, "-o", page, "--test", "t")
    assert code == 0, err
    assert embedded_data(page)["runs"] == ["bm25", "sample"]
    code, out, err = run_cli(capsys, "report", SAMPLE_QRELS, a, b, "-o", page, "--test", "t")
    assert code == 0, err
    assert embedded_data(page)["runs"] == ["a/run.txt", "b/run.txt"]


def test_a_file_whose_name_holds_an_equals_sign_is_a_path(capsys, tmp_path, monkeypatch):
    shutil.copy(SAMPLE_RUN, tmp_path / "k=10.run")
    (tmp_path / "k=10").mkdir()
    shutil.copy(SAMPLE_RUN_B, tmp_path / "k=10" / "b.run")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "compare", SAMPLE_QRELS, "k=10.run", "k=10/b.run", "-m", "nDCG@10", "--test", "t",
                             "--format", "json")
    assert code == 0, err                                        # "k=10.run" is the file; "k=10/b.run" names nothing
    assert [(row["run"], row["baseline"]) for row in json.loads(out)] == [("sample_b", "sample")]
    code, out, err = run_cli(capsys, "compare", SAMPLE_QRELS, "base=k=10.run", "./k=10/b.run", "-m", "nDCG@10",
                             "--test", "t", "--format", "json")
    assert code == 0, err
    assert [(row["run"], row["baseline"]) for row in json.loads(out)] == [("sample_b", "base")]


def test_runs_nothing_tells_apart_are_refused_with_how_to_name_them(capsys, two_folders):
    a, _ = two_folders
    code, out, err = run_cli(capsys, "compare", SAMPLE_QRELS, a, a, "-m", "nDCG@10")
    assert code == 2 and out == "", err
    assert "two runs are both called" in err and "NAME=PATH" in err, err
    assert "pass a dict" not in err, err
    code, out, err = run_cli(capsys, "compare", SAMPLE_QRELS, f"x={a}", f"x={SAMPLE_RUN_B}", "-m", "nDCG@10")
    assert code == 2 and "two runs are both called 'x'" in err and "NAME=PATH" in err, err


def test_a_name_without_a_path_is_a_usage_error(capsys):
    code, _, err = run_cli(capsys, "compare", SAMPLE_QRELS, SAMPLE_RUN, "bm25=")
    assert code == 2 and "write NAME=PATH" in err, err


def test_dask_takes_a_path_not_a_name(capsys):
    code, _, err = run_cli(capsys, "eval", SAMPLE_QRELS, f"bm25={SAMPLE_RUN}", "--dask", "local")
    assert code == 2 and "leave out NAME=" in err, err


def test_a_name_trec_eval_s_format_cannot_show_is_refused_there_only(capsys):
    code, _, err = run_cli(capsys, "eval", SAMPLE_QRELS, f"my run={SAMPLE_RUN}", "-m", "nDCG@10")
    assert code == 2 and "run name 'my run' is not one word" in err, err
    code, out, err = run_cli(capsys, "eval", SAMPLE_QRELS, f"my run={SAMPLE_RUN}", "-m", "nDCG@10", "--format", "json")
    assert code == 0 and list(json.loads(out)) == ["my run"], err
