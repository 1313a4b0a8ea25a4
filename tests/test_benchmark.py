"""tools/benchmark.py must keep working: its --only-check mode runs every workload on tiny data, one
call per tool, and compares ndcg_nb's values with pytrec_eval, ranx, ir_measures and scikit-learn.
Nothing is timed here and no performance is asserted: timings belong to `python tools/benchmark.py`."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_benchmark_only_check(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "benchmark.py"), "--only-check",
                           "--data-dir", str(tmp_path), "--json", str(tmp_path / "check.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "all values agree" in done.stdout
    assert "VALUES DIFFER" not in done.stdout and "FAILED" not in done.stdout
    assert (tmp_path / "check.json").exists()


def test_benchmark_distributed_only_check(tmp_path):
    "The distributed workload (not in the default set) on tiny data: Dask vs in memory, and the bounded-memory steps."
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "benchmark.py"), "--only-check", "--workloads",
                           "distributed", "--data-dir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "all values agree" in done.stdout      # 300 queries, 2 measures, 2 copies: 1,200 values
    assert "per-query values written by the workers, each copy vs the in-memory values of the original run: " \
           "max |diff| 0.0e+00 over 1,200 query values (2 copies x the original's)" in done.stdout, done.stdout


def test_benchmark_child_protocol(tmp_path):
    "The one child protocol of tools/ndcg_bench: a JSON job on stdin, one marked JSON line back (here: generate, measure)."
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from ndcg_bench.child import run_child
        from ndcg_bench.data import trec_spec
    finally:
        sys.path.remove(str(ROOT / "tools"))
    metas = run_child({"job": "generate", "plan": {"tiny": trec_spec(tmp_path, "trec-20x5", 20, 5, seed=1)}})
    assert metas["tiny"]["queries"] == 20 and metas["tiny"]["run_lines"] == 100, metas
    measured = run_child({"job": "measure", "kind": "files", "repeats": 2, "values": str(tmp_path / "values.npz"),
                          "args": {"tool": "ndcg_nb", "qrels": metas["tiny"]["qrels"], "run": metas["tiny"]["run"]}})
    assert len(measured["times"]) == 2 and measured["best"] <= measured["first"], measured
    assert (tmp_path / "values.npz").exists()
    assert "error" in run_child({"job": "no such job"})
