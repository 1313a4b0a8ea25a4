"""tools/benchmark.py must keep working: its --only-check mode runs every workload on tiny data, one
call per tool (one process per start-up command, one `ndcg-nb eval`), and compares ndcg_nb's values with
pytrec_eval, ranx, ir_measures and scikit-learn. No performance is asserted: timings belong to
`python tools/benchmark.py`."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bench_modules():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from ndcg_bench import child, data, processes
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return child, data, processes


def test_benchmark_only_check(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "benchmark.py"), "--only-check",
                           "--data-dir", str(tmp_path), "--json", str(tmp_path / "check.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "all values agree" in done.stdout
    assert "VALUES DIFFER" not in done.stdout and "FAILED" not in done.stdout
    # the start-up commands ran, and the command line's values agree with pytrec_eval's process
    assert "ran: prints 'ndcg-nb " in done.stdout and "ran: prints the usage" in done.stdout, done.stdout
    assert "values agree: vs `ndcg-nb eval -q --format csv`, per query" in done.stdout, done.stdout
    results = json.loads((tmp_path / "check.json").read_text())
    workloads = {w["name"]: w for w in results["workloads"]}
    assert [r["command"] for r in workloads["startup"]["rows"]] == [
        "python -c pass", "python -c 'import ndcg_nb'", "ndcg-nb --version", "ndcg-nb --help",
        "python -c 'import pytrec_eval'"]
    assert all(r["peak_mb"] > 0 and r["process"] > 0 for r in workloads["startup"]["rows"])
    ours = workloads["files-300x30"]["rows"][0]
    assert ours["process"] == ours["import_s"] + ours["first"] and ours["peak_all_mb"] >= ours["peak_mb"], ours
    assert results["ndcg_nb_from_checkout"] is True


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
    child, data, _ = _bench_modules()
    run_child, trec_spec = child.run_child, data.trec_spec
    metas = run_child({"job": "generate", "plan": {"tiny": trec_spec(tmp_path, "trec-20x5", 20, 5, seed=1)}})
    assert metas["tiny"]["queries"] == 20 and metas["tiny"]["run_lines"] == 100, metas
    measured = run_child({"job": "measure", "kind": "files", "repeats": 2, "values": str(tmp_path / "values.npz"),
                          "args": {"tool": "ndcg_nb", "qrels": metas["tiny"]["qrels"], "run": metas["tiny"]["run"]}})
    assert len(measured["times"]) == 2 and measured["best"] <= measured["first"], measured
    assert measured["import_s"] > 0 and measured["process"] == measured["import_s"] + measured["first"], measured
    assert (tmp_path / "values.npz").exists()
    assert "error" in run_child({"job": "no such job"})


def test_benchmark_whole_process_measure(tmp_path):
    "The spawner of processes.py: N fresh runs, the command's own peak RSS (not the parent's), a failure's exit status."
    _, _, processes = _bench_modules()
    ballast = bytearray(300 << 20)   # this process is larger than the command: its RSS must not show
    ballast[::4096] = b"x" * len(ballast[::4096])
    big = processes.run_command([sys.executable, "-c", "x = bytearray(100 << 20); x[::4096] = b'y' * len(x[::4096])"],
                                2, tmp_path, "big")
    assert len(big["process_runs"]) == 2 and big["best"] <= big["process"] <= max(big["process_runs"]), big
    assert 100 < big["peak_mb"] < 250, big
    failed = processes.run_command([sys.executable, "-c", "import sys; sys.exit(3)"], 3, tmp_path, "failed")
    assert failed["error"].startswith("exit status 3"), failed
    del ballast
