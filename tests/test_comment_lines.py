"""Comment lines in qrels and runs: a line whose first character after any blanks is `#` is skipped, as trec_eval 10.0
skips it; a `#` further on (the TREC 2024 RAG track's document ids hold one) is data. Line numbers in messages still
count every line of the file. `tests/data/comments/` (see its README) holds commented files and trec_eval 10.0's
own output on them."""
import subprocess
import sys
from pathlib import Path

import pytest

from ndcg_nb.engine.runs import TrecFormatError, read_qrels, read_run, split_file
from ndcg_nb.evaluation import evaluate

DATA = Path(__file__).resolve().parent / "data" / "comments"


def written(tmp_path: Path, text: str, name: str = "file") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def values(text: str) -> dict:
    "trec_eval's three columns (`measure query value`) as {(measure, query): value}."
    return {(measure, query): float(value) for measure, query, value in (line.split() for line in text.splitlines())}


def test_same_values_as_trec_eval(tmp_path):
    "The command line on the commented files prints what trec_eval 10.0 printed on them, query by query."
    done = subprocess.run([sys.executable, "-m", "ndcg_nb", "eval", str(DATA / "qrels"), str(DATA / "run"), "-q",
                           "-m", "ndcg", "-m", "map"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = values((DATA / "trec_eval.out").read_text())
    assert len(expected) == 14
    assert values(done.stdout) == expected


def test_evaluate_matches_trec_eval():
    expected = values((DATA / "trec_eval.out").read_text())
    result = evaluate(DATA / "qrels", DATA / "run", ["ndcg"], progress=False)
    per_query = {q: v for q, v in zip(result.per_query["query"], result.per_query["value"])}
    assert {q: round(v, 4) for q, v in per_query.items()} == {q: v for (m, q), v in expected.items() if m == "ndcg" and q != "all"}


def test_qrels_comments_that_trec_eval_stumbles_on():
    """trec_eval 10.0 takes a qrels comment in the first column only, and not two in a row ("Malformed line 1" on
    `qrels.indented`); ndcg_nb reads them, to the same judgments."""
    indented, plain = read_qrels(DATA / "qrels.indented"), read_qrels(DATA / "qrels")
    columns = ["query", "doc", "relevance"]
    assert indented[columns].astype(str).values.tolist() == plain[columns].astype(str).values.tolist()
    assert indented["line"].iloc[0] == 5                  # after four comment lines


def test_hash_inside_a_document_id_is_data():
    run = read_run(DATA / "run")
    assert len(run) == 599 and run["doc"].astype(str).str.contains("#").all()
    assert run.attrs["tag"] == "comment.test"


@pytest.mark.parametrize("kind, text, rows, lines", [
    ("qrels", "# by hand\n1 0 d1 1\n1 0 d2 0\n", [["1", "d1"], ["1", "d2"]], [2, 3]),          # one regular file but for it
    ("qrels", "1 0 d1 1\n   # indented\n\t# tabbed\n1 0 d2 0\n", [["1", "d1"], ["1", "d2"]], [1, 4]),
    ("qrels", "1 0 d#1 1\n1 0 #d2 0\n", [["1", "d#1"], ["1", "#d2"]], [1, 2]),                 # a `#` after the start
    ("run", "#1 Q0 d0 1 0.9 t\n1 Q0 d1 1 0.5 t\n", [["1", "d1"]], [2]),                          # a run line commented out
    ("run", "1 Q0 d1 1 0.5 t # a note\n# one\n# two\n1 Q0 d2 2 0.4 t\n", [["1", "d1"], ["1", "d2"]], [1, 4]),
    ("run", "# header\r\n1 Q0 d1 1 0.5 t\r\n", [["1", "d1"]], [2]),                               # Windows line ends
])
def test_comment_lines_skipped(tmp_path, kind, text, rows, lines):
    read = (read_qrels if kind == "qrels" else read_run)(written(tmp_path, text))
    assert read[["query", "doc"]].astype(str).values.tolist() == rows
    assert read["line"].tolist() == lines


def test_run_tag_after_a_comment(tmp_path):
    assert split_file(written(tmp_path, "# made by hand\n1 Q0 d1 1 0.5 mine\n"), "run")[2] == "mine"


@pytest.mark.parametrize("text", ["# nothing\n", "# nothing\n  # here either\n\n", "#"])
def test_only_comments(tmp_path, text):
    path = written(tmp_path, text, "only.run")
    with pytest.raises(TrecFormatError, match=r"only\.run: no run lines \(only comment lines, which start with #\)"):
        read_run(path)


def test_line_numbers_count_comment_lines(tmp_path):
    path = written(tmp_path, "# a\n# b\n1 Q0 d1 1 0.5 t\n  # c\n1 Q0 d2 2 high t\n", "bad.run")
    with pytest.raises(TrecFormatError, match=r"bad\.run, line 5: score 'high' is not a finite number"):
        read_run(path)
    path = written(tmp_path, "# a\n1 0 d1 1\n# b\n1 0 d1\n", "bad.qrels")
    with pytest.raises(TrecFormatError, match=r"bad\.qrels, line 4: expected 4 fields"):
        read_qrels(path)
