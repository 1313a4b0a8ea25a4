"""The metric_objects workload: NDCG@10 accumulated over a validation loop's batches, update + compute, side by side
in one run: ndcg_nb's NdcgTorchMetric and NdcgAccumulator under the `torchmetrics` preset against torchmetrics'
RetrievalNormalizedDCG(top_k=10), on the same torch tensors (CPU).

Data (made in each child, seeded, untimed): documents in queries of 1 to 39 documents (20 on average), laid out
query after query and cut into equal batches, so that queries at a batch's edge span two batches; float32 scores
with ties (4 decimals), grades 0-4 (1 in 20 queries without a relevant document). One call = a new metric, `update`
on every batch, `compute()`. Each tool runs in a child of its own (`python -m ndcg_bench.metric_objects`, one JSON
job on stdin, one MARK line out, as child.py's protocol); its import is timed first. Values: the three numbers are
compared to 1e-6 (torchmetrics computes in float32).
"""
import json
import statistics
import subprocess
import sys
import time

from . import TOOLS
from .child import MARK, timed_imports
from .session import note

TOOL_LABELS = {"NdcgTorchMetric": "ndcg_nb NdcgTorchMetric(10, preset='torchmetrics')",
               "NdcgAccumulator": "ndcg_nb NdcgAccumulator(10, preset='torchmetrics')",
               "torchmetrics": "torchmetrics RetrievalNormalizedDCG(top_k=10)"}
IMPORTS = {"NdcgTorchMetric": [("torch", None), ("ndcg_nb.integrations.torchmetrics_metric", "NdcgTorchMetric")],
           "NdcgAccumulator": [("torch", None), ("ndcg_nb", "NdcgAccumulator")],
           "torchmetrics": [("torch", None), ("torchmetrics.retrieval", "RetrievalNormalizedDCG")]}
TORCH_TOLERANCE = 1e-6


# --- child side ---------------------------------------------------------------------------------------

def batches(documents: int, queries: int, count: int, seed: int = 11) -> list:
    "`count` batches of (preds, target, indexes) tensors: `documents` documents in about `queries` queries."
    import numpy as np
    import torch
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, queries)
    qid = np.repeat(np.arange(queries), sizes)[:documents]
    qid = np.concatenate([qid, np.full(documents - len(qid), queries)])       # any shortfall: one more query
    target = rng.integers(0, 5, documents) * (rng.random(documents) < 0.3)
    target[qid % 20 == 0] = 0
    preds = rng.random(documents).round(4).astype(np.float32)
    parts = np.array_split(np.arange(documents), count)
    return [(torch.from_numpy(preds[p]), torch.from_numpy(target[p].astype(np.int64)), torch.from_numpy(qid[p]))
            for p in parts]


def make_metric(tool: str):
    if tool == "NdcgTorchMetric":
        from ndcg_nb.integrations.torchmetrics_metric import NdcgTorchMetric
        return NdcgTorchMetric(10, preset="torchmetrics")
    if tool == "NdcgAccumulator":
        from ndcg_nb import NdcgAccumulator
        return NdcgAccumulator(10, preset="torchmetrics")
    from torchmetrics.retrieval import RetrievalNormalizedDCG
    return RetrievalNormalizedDCG(top_k=10)


def one_call(tool: str, data: list) -> float:
    "A new metric, every batch updated, then computed: the NDCG@10 as a float."
    metric = make_metric(tool)
    for preds, target, indexes in data:
        metric.update(preds, target, indexes)
    value = metric.compute()
    return float(value.item() if hasattr(value, "item") else value)


def measure(job: dict) -> dict:
    "Import the tool (timed), make the batches (timed: load), then `repeats` calls; times, peaks and the value."
    from .machine import peak_rss_kb
    import_s = timed_imports(IMPORTS[job["tool"]])
    started = time.perf_counter()
    data = batches(*job["size"])
    load_s = time.perf_counter() - started
    base_kb, times, peak_kb, value = peak_rss_kb(), [], None, None
    for i in range(job["repeats"]):
        start = time.perf_counter()
        value = one_call(job["tool"], data)
        times.append(time.perf_counter() - start)
        peak_kb = peak_kb or peak_rss_kb()
    return {"times": times, "first": times[0], "best": min(times), "warm": min(times[1:]) if len(times) > 1 else None,
            "median": statistics.median(times[1:] or times), "import_s": import_s, "load_s": load_s,
            "process": import_s + times[0], "setup_s": import_s + load_s, "base_mb": base_kb / 1024,
            "peak_mb": peak_kb / 1024, "peak_all_mb": peak_rss_kb() / 1024, "value": value}


