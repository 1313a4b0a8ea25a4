"""The distributed workload, both sides: in-memory `evaluate` vs `ndcg_nb.integrations.distributed.evaluate` on a
Dask LocalCluster of 2 worker processes (time, peak RSS per worker, values compared); then bounded
memory: the run copied several times, evaluated on workers limited to 1 GB that write the per-query
rows, and (full runs) in-memory evaluation under RLIMIT_AS, which should fail, with a control.

The parent side is `run`; each evaluation is a `distributed` job (child.py) that calls
`evaluate_in_child`, which also reads the workers' own peaks.
"""
import os
import resource
import shutil
import time

from . import ROOT
from .checks import TOLERANCE, compare_copies, compare_queries, load_values
from .child import run_child, save_values
from .data import replicate_trec, trec_spec
from .machine import peak_rss_kb
from .peers import FILE_MEASURES
from .session import note

DISTRIBUTED_COPIES = 6        # the bounded-memory run: the 10M-line run this many times, other query ids
DISTRIBUTED_LIMIT_MB = 1024   # memory per Dask worker, and RLIMIT_AS of the in-memory process beside it


# --- child side ---------------------------------------------------------------------------------------

def _dask_call(spec):
    "A Dask LocalCluster of 2 single-threaded workers, and the call that evaluates the files on it."
    if spec.get("worker_mb"):   # set before dask is imported, here and in the spawned workers:
        # the P2P shuffle buffers up to 1 GiB per worker by default (an eighth of the limit here), and Arrow's
        # own allocator keeps freed memory, which the worker's memory monitor counts
        os.environ["DASK_DISTRIBUTED__P2P__COMM__BUFFER"] = f"{spec['worker_mb'] // 8}MiB"
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    from distributed import Client, LocalCluster

    from ndcg_nb.integrations.distributed import evaluate
    client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                 memory_limit=f"{spec['worker_mb']}MiB" if spec.get("worker_mb") else "auto"))
    call = lambda: evaluate(spec["qrels"], spec["run"], spec["measures"], blocksize=spec.get("blocksize", "16 MiB"),
                            npartitions=spec.get("npartitions"), write_per_query=spec.get("write_per_query"))
    return client, call


def _worker_report(client, pids, spec, report):
    "Each worker's VmHWM (valid for the whole run if no worker restarted) and how many restarted."
    peaks = client.run(peak_rss_kb)
    report["client_peak_mb"], report["peak_mb"] = report["peak_mb"], max(peaks.values()) / 1024
    report["worker_peaks_mb"] = [kb / 1024 for kb in peaks.values()]
    report["worker_restarts"] = sum(pids.get(a) != pid for a, pid in client.run(os.getpid).items())
    report["worker_memory_limit_mb"] = spec.get("worker_mb")
    client.close()


def evaluate_in_child(spec: dict) -> dict:
    "Evaluate TREC files in memory or on a Dask LocalCluster; times, peak RSS (own, per worker), values."
    if spec.get("rlimit_mb"):
        resource.setrlimit(resource.RLIMIT_AS, (spec["rlimit_mb"] << 20, spec["rlimit_mb"] << 20))
    client = pids = None
    if spec["engine"] == "dask":
        client, call = _dask_call(spec)
        pids = client.run(os.getpid)
    else:
        from ndcg_nb.evaluation import evaluate
        call = lambda: evaluate(spec["qrels"], spec["run"], spec["measures"], progress=False)
    base_kb, times, result = peak_rss_kb(), [], None
    try:
        for _ in range(spec["repeats"]):
            result = None
            start = time.perf_counter()
            result = call()
            times.append(time.perf_counter() - start)
    except Exception as exc:  # MemoryError (or Arrow's) is the expected outcome under a small RLIMIT_AS
        return {"refused": f"{type(exc).__name__}: {str(exc)[:200]}", "seconds": time.perf_counter() - start}
    report = {"times": times, "first": times[0], "best": min(times), "base_mb": base_kb / 1024,
              "peak_mb": peak_rss_kb() / 1024, "aggregate": dict(zip(result.aggregate.measure, result.aggregate.value))}
    if client is not None:
        _worker_report(client, pids, spec, report)
    if spec.get("values"):
        frame = result.per_query
        save_values(spec["values"], {m: (frame["query"][frame.measure == m].to_numpy(str),
                                         frame["value"][frame.measure == m].to_numpy(float))
                                     for m in frame.measure.unique()})
        report["values"] = spec["values"]
    return report


