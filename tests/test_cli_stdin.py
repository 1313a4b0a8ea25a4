"""The command line reads the qrels or one run from `-` (standard input), as trec_eval users pipe runs:
`cat run | ndcg-nb eval qrels -`. Plain or gzip; errors name `<stdin>` and the line; `-` twice is refused. Piped
through real processes, and in-process with `sys.stdin` replaced."""
import gzip
import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import ndcg_nb
from ndcg_nb.__main__ import main
from ndcg_nb.analysis.report_page import embedded_data
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

ROOT = Path(ndcg_nb.__file__).resolve().parents[1]
SAMPLE_B = SAMPLE_RUN.with_name("sample_b.run")
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NDCG_NB_LOAD_PLUGINS": ""}


def ndcg_nb_process(*argv, stdin: bytes = b"") -> subprocess.CompletedProcess:
    "`python -m ndcg_nb ARGV` in a process of its own, `stdin` piped into it."
    return subprocess.run([sys.executable, "-m", "ndcg_nb", *map(str, argv)], input=stdin, capture_output=True,
                          env=ENV, cwd=ROOT, timeout=300)


class Stdin(io.TextIOWrapper):
    "`sys.stdin` as a pipe makes it: text over a binary buffer that calls itself `<stdin>`."
    def __init__(self, data: bytes):
        buffer = io.BufferedReader(io.BytesIO(data))
        super().__init__(buffer)

    @property
    def buffer(self):
        return _Named(super().buffer)


class _Named:
    "A binary stream called `<stdin>`, as `sys.stdin.buffer` is."
    name = "<stdin>"

    def __init__(self, stream):
        self.stream = stream

    def read(self, size=-1):
        return self.stream.read(size)

    def peek(self, size=0):
        return self.stream.peek(size)


def run_cli(monkeypatch, capsys, *argv, stdin: bytes = b""):
    monkeypatch.setattr(sys, "stdin", Stdin(stdin))
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---- through real pipes

def test_eval_reads_the_run_from_a_shell_pipe():
    named = ndcg_nb_process("eval", SAMPLE_QRELS, SAMPLE_RUN, "-m", "nDCG@10", "-q")
    command = (f"cat {shlex.quote(str(SAMPLE_RUN))} | {shlex.quote(sys.executable)} -m ndcg_nb eval "
               f"{shlex.quote(str(SAMPLE_QRELS))} - -m nDCG@10 -q")
    piped = subprocess.run(command, shell=True, capture_output=True, env=ENV, cwd=ROOT, timeout=300)
    assert named.returncode == piped.returncode == 0, piped.stderr
    assert piped.stdout == named.stdout and piped.stderr == named.stderr
    assert b"\t101\t" in piped.stdout and b"\tall\t" in piped.stdout


def test_eval_reads_gzip_and_the_qrels_from_standard_input():
    named = ndcg_nb_process("eval", SAMPLE_QRELS, SAMPLE_RUN, "-m", "ndcg", "-m", "nDCG@5", "-q")
    run_gz = ndcg_nb_process("eval", SAMPLE_QRELS, "-", "-m", "ndcg", "-m", "nDCG@5", "-q",
                             stdin=gzip.compress(SAMPLE_RUN.read_bytes()))
    qrels = ndcg_nb_process("eval", "-", SAMPLE_RUN, "-m", "ndcg", "-m", "nDCG@5", "-q", stdin=SAMPLE_QRELS.read_bytes())
    for piped in (run_gz, qrels):
        assert (piped.returncode, piped.stdout, piped.stderr) == (0, named.stdout, named.stderr)


def test_errors_name_stdin_and_the_line():
    bad = SAMPLE_RUN.read_bytes() + b"106 Q0 DOC-106-01 1 NaN sample\n"
    lines = SAMPLE_RUN.read_bytes().count(b"\n") + 1
    done = ndcg_nb_process("eval", SAMPLE_QRELS, "-", stdin=gzip.compress(bad))
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode().strip() == (f"ndcg-nb: error: <stdin>, line {lines}: score 'NaN' is not a finite number "
                                            "(query '106', document 'DOC-106-01')")
    twice = ndcg_nb_process("eval", "-", "-", stdin=SAMPLE_RUN.read_bytes())
    assert twice.returncode == 2 and "`-` (standard input) is given 2 times" in twice.stderr.decode()


# ---- in-process, sys.stdin replaced

