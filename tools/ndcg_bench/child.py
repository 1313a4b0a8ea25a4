"""The one child-process protocol: `python -m ndcg_bench.child` reads one JSON job from stdin, does it
and prints one line, MARK followed by a JSON answer. A job is {"job": name, ...}:

  generate     {"plan": {key: (kind, kwargs)}}: generate (or find) the data -> {key: description}
  measure      {"kind", "args", "repeats", "values"}: set up one tool (peers.py), call it `repeats`
               times -> times, first/best/warm, base and peak RSS; values saved to the .npz `values`
  import       import ndcg_nb and nothing else -> {"peak_mb"}
  distributed  evaluate TREC files in memory or on Dask (distributed.py) -> times, peaks, values

The parent side is `run_child(job)`: it starts the child with `tools/` as its working directory (so
`tools/` comes first on sys.path, as for `python tools/benchmark.py`) and returns the answer, or
{"error": the last lines of stderr}.
"""
import json
import subprocess
import sys
import time

from . import TOOLS
from .machine import peak_rss_kb

MARK = "@@BENCHMARK@@"


# --- parent side --------------------------------------------------------------------------------------

def run_child(job: dict, timeout=3600) -> dict:
    "Run `job` in a fresh Python process; its answer, or {'error': ...}."
    done = subprocess.run([sys.executable, "-m", "ndcg_bench.child"], input=json.dumps(job), capture_output=True,
                          text=True, timeout=timeout, cwd=TOOLS)
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    if done.returncode != 0 or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-12:]
        return {"error": "\n".join(tail) or f"exit code {done.returncode}"}
    return json.loads(lines[-1][len(MARK):])


# --- child side ---------------------------------------------------------------------------------------

def save_values(path, values: dict):
    "Values as one .npz: per-query pairs as 'q|name' and 'v|name', plain arrays under their name."
    import numpy as np
    arrays = {}
    for name, value in values.items():
        if isinstance(value, tuple):
            arrays[f"q|{name}"], arrays[f"v|{name}"] = value
        else:
            arrays[name] = value
    np.savez(path, **arrays)


def measure(job: dict) -> dict:
    "Set up, call `repeats` times, report times and peak RSS; the last call's values go to job['values']."
    from .peers import SETUPS
    started = time.perf_counter()
    prepared = SETUPS[job["kind"]](**job["args"])
    if isinstance(prepared[0], str):
        return {"skipped": prepared[0]}
    call, values = prepared
    setup_s = time.perf_counter() - started
    base_kb = peak_rss_kb()
    times, peak_kb, result = [], None, None
    for i in range(job["repeats"]):
        result = None  # the previous result is freed before the next call
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
        if i == 0:
            peak_kb = peak_rss_kb()
    report = {"times": times, "first": times[0], "best": min(times),
              "warm": min(times[1:]) if len(times) > 1 else None, "setup_s": setup_s,
              "base_mb": base_kb / 1024, "peak_mb": peak_kb / 1024}
    if values is not None and job.get("values"):
        save_values(job["values"], values(result))
        report["values"] = job["values"]
    return report


def generate(job: dict) -> dict:
    from .data import generate
    return generate(job["plan"])


def import_only(job: dict) -> dict:
    import ndcg_nb  # noqa: F401
    return {"peak_mb": peak_rss_kb() / 1024}


def distributed(job: dict) -> dict:
    from .distributed import evaluate_in_child
    return evaluate_in_child(job)


JOBS = {"measure": measure, "generate": generate, "import": import_only, "distributed": distributed}


def main():
    job = json.loads(sys.stdin.read())
    print(MARK + json.dumps(JOBS[job["job"]](job)), flush=True)


if __name__ == "__main__":
    main()
