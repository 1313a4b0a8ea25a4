"""The `ndcg-nb` script's exit (`ndcg_nb.__main__.run`): it ends the process as soon as `main` is done, without
Python's teardown, keeping `main`'s status and output; once Dask (or Spark) is loaded it exits as Python
does, so that their clusters shut down. Each case runs in a fresh process, with an `atexit` handler that
prints a marker: the marker shows whether Python's own exit ran."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ndcg_nb
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN

ROOT = Path(ndcg_nb.__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NDCG_NB_LOAD_PLUGINS": ""}
MARKER = "ATEXIT-RAN"


def script(argv, before=""):
    "The `ndcg-nb` script with `argv`, in a fresh process; `before` runs first."
    code = (f"import atexit, sys\n{before}\natexit.register(lambda: print({MARKER!r}, file=sys.stderr))\n"
            f"sys.argv = ['ndcg-nb', *{list(argv)!r}]\nfrom ndcg_nb.__main__ import run\nrun()\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT,
                          timeout=120)


def in_process(argv):
    "What `main` itself prints and returns for `argv`, in a fresh process, exiting as Python does."
    code = (f"import sys\nfrom ndcg_nb.__main__ import main\nsys.exit(main({list(argv)!r}))\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT,
                          timeout=120)


EVAL = ["eval", str(SAMPLE_QRELS), str(SAMPLE_RUN), "-m", "ndcg", "-m", "ndcg_cut.10", "-q"]


def test_the_script_skips_the_teardown_and_keeps_output_and_status():
    done, reference = script(EVAL), in_process(EVAL)
    assert done.returncode == reference.returncode == 0, done.stderr
    assert done.stdout == reference.stdout and done.stdout.count("\n") > 10
    assert MARKER not in done.stderr


def test_an_error_keeps_its_status_and_message():
    missing = str(ROOT / "tests" / "data" / "no such file.run")
    done, reference = script(["eval", str(SAMPLE_QRELS), missing]), in_process(["eval", str(SAMPLE_QRELS), missing])
    assert done.returncode == reference.returncode == 1
    assert done.stderr.startswith("ndcg-nb: error:") and done.stderr == reference.stderr
    assert MARKER not in done.stderr


@pytest.mark.parametrize("engine", ["distributed", "pyspark"])
def test_after_dask_or_spark_python_exits_as_usual(engine):
    # a stand-in module under the engine's name: what the exit looks at is whether it was imported
    done = script(EVAL, before=f"import types\nsys.modules[{engine!r}] = types.ModuleType({engine!r})")
    assert done.returncode == 0, done.stderr
    assert MARKER in done.stderr and done.stdout.count("\n") > 10