# --- parent side --------------------------------------------------------------------------------------

def data(size, data_dir):
    q, d = size
    return {"distributed": trec_spec(data_dir, f"trec-{q}x{d}-distributed", q, d, seed=6)}


def _evaluate(spec: dict) -> dict:
    "One `distributed` job in a fresh child (see evaluate_in_child)."
    return run_child({"job": "distributed", **spec})


def _in_memory_and_dask(session, w, common) -> dict:
    "One row each: in-memory evaluate and the Dask cluster on the same files, values compared per query."
    rows = {}
    for engine, label in (("memory", "in-memory evaluate, 1 process"), ("dask", "ndcg_nb.integrations.distributed, 2 workers")):
        note(f"  distributed: {label} ...")
        values = str(session.values_dir / f"distributed-{engine}.npz")
        result = _evaluate({**common, "engine": engine, "values": values})
        row = {"tool": "ndcg_nb", "label": label, **{k: v for k, v in result.items() if k not in ("values", "refused")}}
        if "values" in result:
            row["_values"] = load_values(result["values"])
            os.unlink(result["values"])
        if "best" not in row:
            row["error"] = result.get("error") or result.get("refused")
            session.failed = True
        w["rows"].append(row)
        rows[engine] = row
    rows["dask"]["reference"] = rows["memory"]["label"]
    if "_values" in rows["memory"] and "_values" in rows["dask"]:
        session.check(rows["dask"], compare_queries(rows["memory"]["_values"], rows["dask"]["_values"],
                                                    ["ndcg", "ndcg_cut_10"]))
    return rows


def _in_memory_under_rlimit(session, w, common, limited):
    "Full runs: in-memory evaluate limited to the workers' memory fails on the large run, not on the sample data."
    control = _evaluate({**common, "qrels": str(ROOT / "ndcg_nb" / "data" / "sample.qrels"),
                         "run": str(ROOT / "ndcg_nb" / "data" / "sample.run"), "repeats": 1, "engine": "memory",
                         "rlimit_mb": DISTRIBUTED_LIMIT_MB})
    alone = _evaluate({**limited, "engine": "memory", "rlimit_mb": DISTRIBUTED_LIMIT_MB})
    w["bounded"].update({"in_memory_control": control, "in_memory": alone})
    if "best" not in control or "refused" not in alone:    # without both, the limit shows nothing
        session.failed = True
    w["lines"].append("  in memory, RLIMIT_AS {0} MB, sample data (control): {1}".format(
        DISTRIBUTED_LIMIT_MB, "evaluated" if "best" in control else f"FAILED {control}"))
    w["lines"].append("  in memory, RLIMIT_AS {0} MB, the large run: {1}".format(
        DISTRIBUTED_LIMIT_MB, f"fails as expected after {alone['seconds']:.1f} s ({alone['refused']})"
        if "refused" in alone else f"NOT REFUSED, so this run does not show the bound: {alone}"))


