"""The `comparisons` workload: twelve made-up runs of 250 queries compared pair by pair, as a results section of a
paper compares them: `compare` with every pair, the t-test, the randomization test, Tukey's HSD and the randomised
Tukey HSD (10,000 random sign assignments per pair, 10,000 shuffles of the topics), from the runs as dicts to the
table. The target: under 10 s for the first call in a fresh process (SciPy's import included).

The measured process is a child of its own (`python -m ndcg_bench.comparisons`, one JSON job on stdin, one line
MARK + JSON out, as child.py's protocol): it times the import, making the runs, and each call; it checks that a
second call with the same seed gives the same table and that Tukey's p-values are `scipy.stats.tukey_hsd`'s.
"""
import json
import statistics
import sys
import time

from . import TOOLS
from .child import MARK
from .report import find_row, warm_of

TESTS = ("t", "randomization", "tukey", "randomized_tukey")
LIMIT_S = 10.0


# --- parent side --------------------------------------------------------------------------------------

def data(size, data_dir):
    "Nothing to generate: the child makes its runs (seeded), timed as its load."
    return {}


def _run_child(job: dict) -> dict:
    import subprocess
    done = subprocess.run([sys.executable, "-m", "ndcg_bench.comparisons"], input=json.dumps(job), capture_output=True,
                          text=True, timeout=3600, cwd=TOOLS)
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    if done.returncode != 0 or not lines:
        return {"error": "\n".join((done.stderr or done.stdout).strip().splitlines()[-12:]) or str(done.returncode)}
    return json.loads(lines[-1][len(MARK):])


def run(session, metas, size):
    "One child: `repeats` calls of the whole comparison (at least 2: a first and a warm figure)."
    systems, queries, permutations = size
    w = session.add_workload({"name": "comparisons", "kind": "comparisons", "rows": [], "lines": [],
                              "title": f"{systems} runs x {queries} queries, every pair: t, randomization, Tukey "
                                       f"HSD, randomised Tukey HSD ({permutations:,} permutations), from dicts"})
    repeats = 1 if session.only_check else max(2, session.args.repeats or 3)
    row = {"tool": "ndcg_nb", "label": "ndcg_nb compare",
           **_run_child({"systems": systems, "queries": queries, "permutations": permutations, "repeats": repeats})}
    if "check" in row and not row["check"]["ok"]:
        session.failed = True
    if "error" in row:
        session.failed = True
    w["rows"].append(row)
    if "first" in row:
        w["lines"].append(f"{row['pairs']} pairs x {len(TESTS)} tests: first call {row['first']:.2f} s (SciPy's import "
                          f"included), best {row['best']:.2f} s; target under {LIMIT_S:g} s")
    return w


def targets(session, targets):
    w = next((w for w in session.workloads if w["name"] == "comparisons"), None)
    if w is None:
        return
    row = find_row(w, "ndcg_nb compare")
    first = row.get("first") if row else None
    targets.add(f"comparisons: every pair of 12 runs x 250 queries with Tukey HSD and 10,000 randomisations "
                f"in under {LIMIT_S:g} s", LIMIT_S, "<=", "seconds of the first `compare` call in a fresh process, "
                "runs evaluated inside it; warm: the best call", head=(first, [row]), warm=(warm_of(row), [row]),
                basis="first call")


# --- child side ---------------------------------------------------------------------------------------

def _check(table, again, evaluated) -> dict:
    "The same seed gives the same table; Tukey's p-values are SciPy's."
    import numpy as np
    from scipy import stats
    same = table.drop(columns=["detail"]).equals(again.drop(columns=["detail"]))
    scores = evaluated.scores("ndcg")
    reference = stats.tukey_hsd(*scores.to_numpy().T).pvalue
    runs = list(scores.columns)
    rows = table[table.test == "tukey"]
    worst = max(abs(r.p_value - reference[runs.index(r.run), runs.index(r.baseline)]) for r in rows.itertuples())
    ok = bool(same and worst <= 1e-12 and np.isfinite(table["p_value"]).all())
    return {"ok": ok, "detail": f"seeded calls identical: {same}; Tukey p vs scipy.stats.tukey_hsd: max |diff| "
                                f"{worst:.1e}"}


def measure(job: dict) -> dict:
    "Import (timed), make the runs (timed as load), call `compare` `repeats` times; times, peak RSS and the check."
    import warnings
    started = time.perf_counter()
    from ndcg_nb.analysis.comparison import compare, evaluate_runs
    from ndcg_nb.analysis.many_systems import simulated_runs
    import_s = time.perf_counter() - started
    from .machine import peak_rss_kb
    started = time.perf_counter()
    qrels, runs = simulated_runs(job["systems"], job["queries"], seed=0)
    load_s = time.perf_counter() - started
    base_kb, times, tables, peak_kb = peak_rss_kb(), [], [], None

    def call():
        return compare(qrels, runs, ["ndcg"], tests=TESTS, permutations=job["permutations"], seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(max(job["repeats"], 2)):
            start = time.perf_counter()
            tables.append(call())
            times.append(time.perf_counter() - start)
            peak_kb = peak_kb or peak_rss_kb()
        evaluated = evaluate_runs(qrels, runs, ["ndcg"])
    times = times[:job["repeats"]] if job["repeats"] > 1 else times[:1]
    return {"times": times, "first": times[0], "best": min(times), "warm": min(times[1:]) if len(times) > 1 else None,
            "median": statistics.median(times[1:] or times), "import_s": import_s, "load_s": load_s,
            "process": import_s + times[0], "setup_s": import_s + load_s, "base_mb": base_kb / 1024,
            "peak_mb": peak_kb / 1024, "peak_all_mb": peak_rss_kb() / 1024, "pairs": len(tables[0]) // len(TESTS),
            "check": _check(tables[0], tables[1], evaluated)}


SIZES = {"only-check": (4, 20, 200), "quick": (12, 250, 10_000), "full": (12, 250, 10_000)}
PARTS = (SIZES, data, run, targets)      # Workload("comparisons", *PARTS)

if __name__ == "__main__":
    print(MARK + json.dumps(measure(json.loads(sys.stdin.read()))), flush=True)
