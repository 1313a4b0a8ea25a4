"""Workload `sparse_matrices`: recommender evaluation on sparse user x item matrices, as RecPack does it.

Binary test interactions, scores and training interactions, each a random CSR matrix of the same density (0.1% of
100,000 users x 50,000 items in full mode), NDCG@10 of every user with the training items masked out:

- ndcg_nb: `evaluate_matrices(relevance, scores, 10, exclude=train, preset="recpack")`;
- RecPack 0.3.6: its pipeline's masking (`Pipeline._predict_and_postprocess`: `X_pred - X_pred.multiply(train)`)
  then `NDCGK(10).calculate(relevance, X_pred)`, in the interpreter `NDCG_BENCH_RECPACK_PYTHON` names (RecPack pins
  NumPy 1 and pandas 2, so it usually lives in a venv of its own), or in this one if RecPack is importable here;
  otherwise its row is skipped and the target says so.

Each tool runs in a child of its own interpreter (`python -m ndcg_bench.sparse_matrices`, the protocol of child.py);
the per-user values and the mean are compared (1e-12). Target: ndcg_nb's call no slower than RecPack's (the first
call of each, imports done and matrices loaded).
"""
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from . import TOOLS
from .checks import compare_numbers, load_values
from .child import MARK, measure
from .report import find_row

SIZES = {"only-check": (2_000, 1_000, 0.005), "quick": (20_000, 10_000, 0.001), "full": (100_000, 50_000, 0.001)}
K = 10
OURS, THEIRS = "ndcg_nb evaluate_matrices(preset='recpack')", "RecPack NDCGK (pipeline masking + calculate)"
RECPACK_PYTHON = "NDCG_BENCH_RECPACK_PYTHON"


# --- data ----------------------------------------------------------------------------------------------------------

def _random_csr(users, items, density, seed):
    "A users x items CSR matrix with about `density` of its cells stored, values uniform in (0, 1]."
    import numpy as np
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    per_user = rng.binomial(items, density, users)
    rows = np.repeat(np.arange(users), per_user)
    matrix = sp.csr_matrix((1.0 - rng.random(len(rows)), (rows, rng.integers(0, items, len(rows)))), shape=(users, items))
    matrix.sum_duplicates()
    return matrix


def matrices(size, data_dir) -> dict:
    "Write (or find) the three matrices in `data_dir`: {'relevance', 'scores', 'train': path}."
    import scipy.sparse as sp
    users, items, density = size
    folder = Path(data_dir) / f"sparse-{users}x{items}-{density:g}"
    paths = {name: str(folder / f"{name}.npz") for name in ("relevance", "scores", "train")}
    if not all(Path(p).exists() for p in paths.values()):
        folder.mkdir(parents=True, exist_ok=True)
        for seed, name in enumerate(paths, 1):
            matrix = _random_csr(users, items, density, seed)
            if name == "relevance":
                matrix.data[:] = 1.0                     # binary interactions, as RecPack's pipelines pass them
            sp.save_npz(paths[name], matrix)
    return paths


# --- child side: the two setups, run by child.measure --------------------------------------------------------------

def _load(relevance, scores, train):
    import scipy.sparse as sp
    return tuple(sp.load_npz(path).tocsr() for path in (relevance, scores, train))


def setup_ndcg_nb(relevance, scores, train, **_):
    from ndcg_nb.integrations.sparse_matrices import evaluate_matrices
    import numpy as np
    rel, pred, seen = _load(relevance, scores, train)

    def values(result):
        frame = result.per_query[result.per_query["counted"]]
        return {"mean": np.array([result.value(f"ndcg@{K}")]),
                "ndcg": (frame["query"].to_numpy().astype(np.int64), frame["value"].to_numpy(dtype=float))}
    return (lambda: evaluate_matrices(rel, pred, K, exclude=seen, preset="recpack")), values


def setup_recpack(relevance, scores, train, **_):
    from recpack.metrics import NDCGK
    import numpy as np
    rel, pred, seen = _load(relevance, scores, train)
    seen = seen.astype(bool)

    def call():
        metric = NDCGK(K)
        metric.calculate(rel, pred - pred.multiply(seen))
        return metric

    def values(metric):
        results = metric.results
        return {"mean": np.array([metric.value]),
                "ndcg": (results["user_id"].to_numpy().astype(np.int64), results["score"].to_numpy(dtype=float))}
    return call, values


SETUPS = {"ndcg_nb": setup_ndcg_nb, "recpack": setup_recpack}
IMPORTS = {"ndcg_nb": [("ndcg_nb.integrations.sparse_matrices", "evaluate_matrices")],
           "recpack": [("recpack.metrics", "NDCGK")]}