def _bounded_dask_lines(session, w, dask, reference):
    "The bounded Dask run's line: time, worker peaks, restarts, means; then the per-query check line."
    worst = max((abs(dask["aggregate"][m] - v) for m, v in reference.items()), default=float("nan"))
    w["lines"].append(f"  Dask, 2 workers of {DISTRIBUTED_LIMIT_MB} MB: done in {dask['best']:.1f} s; peak RSS per worker "
                      f"{', '.join(f'{x:.0f}' for x in dask['worker_peaks_mb'])} MB, client {dask['client_peak_mb']:.0f} MB; "
                      f"workers restarted: {dask['worker_restarts']}; means vs the single run's: max |diff| {worst:.1e}")
    if worst > TOLERANCE:
        session.failed = True
    if dask["worker_restarts"]:     # a restart means a worker passed its limit; its peak then covers only the rest
        session.failed = True
        w["lines"].append(f"  BOUND NOT SHOWN: {dask['worker_restarts']} worker(s) restarted during the run")
    if "check" in dask:
        w["lines"].append(f"  per-query values written by the workers, each copy vs the in-memory values of the "
                          f"original run: {dask['check']['detail']}")


def _bounded_on_dask(session, w, limited, memory_row, copies):
    "The copied run on workers limited to DISTRIBUTED_LIMIT_MB, which write every per-query row, checked."
    written = session.values_dir / "distributed-bounded-per-query"      # the workers write every per-query row
    dask = _evaluate({**limited, "engine": "dask", "worker_mb": DISTRIBUTED_LIMIT_MB, "blocksize": "8 MiB",
                      "npartitions": 4 if session.only_check else 1200,    # 1200: ~50,000 run lines each
                      "write_per_query": str(written)})
    if "best" in dask and "_values" in memory_row:
        session.check(dask, compare_copies(written, memory_row["_values"], copies))
        shutil.rmtree(written)
    w["bounded"]["dask"] = dask
    if "best" in dask:
        _bounded_dask_lines(session, w, dask, memory_row.get("aggregate", {}))
    else:
        session.failed = True
        w["lines"].append(f"  Dask, 2 workers of {DISTRIBUTED_LIMIT_MB} MB: FAILED {dask}")


def _bounded_memory(session, w, meta, common, memory_row):
    "--only-check: the same steps on the tiny data, 2 copies, so that this code is run in CI; it proves nothing."
    copies = 2 if session.only_check else DISTRIBUTED_COPIES
    big = replicate_trec(meta, copies)
    w["bounded"] = {"run": big["run"], "run_lines": meta["run_lines"] * copies, "run_bytes": big["run_bytes"],
                    "limit_mb": DISTRIBUTED_LIMIT_MB}
    size = f"{meta['run_lines'] * copies:,} lines, {big['run_bytes'] / 2**30:.1f} GiB of text"
    note(f"  distributed: bounded memory, {size} ...")
    limited = {**common, "qrels": big["qrels"], "run": big["run"], "repeats": 1}
    w["lines"].append(f"bounded memory: the run copied {copies} times ({size}), limit {DISTRIBUTED_LIMIT_MB} MB")
    if not session.only_check:
        _in_memory_under_rlimit(session, w, common, limited)
    _bounded_on_dask(session, w, limited, memory_row, copies)


def run(session, metas, size):
    "In-memory vs Dask on one run, values compared; then (not --quick) bounded memory on a run several times larger."
    meta = metas["distributed"]
    w = session.add_workload({"name": "distributed", "kind": "distributed", "data": meta, "rows": [], "lines": [],
                              "title": "TREC files to numbers in one process vs on a Dask LocalCluster of 2 worker "
                                       "processes (1 thread each); peak = max over the workers' own RSS"})
    common = {"qrels": meta["qrels"], "run": meta["run"], "measures": FILE_MEASURES,
              "repeats": session.args.repeats or 1}
    rows = _in_memory_and_dask(session, w, common)
    dask = rows["dask"]
    if "worker_peaks_mb" in dask:
        w["lines"].append(f"Dask: peak RSS per worker {', '.join(f'{x:.0f}' for x in dask['worker_peaks_mb'])} MB, "
                          f"client {dask['client_peak_mb']:.0f} MB; workers restarted: {dask['worker_restarts']}")
    if not session.args.quick:
        _bounded_memory(session, w, meta, common, rows["memory"])
    return w
