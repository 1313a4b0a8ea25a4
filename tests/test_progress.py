"""The evaluation progress bar: on a terminal's stderr only, and never when asked for silence."""
import os
import pty
import subprocess
import sys

from ndcg_nb.evaluation import evaluate
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

COMMAND = [sys.executable, "-m", "ndcg_nb", "eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "ndcg"]


def _stderr_on_a_terminal(extra):
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(COMMAND + extra, stdout=subprocess.PIPE, stderr=follower, timeout=120)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return done, b"".join(chunks).decode()
    finally:
        os.close(leader)


def test_bar_on_a_terminal():
    done, stderr = _stderr_on_a_terminal([])
    assert done.returncode == 0
    assert "[####" in stderr and "ndcg" in stderr, stderr


def test_silent_option_on_a_terminal():
    done, stderr = _stderr_on_a_terminal(["--silent"])
    assert done.returncode == 0
    assert stderr == ""


def test_silent_when_not_a_terminal():
    done = subprocess.run(COMMAND, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == ""


def test_python_api_switch(capsys):
    evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", progress=True)
    assert "[####" in capsys.readouterr().err
    evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", progress=False)
    evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg")  # pytest's capture is not a terminal
    assert capsys.readouterr().err == ""
