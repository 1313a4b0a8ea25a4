"""Shared helpers for the run_<tool>.py scripts (issue 19 research)."""
import json, math, sys, traceback, time

CASES_PATH = "/work/research19/cases.json"


def load_cases():
    with open(CASES_PATH) as f:
        return json.load(f)


def clean(x):
    if x is None:
        return None
    try:
        x = float(x)
    except Exception:
        return str(x)
    return x if math.isfinite(x) else str(x)


def save(tool, meta, results, derived=False):
    path = f"/work/research19/results_{tool}{'_derived' if derived else ''}.json"
    with open(path, "w") as f:
        json.dump({"tool": tool, "derived": derived, **meta, "cases": results}, f, indent=1, ensure_ascii=False)
    print("wrote", path)


def run_variant(fn, case):
    """fn(case) -> (per_query dict, mean) ; errors are recorded."""
    try:
        per_query, mean = fn(case)
        return {"per_query": {q: clean(v) for q, v in per_query.items()}, "mean": clean(mean)}
    except Exception as e:  # the tool refused or crashed: that is a finding too
        return {"error": f"{type(e).__name__}: {str(e)[:300]}"}


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def write_trec_files(case, qrels_path, run_path, sort_scores=False):
    with open(qrels_path, "w") as f:
        for q, docs in case["qrels"].items():
            for d, g in docs.items():
                f.write(f"{q} 0 {d} {g}\n")
    with open(run_path, "w") as f:
        for q, docs in case["run"].items():
            items = list(docs.items())
            for rank, (d, s) in enumerate(items, 1):
                f.write(f"{q} Q0 {d} {rank} {s!r} run\n")
