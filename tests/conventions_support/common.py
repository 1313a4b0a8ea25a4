"""Shared helpers of the tool runners: the census of issue 19 and tests/test_conventions.py."""
import json, math
from pathlib import Path

CASES_PATH = Path(__file__).resolve().parent.parent / "data" / "conventions" / "cases.json"
MORE_CASES_PATH = CASES_PATH.parent / "cases_more.json"   # the cases of rules the census does not reach


def save(tool, meta, results, derived=False, more=False):
    """Write one tool's census results beside the cases (what `python -m tests.conventions_support.run_<tool>` does);
    `more`: its results on cases_more.json, in results_<tool>[_derived]_more.json."""
    path = CASES_PATH.parent / f"results_{tool}{'_derived' if derived else ''}{'_more' if more else ''}.json"
    path.write_text(json.dumps({"tool": tool, "derived": derived, **meta, "cases": results}, indent=1, ensure_ascii=False))
    print("wrote", path)


def load_cases(more=False):
    with open(MORE_CASES_PATH if more else CASES_PATH) as f:
        return json.load(f)


def clean(x):
    if x is None:
        return None
    try:
        x = float(x)
    except Exception:
        return str(x)
    return x if math.isfinite(x) else str(x)


def run_variant(fn, case):
    """fn(case) -> (per_query dict, mean); a refusal of the tool is recorded as {'error': ...}."""
    try:
        per_query, mean = fn(case)
        return {"per_query": {q: clean(v) for q, v in per_query.items()}, "mean": clean(mean)}
    except Exception as e:
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
            for rank, (d, s) in enumerate(docs.items(), 1):
                f.write(f"{q} Q0 {d} {rank} {s!r} run\n")