def main():
    job = json.loads(sys.stdin.read())
    print(MARK + json.dumps(measure(job)), flush=True)


# --- parent side --------------------------------------------------------------------------------------

def run_in_child(job: dict, timeout=3600) -> dict:
    done = subprocess.run([sys.executable, "-m", "ndcg_bench.metric_objects"], input=json.dumps(job),
                          capture_output=True, text=True, timeout=timeout, cwd=TOOLS)
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    if done.returncode != 0 or not lines:
        return {"error": "\n".join((done.stderr or done.stdout).strip().splitlines()[-12:]) or "no answer"}
    return json.loads(lines[-1][len(MARK):])


def data(size, data_dir) -> dict:
    return {}                                  # each child makes its batches (seeded), nothing cached on disk


def run(session, metas, size):
    "The three metric objects on the same batches, each in a child of its own; their values compared."
    documents, queries, count = size
    w = session.add_workload({"name": "metric_objects", "kind": "metric_objects", "rows": [],
                              "title": f"NDCG@10 over a validation loop: update on {count} batches + compute, "
                                       f"{documents:,} documents in {queries:,} queries (torch tensors, CPU)",
                              "data": {"documents": documents, "queries": queries, "batches": count}})
    repeats = 1 if session.only_check else session.args.repeats or session.repeats
    try:
        import torchmetrics  # noqa: F401  (the peer; without it the workload is skipped)
    except ImportError:
        w["skipped"] = "torchmetrics is not installed"
        return
    for tool, label in TOOL_LABELS.items():
        note(f"  metric_objects: {label} ...")
        result = run_in_child({"tool": tool, "size": list(size), "repeats": repeats})
        row = {"tool": "torchmetrics" if tool == "torchmetrics" else "ndcg_nb", "label": label, **result}
        if tool != "torchmetrics":
            row["reference"] = TOOL_LABELS["torchmetrics"]
        note(f"    failed: {row['error']}" if "error" in row else
             f"    import {row['import_s']:.3f} s, first {row['first']:.3f} s, best {row['best']:.3f} s, "
             f"peak {row['peak_mb']:.0f} MB")
        session.failed = session.failed or "error" in row
        w["rows"].append(row)
    theirs = w["rows"][-1]
    for row in w["rows"][:-1]:
        if "value" in row and "value" in theirs:
            session.check(row, value_check(row["value"], theirs["value"]))


def value_check(ours: float, theirs: float) -> dict:
    worst = abs(ours - theirs)
    ok = worst <= TORCH_TOLERANCE
    return {"ok": ok, "max_abs_diff": worst, "compared": 1, "tolerance": TORCH_TOLERANCE,
            "detail": f"NDCG@10 {ours:.7f} vs torchmetrics {theirs:.7f}: |diff| {worst:.1e}"
                      + ("" if ok else f" > {TORCH_TOLERANCE:g}")}


def targets(session, targets):
    from .report import find_row
    from .workloads import time_target
    w = next((w for w in session.workloads if w["name"] == "metric_objects"), None)
    if w and not w.get("skipped"):
        d = w["data"]
        time_target(targets, f"metric_objects: NdcgTorchMetric no slower than torchmetrics' RetrievalNormalizedDCG "
                    f"({d['documents']:,} documents, {d['queries']:,} queries, {d['batches']} batches)",
                    find_row(w, TOOL_LABELS["NdcgTorchMetric"]), find_row(w, TOOL_LABELS["torchmetrics"]), 1, "<=",
                    "ndcg_nb update + compute / torchmetrics update + compute", basis="first")


# (documents, queries, batches) per mode; the workload is the full one
SIZES = {"only-check": (20_000, 1_000, 20), "quick": (200_000, 10_000, 40), "full": (1_000_000, 50_000, 200)}
PARTS = (SIZES, data, run, targets)       # a Workload's sizes, data, run and targets, in workloads.py's REGISTRY


if __name__ == "__main__":
    main()