def test_compare_with_a_run_on_standard_input(monkeypatch, capsys):
    argv = ["-m", "nDCG@10", "-m", "ndcg", "--format", "json", "--test", "t", "--test", "bootstrap"]
    named = run_cli(monkeypatch, capsys, "compare", SAMPLE_QRELS, SAMPLE_RUN, SAMPLE_B, *argv)
    assert run_cli(monkeypatch, capsys, "compare", SAMPLE_QRELS, "-", SAMPLE_B, *argv, stdin=SAMPLE_RUN.read_bytes()) == named
    assert run_cli(monkeypatch, capsys, "compare", "-", SAMPLE_RUN, SAMPLE_B, *argv, stdin=SAMPLE_QRELS.read_bytes()) == named
    code, _, err = run_cli(monkeypatch, capsys, "compare", SAMPLE_QRELS, "-", "-", stdin=SAMPLE_RUN.read_bytes())
    assert code == 2 and "given 2 times" in err


def test_a_piped_run_with_the_tag_of_another_is_called_stdin(monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, "compare", SAMPLE_QRELS, SAMPLE_RUN, "-", "-m", "nDCG@10", "--format",
                             "json", "--test", "t", stdin=SAMPLE_RUN.read_bytes())
    assert code == 0, err
    assert [(row["run"], row["baseline"]) for row in json.loads(out)] == [("<stdin>", "sample.run")]


def test_report_and_explain_presets_read_standard_input(monkeypatch, capsys, tmp_path):
    pages = {}
    for name, run in (("named", str(SAMPLE_B)), ("piped", "-")):
        pages[name] = tmp_path / f"{name}.html"
        code, out, err = run_cli(monkeypatch, capsys, "report", SAMPLE_QRELS, SAMPLE_RUN, run, "-o", pages[name],
                                 "-m", "nDCG@10", "--resamples", "200", "--permutations", "200",
                                 stdin=SAMPLE_B.read_bytes())
        assert code == 0 and out.startswith("wrote "), err
    assert embedded_data(pages["piped"]) == embedded_data(pages["named"])
    named = run_cli(monkeypatch, capsys, "explain-presets", SAMPLE_QRELS, SAMPLE_RUN, "--preset", "trec_eval", "--preset", "sklearn")
    piped = run_cli(monkeypatch, capsys, "explain-presets", SAMPLE_QRELS, "-", "--preset", "trec_eval", "--preset",
                    "sklearn", stdin=SAMPLE_RUN.read_bytes())
    assert piped == named and named[0] == 0


def test_bounds_of_several_runs_name_the_piped_one(monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, "eval", SAMPLE_QRELS, SAMPLE_RUN, "-", "-m", "nDCG@10", "--bounds",
                             stdin=SAMPLE_B.read_bytes())
    assert code == 0, err
    assert [line for line in out.splitlines() if line.startswith("run ")] == [f"run {SAMPLE_RUN}", "run <stdin>"]


def test_qrels_duplicates_on_standard_input(monkeypatch, capsys):
    twice = SAMPLE_QRELS.read_bytes() + SAMPLE_QRELS.read_bytes().splitlines(keepends=True)[0]
    code, _, err = run_cli(monkeypatch, capsys, "eval", "-", SAMPLE_RUN, stdin=twice)
    assert code == 1 and err.startswith("ndcg-nb: error: <stdin>: document ") and "--qrels-duplicates" in err, err
    named = run_cli(monkeypatch, capsys, "eval", SAMPLE_QRELS, SAMPLE_RUN)
    assert run_cli(monkeypatch, capsys, "eval", "-", SAMPLE_RUN, "--qrels-duplicates", "first", stdin=twice) == named


def test_refused_with_dask_and_from_a_terminal(monkeypatch, capsys):
    code, _, err = run_cli(monkeypatch, capsys, "eval", SAMPLE_QRELS, "-", "--dask", "local", stdin=b"")
    assert code == 2 and "--dask reads its files where it runs" in err

    class Terminal(io.StringIO):
        buffer = io.BytesIO()

        def isatty(self):
            return True
    monkeypatch.setattr(sys, "stdin", Terminal())
    assert main(["eval", str(SAMPLE_QRELS), "-"]) == 2
    assert "which is a terminal here" in capsys.readouterr().err


def test_help_says_dash_is_standard_input(capsys):
    for command in ("eval", "compare", "report", "explain-presets"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "reads standard input" in " ".join(capsys.readouterr().out.split()), command
