"""The one child-process protocol: `python -m ndcg_bench.child` reads one JSON job from stdin, does it
and prints one line, MARK followed by a JSON answer. A job is {"job": name, ...}:

  generate     {"plan": {key: (kind, kwargs)}}: generate (or find) the data -> {key: description}
  measure      {"kind", "args", "repeats", "values"}: import the tool (timed: `import_s`), load its inputs
               (timed: `load_s`), call it `repeats` times -> times, first/best/warm, median (of the calls
               after the first), process (= import_s + first), base and peak RSS (after the first call, and after all calls); values saved to the
               .npz `values`
  import       import ndcg_nb and nothing else -> {"peak_mb", "file": where ndcg_nb was imported from}
  distributed  evaluate TREC files in memory or on Dask (distributed.py) -> times, peaks, values

The parent side is `run_child(job)`: it starts the child with `tools/` as its working directory (so
`tools/` comes first on sys.path, as for `python tools/benchmark.py`) and returns the answer, or
{"error": the last lines of stderr}.

The child imports little before it times the tool's import (json, and peers.py, which imports nothing
heavy at module level; numpy only once a setup needs it), so that `import_s` is what the same import
costs in a user's fresh process, and a tool that does not use numpy does not carry it into its peak.
"""
import json
import statistics
import sys
import time

from . import TOOLS

MARK = "@@BENCHMARK@@"


# --- parent side --------------------------------------------------------------------------------------

def run_child(job: dict, timeout=3600) -> dict:
    "Run `job` in a fresh Python process; its answer, or {'error': ...}."
    import subprocess
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


def timed_imports(imports) -> float:
    "Import each (module, attribute or None) as a user's script would (`from module import attribute`); seconds."
    import importlib
    started = time.perf_counter()
    for module, attribute in imports:
        imported = importlib.import_module(module)
        if attribute:
            getattr(imported, attribute)
    return time.perf_counter() - started


def measure(job: dict) -> dict:
    """Import the tool (timed), set up its inputs (timed), call `repeats` times; times and peak RSS.
    The last call's values go to job['values']."""
    from .peers import SETUPS, tool_imports
    import_s = timed_imports(tool_imports(job["kind"], job["args"]["tool"]))
    from .machine import peak_rss_kb
    started = time.perf_counter()
    prepared = SETUPS[job["kind"]](**job["args"])
    if isinstance(prepared[0], str):
        return {"skipped": prepared[0]}
    call, values = prepared
    load_s = time.perf_counter() - started
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
              "warm": min(times[1:]) if len(times) > 1 else None,
              "median": statistics.median(times[1:] or times), "import_s": import_s, "load_s": load_s,
              "process": import_s + times[0], "setup_s": import_s + load_s,
              "base_mb": base_kb / 1024, "peak_mb": peak_kb / 1024, "peak_all_mb": peak_rss_kb() / 1024}
    if values is not None and job.get("values"):
        save_values(job["values"], values(result))
        report["values"] = job["values"]
    return report


def generate(job: dict) -> dict:
    from .data import generate
    return generate(job["plan"])


def import_only(job: dict) -> dict:
    import ndcg_nb

    from .machine import peak_rss_kb
    return {"peak_mb": peak_rss_kb() / 1024, "file": ndcg_nb.__file__}


def distributed(job: dict) -> dict:
    from .distributed import evaluate_in_child
    return evaluate_in_child(job)


JOBS = {"measure": measure, "generate": generate, "import": import_only, "distributed": distributed}


def main():
    job = json.loads(sys.stdin.read())
    print(MARK + json.dumps(JOBS[job["job"]](job)), flush=True)


if __name__ == "__main__":
    main()