def child_main():
    "One measuring job from stdin (child.py's `measure`, with this workload's setups): one MARK line out."
    from . import peers
    peers.SETUPS["sparse_matrices"] = lambda tool, **args: SETUPS[tool](**args)
    peers.IMPORTS["sparse_matrices"] = IMPORTS
    print(MARK + json.dumps(measure(json.loads(sys.stdin.read()))), flush=True)


# --- parent side ---------------------------------------------------------------------------------------------------

def recpack_python():
    "The interpreter RecPack runs in, or None (with the reason) where none is known."
    named = os.environ.get(RECPACK_PYTHON)
    if named:
        return named, None
    if importlib.util.find_spec("recpack") is not None:
        return sys.executable, None
    return None, f"RecPack is not installed here; name an interpreter that has it in {RECPACK_PYTHON}"


def run_in(python, job: dict) -> dict:
    "A measuring job in a fresh child of `python`: its answer, or {'error': ...}."
    done = subprocess.run([python, "-m", "ndcg_bench.sparse_matrices"], input=json.dumps(job), capture_output=True,
                          text=True, timeout=3600, cwd=TOOLS)
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    if done.returncode != 0 or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-12:]
        return {"error": "\n".join(tail) or f"exit code {done.returncode}"}
    return json.loads(lines[-1][len(MARK):])


def measure_row(session, workload, label, tool, python, files, repeats) -> dict:
    "One tool measured in a child of `python`; the row (with '_values') added to the workload."
    values = str(session.values_dir / f"sparse_matrices-{tool}.npz")
    job = {"job": "measure", "kind": "sparse_matrices", "args": {"tool": tool, **files},
           "repeats": 1 if session.only_check else repeats, "values": values}
    result = run_in(python, job)
    row = {"tool": tool, "label": label, **{k: v for k, v in result.items() if k != "values"}}
    if "values" in result:
        row["_values"] = load_values(result["values"])
        os.unlink(result["values"])
    if "error" in row:
        session.failed = True
    workload["rows"].append(row)
    return row


def data(size, data_dir) -> dict:
    return {}     # the matrices are written by `run` (`matrices`), not by data.py's generators


def run(session, metas, size):
    "ndcg_nb's evaluate_matrices against RecPack's NDCGK on the same matrices, values compared."
    users, items, density = size
    files = matrices(size, session.data_dir)
    w = session.add_workload({"name": "sparse_matrices", "kind": "sparse_matrices", "rows": [],
                              "title": f"NDCG@{K} of {users:,} users x {items:,} items, {density:.1%} of the cells "
                                       f"stored in each matrix, training items masked",
                              "data": {"users": users, "items": items, "density": density, "k": K}})
    repeats = session.args.repeats or 3
    ours = measure_row(session, w, OURS, "ndcg_nb", sys.executable, files, repeats)
    python, reason = recpack_python()
    if python is None:
        w["rows"].append({"tool": "recpack", "label": THEIRS, "skipped": reason})
        return
    theirs = measure_row(session, w, THEIRS, "recpack", python, files, repeats)
    theirs["reference"] = OURS
    if "_values" in ours and "_values" in theirs:
        (q1, v1), (q2, v2) = ours["_values"]["ndcg"], theirs["_values"]["ndcg"]
        if len(q1) != len(q2) or not (q1 == q2).all():
            session.check(theirs, {"ok": False, "detail": f"per-user NDCG@10: users differ ({len(q1):,} vs {len(q2):,})"})
        else:
            session.check(theirs, compare_numbers([*v1, *ours["_values"]["mean"]], [*v2, *theirs["_values"]["mean"]],
                                                  "per-user NDCG@10 and mean"))


def targets(session, targets):
    w = next((w for w in session.workloads if w["name"] == "sparse_matrices"), None)
    if not w:
        return
    ours, theirs = find_row(w, OURS), find_row(w, THEIRS)
    name = (f"sparse_matrices: evaluate_matrices no slower than RecPack's NDCGK ({w['data']['users']:,} users x "
            f"{w['data']['items']:,} items, k = {K})")
    if theirs is None or "skipped" in theirs:
        targets.skipped(name, theirs["skipped"] if theirs else "RecPack was not measured")
        return
    from .workloads import time_target          # workloads.py imports this module for its REGISTRY
    time_target(targets, name, ours, theirs, 1, "<=", "ndcg_nb call / RecPack call (masking and NDCGK)", basis="first")


PARTS = (SIZES, data, run, targets)   # the Workload of REGISTRY: Workload("sparse_matrices", *sparse_matrices.PARTS)


if __name__ == "__main__":
    child_main()
