"""Time ndcg_nb against its peers on the same synthetic data, in one run, and report ratios.

Usage:
  python tools/benchmark.py                      # every workload, full sizes (about 20 minutes on 2 cores)
  python tools/benchmark.py --quick              # small sizes, a CI-like smoke run (under 2 minutes)
  python tools/benchmark.py --only-check         # tiny data, values compared, nothing timed (seconds)
  python tools/benchmark.py --json nbs/benchmark_results.json   # also write every result as JSON
  python tools/benchmark.py --workloads files,arrays            # a subset
  python tools/benchmark.py --prepare                           # only generate the data (cached)
  python tools/benchmark.py --workloads distributed --json nbs/benchmark_distributed.json   # Dask, bounded memory

Workloads:
  files    TREC qrels and run files to numbers: `ndcg` and `ndcg_cut.10` under trec_eval's
           conventions. ndcg_nb.evaluate vs pytrec_eval (its own parse_qrel/parse_run +
           RelevanceEvaluator), ranx (Qrels/Run.from_file + evaluate) and ir_measures
           (read_trec_qrels/read_trec_run + iter_calc). Also ndcg_nb's `ndcg_cut` (all nine
           depths) against `ndcg_cut.10` alone.
  skewed   the same on a run of 5,000 queries where one query has 50,000 documents and the others 10.
  arrays   ndcg_nb.ndcg(labels, 10, scores=..., ties=...) on 2-D arrays vs scikit-learn's
           ndcg_score (ties averaged, and ignore_ties=True) and one np.argpartition pass; and
           ndcg on 1-D arrays with group_sizes= (LightGBM style).
  scaling  files to numbers for 10^3 ... 10^6 queries of 10 documents: time per query.
  dicts    ndcg_nb.evaluate from {query: {doc: score}} dicts vs pytrec_eval and ranx (informational).
  training one call of an NDCG@10 eval metric per boosting round, 10,000 groups of 50 documents:
           ndcg_nb.training.lightgbm_ndcg(10) (as LightGBM's feval calls it) vs LightGBM's own ndcg@10
           (Booster.eval_train on the same scores); "first" includes preparing the groups once.
  distributed  (not in the default set; ask for it) in-memory evaluate vs ndcg_nb.distributed.evaluate on a Dask
           LocalCluster of 2 worker processes, on a 10M-line run: time, peak RSS per worker, values compared.
           Then bounded memory: the run and qrels copied 6 times (other query ids; 60M run lines, 3.3 GB of
           text, and 1.6 GB of qrels) are evaluated on workers limited to 1 GB each, which write the
           per-query rows as parquet; every written value is compared with the in-memory value of the
           original query, and a worker restart counts as a failure. In-memory evaluate in a process
           limited to 1 GB (RLIMIT_AS) fails on that run; a control shows that process evaluates the
           sample data under the same limit.

Method:
  * Data is generated once (NumPy-vectorised, byte by byte) into --data-dir and reused by every
    tool and every later run; generation is not timed.
  * Every measurement runs in a fresh child process (`--child`), which imports the tool, loads
    array inputs, then calls the timed function `repeats` times. "first" is the first call in
    that fresh process (for ranx it includes numba compiling its code, or loading what numba's
    on-disk cache holds: the cold number); "best" is the fastest of
    all calls (warm). Ratios use "best" unless said otherwise.
  * Peak memory is the child's own high-water RSS after its first call (VmHWM from
    /proc/self/status; ru_maxrss where /proc is missing). It includes the interpreter, the
    imports and, for array workloads, the input arrays; "base" is the same figure before the
    first call. ru_maxrss is not used on Linux because it inherits the parent's RSS when the
    child is spawned (a child of a 1 GB parent reports at least 1 GB).
  * Values are compared with ndcg_nb's per query (or per row, or the mean where a peer gives only
    the mean) as soon as the peer's child returns, to 1e-12 absolute; for pytrec_eval and
    ir_measures to 1e-9, because trec_eval keeps run scores as float32 (distinct float64 scores can
    tie there; the generated scores avoid that). ranx breaks ties by an unstable sort, so it is
    compared on the queries without tied scores. A timing whose values differ is reported as
    INVALID and its target as not met.
  * Targets print one line each, MET or MISSED, with the ratio. Nothing here is asserted in the
    unit tests; tests/test_benchmark.py only runs --only-check so this script cannot rot.
"""
import argparse
import datetime as _dt
import importlib.metadata
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

GENERATOR_VERSION = 2  # bump when the data generators change, so cached files are rebuilt
MARK = "@@BENCHMARK@@"
TOLERANCE = 1e-12
# trec_eval (so pytrec_eval, and ir_measures through it) keeps run scores as C floats (float32): scores
# that differ in float64 can tie there, and the tie is broken by document id. Our data keeps scores below
# 90 with 4 decimals, where that cannot happen, but the tolerance for those peers allows for it.
FLOAT32_TOLERANCE = 1e-9
PEER_TOLERANCE = {"pytrec_eval": FLOAT32_TOLERANCE, "ir_measures": FLOAT32_TOLERANCE}
ROOT = Path(__file__).resolve().parent.parent
FILE_MEASURES = ["ndcg", "ndcg_cut.10"]


# ---------------------------------------------------------------------------------------------
# Memory and machine
# ---------------------------------------------------------------------------------------------

def peak_rss_kb() -> int:
    "This process's own high-water resident set size, in KiB."
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def _version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gb = round(int(line.split()[1]) / 1024 ** 2, 1)
    except OSError:
        pass
    commit = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "nbs", "ndcg_nb"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        if commit and dirty:
            commit += " (with uncommitted changes to nbs/ or ndcg_nb/)"
    except (OSError, subprocess.SubprocessError):
        pass
    packages = ["ndcg_nb", "numpy", "pandas", "pyarrow", "scikit-learn", "pytrec-eval-terrier", "ranx",
                "numba", "ir_measures"]
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gb": ram_gb,
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": {p: _version(p) for p in packages},
        "git_commit": commit,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


# ---------------------------------------------------------------------------------------------
# Data: TREC files built as bytes with NumPy (10M lines in seconds), and arrays
# ---------------------------------------------------------------------------------------------

def _ascii(x, width, pad=False):
    "Non-negative integers as an (n, width) block of ASCII digits; unless `pad`, leading zeros become 0 bytes."
    x = np.asarray(x, dtype=np.int64).copy()
    out = np.empty((len(x), width), np.uint8)
    for i in range(width - 1, -1, -1):
        out[:, i] = 48 + x % 10
        x //= 10
    if pad:
        return out
    lead = np.logical_and.accumulate(out[:, :-1] == 48, axis=1)
    out[:, :-1][lead] = 0
    return out


def _const(text, n):
    return np.broadcast_to(np.frombuffer(text.encode(), np.uint8), (n, len(text)))


def _write_lines(handle, n, columns, chunk=1_000_000):
    "Write n lines; `columns(sl)` gives the byte blocks of the rows in slice `sl`. 0 bytes are dropped."
    for start in range(0, n, chunk):
        block = np.concatenate(columns(slice(start, min(n, start + chunk))), axis=1).ravel()
        handle.write(block[block != 0].tobytes())


def _doc_ids(docnum):
    "clueweb09-style ids: clueweb09-en<segment:4>-<file:2>-<record:5>."
    n = len(docnum)
    return [_const("clueweb09-en", n), _ascii(docnum // 10 ** 7, 4, pad=True), _const("-", n),
            _ascii(docnum // 10 ** 5 % 100, 2, pad=True), _const("-", n), _ascii(docnum % 10 ** 5, 5, pad=True)]


def make_trec(base: Path, n_queries: int, depth: int, big_depth: int = 0, seed: int = 0) -> dict:
    """A run of `n_queries` x `depth` documents (one query with `big_depth` if given) and its qrels.

    Like a real run: written by query, then by descending score; about 30% of queries have tied
    scores (tied documents in no particular order); scores have 4 decimals. The qrels judge about
    65% of the retrieved documents (grades 0-3) and add a few relevant documents the run missed;
    they are written by query, then document id.
    """
    meta_path = base.with_suffix(".json")
    if meta_path.exists():
        return json.loads(meta_path.read_text())
    rng = np.random.default_rng(seed)
    depths = np.full(n_queries, depth, np.int64)
    if big_depth:
        depths[n_queries // 2] = big_depth
    extra = rng.poisson(4, n_queries)  # judged documents the run did not retrieve
    m = depths + extra
    total = int(m.sum())
    first = np.cumsum(m) - m
    query_all = np.repeat(np.arange(n_queries), m)
    # distinct document numbers per query: a random start plus a running sum of positive gaps
    gaps = rng.integers(1, 3000, total)
    running = np.cumsum(gaps)
    within = running - np.repeat(running[first] - gaps[first], m)
    docnum = np.repeat(rng.integers(0, 10 ** 11 - 3000 * (int(m.max()) + 2), n_queries), m) + within
    docnum = docnum[np.lexsort((rng.random(total), query_all))]  # shuffle within each query
    position = np.arange(total) - np.repeat(first, m)
    retrieved = position < np.repeat(depths, m)

    run_query, run_doc, run_rank = query_all[retrieved], docnum[retrieved], position[retrieved] + 1
    n_run = len(run_query)
    run_first = np.cumsum(depths) - depths
    tied_query = rng.random(n_queries) < 0.3
    # scores stay below 90 (like BM25's), where 4 decimals are distinct even as float32 (trec_eval reads
    # scores into a C float): the longest query takes the smallest steps
    largest_step = np.maximum(2, 600_000 // depths)
    steps = 1 + (rng.random(n_run) * (np.repeat(largest_step, depths) - 1)).astype(np.int64)
    zero = (rng.random(n_run) < 0.4) & np.repeat(tied_query, depths)
    zero[run_first] = False
    steps[zero] = 0
    steps[run_first] = 0
    down = np.cumsum(steps)
    down -= np.repeat(down[run_first], depths)  # score drop from the query's top document
    span = np.bincount(run_query, weights=steps, minlength=n_queries).astype(np.int64)
    top = span + rng.integers(100_000, 300_000, n_queries)
    score = np.repeat(top, depths) - down  # in units of 1e-4, strictly positive, non-increasing
    has_tie = np.bincount(run_query[zero], minlength=n_queries) > 0

    judged = ~retrieved | (rng.random(total) < 0.65)
    grade = np.where(retrieved, rng.choice(4, total, p=[0.45, 0.25, 0.18, 0.12]),
                     rng.choice([1, 2, 3], total, p=[0.5, 0.3, 0.2]))
    order = np.lexsort((docnum[judged], query_all[judged]))
    q_query, q_doc, q_grade = query_all[judged][order], docnum[judged][order], grade[judged][order]

    base.parent.mkdir(parents=True, exist_ok=True)
    run_path, qrels_path = base.with_suffix(".run"), base.with_suffix(".qrels")
    with open(str(run_path) + ".tmp", "wb") as handle:
        _write_lines(handle, n_run, lambda s: [
            _ascii(run_query[s] + 1, 7), _const(" Q0 ", s.stop - s.start), *_doc_ids(run_doc[s]),
            _const(" ", s.stop - s.start), _ascii(run_rank[s], 6), _const(" ", s.stop - s.start),
            _ascii(score[s] // 10_000, 6), _const(".", s.stop - s.start), _ascii(score[s] % 10_000, 4, pad=True),
            _const(" bench\n", s.stop - s.start)])
    with open(str(qrels_path) + ".tmp", "wb") as handle:
        _write_lines(handle, len(q_query), lambda s: [
            _ascii(q_query[s] + 1, 7), _const(" 0 ", s.stop - s.start), *_doc_ids(q_doc[s]),
            _const(" ", s.stop - s.start), _ascii(q_grade[s], 1), _const("\n", s.stop - s.start)])
    os.replace(str(run_path) + ".tmp", run_path)
    os.replace(str(qrels_path) + ".tmp", qrels_path)
    np.save(base.with_suffix(".tiefree.npy"), (np.flatnonzero(~has_tie) + 1).astype(str))
    meta = {"run": str(run_path), "qrels": str(qrels_path), "tie_free": str(base.with_suffix(".tiefree.npy")),
            "queries": n_queries, "run_lines": n_run, "qrels_lines": len(q_query),
            "queries_with_ties": int(has_tie.sum()), "max_depth": int(depths.max())}
    meta_path.write_text(json.dumps(meta))
    return meta


def make_arrays(base: Path, n_rows: int, n_cols: int, seed: int = 0, ragged: bool = False) -> dict:
    """Integer labels 0-4 and scores rounded to 0.1 (so many ties), plus tie-free scores for checks.

    2-D (n_rows x n_cols), or with `ragged` 1-D with `n_rows` groups of 2 to 2*n_cols-2 documents.
    """
    meta_path = base.with_suffix(".json")
    if meta_path.exists():
        return json.loads(meta_path.read_text())
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 2 * n_cols - 1, n_rows) if ragged else np.full(n_rows, n_cols)
    shape = (int(sizes.sum()),) if ragged else (n_rows, n_cols)
    labels = rng.choice(5, shape, p=[0.5, 0.2, 0.15, 0.1, 0.05]).astype(np.int64)
    scores = np.round(labels * 0.3 + rng.normal(0.0, 1.0, shape), 1)
    # tie-free: a different offset below 0.01 for every document of a row (a permutation of 0..n-1)
    if ragged:
        offset = np.arange(shape[0]) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        offset = offset / (2.0 * n_cols * 100)
    else:
        offset = rng.permuted(np.tile(np.arange(n_cols), (n_rows, 1)), axis=1) / (n_cols * 100.0)
    untied = scores + offset
    base.parent.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, value in [("labels", labels), ("scores", scores), ("untied", untied), ("sizes", sizes)]:
        paths[name] = str(base.with_suffix(f".{name}.npy"))
        np.save(paths[name], value)
    meta = {**paths, "rows": n_rows, "cols": n_cols, "ragged": ragged, "values": int(labels.size)}
    meta_path.write_text(json.dumps(meta))
    return meta


# ---------------------------------------------------------------------------------------------
# Child side: one tool, one workload, in a fresh process
# ---------------------------------------------------------------------------------------------

def _values_from_nested(nested: dict, names: dict) -> dict:
    "{query: {measure: value}} as {our_measure: (queries, values)}."
    out = {}
    for theirs, ours in names.items():
        queries = [q for q, row in nested.items() if theirs in row]
        out[ours] = (np.array(queries, dtype=str), np.array([nested[q][theirs] for q in queries], dtype=float))
    return out


def setup_files(tool, qrels, run, measures=FILE_MEASURES, **_):
    names = {"ndcg": "ndcg", "ndcg_cut.10": "ndcg_cut_10"}
    if tool == "ndcg_nb":
        from ndcg_nb import evaluate

        def values(result):
            frame = result.per_query
            return {m: (frame["query"][frame.measure == m].to_numpy(str), frame["value"][frame.measure == m].to_numpy(float))
                    for m in frame.measure.unique()}
        return lambda: evaluate(qrels, run, measures, preset="trec_eval", progress=False), values
    if tool == "pytrec_eval":
        import pytrec_eval

        def call():
            with open(qrels) as f:
                parsed_qrels = pytrec_eval.parse_qrel(f)
            with open(run) as f:
                parsed_run = pytrec_eval.parse_run(f)
            return pytrec_eval.RelevanceEvaluator(parsed_qrels, set(measures)).evaluate(parsed_run)
        return call, lambda result: _values_from_nested(result, {names[m]: names[m] for m in measures})
    if tool == "ranx":
        import ranx
        theirs = {"ndcg": "ndcg", "ndcg_cut.10": "ndcg@10"}

        def call():
            ranx_run = ranx.Run.from_file(run, kind="trec")
            ranx.evaluate(ranx.Qrels.from_file(qrels, kind="trec"), ranx_run, [theirs[m] for m in measures],
                          make_comparable=True)
            return ranx_run

        def values(ranx_run):
            return {names[m]: (np.array(list(ranx_run.scores[theirs[m]]), dtype=str),
                               np.array(list(ranx_run.scores[theirs[m]].values()), dtype=float)) for m in measures}
        return call, values
    if tool == "ir_measures":
        import ir_measures
        theirs = {"ndcg": ir_measures.nDCG, "ndcg_cut.10": ir_measures.nDCG @ 10}
        back = {str(theirs[m]): names[m] for m in measures}

        def call():
            return list(ir_measures.iter_calc([theirs[m] for m in measures], ir_measures.read_trec_qrels(qrels),
                                              ir_measures.read_trec_run(run)))

        def values(result):
            nested = {}
            for metric in result:
                nested.setdefault(metric.query_id, {})[back[str(metric.measure)]] = metric.value
            return _values_from_nested(nested, {n: n for n in back.values()})
        return call, values
    raise ValueError(tool)


def setup_dicts(tool, qrels, run, **_):
    import pytrec_eval  # its parsers build the dicts, outside the timing
    with open(qrels) as f:
        qrels_dict = {q: dict(d) for q, d in pytrec_eval.parse_qrel(f).items()}
    with open(run) as f:
        run_dict = {q: dict(d) for q, d in pytrec_eval.parse_run(f).items()}
    if tool == "ndcg_nb":
        from ndcg_nb import evaluate
        call = lambda: evaluate(qrels_dict, run_dict, FILE_MEASURES, preset="trec_eval", progress=False)
        return call, setup_files("ndcg_nb", qrels, run)[1]
    if tool == "pytrec_eval":
        call = lambda: pytrec_eval.RelevanceEvaluator(qrels_dict, set(FILE_MEASURES)).evaluate(run_dict)
        return call, setup_files("pytrec_eval", qrels, run)[1]
    if tool == "ranx":
        import ranx

        def call():
            ranx_run = ranx.Run(run_dict)
            ranx.evaluate(ranx.Qrels(qrels_dict), ranx_run, ["ndcg", "ndcg@10"], make_comparable=True)
            return ranx_run
        return call, setup_files("ranx", qrels, run)[1]
    raise ValueError(tool)


def _ndcg_with_scores():
    import inspect

    from ndcg_nb import ndcg
    missing = {"scores", "ties", "group_sizes"} - set(inspect.signature(ndcg).parameters)
    return ndcg, missing


def setup_arrays(tool, labels, scores, untied, sizes, ties=None, layout="2d", **_):
    label_array, score_array = np.load(labels), np.load(scores)
    size_array = np.load(sizes)
    if tool == "ndcg_nb":
        ndcg, missing = _ndcg_with_scores()
        if missing:
            return f"ndcg_nb.ndcg has no {', '.join(sorted(missing))} keyword yet", None
        if layout == "2d":
            call = lambda: ndcg(label_array, 10, scores=score_array, ties=ties)
        else:
            flat_labels, flat_scores = label_array.ravel(), score_array.ravel()
            call = lambda: ndcg(flat_labels, 10, scores=flat_scores, ties=ties, group_sizes=size_array)

        def values(result):
            out = {"per_row": np.asarray(result, dtype=float)}
            out["mean"] = np.array([float(np.mean(out["per_row"]))])
            if ties == "input" and layout == "2d":  # for scikit-learn's ignore_ties: tie-free scores only
                out["mean_untied"] = np.array([float(np.mean(ndcg(label_array, 10, scores=np.load(untied), ties="input")))])
            if layout == "ragged":  # scikit-learn, group by group, on the first groups
                from sklearn.metrics import ndcg_score
                ends = np.cumsum(size_array[:300])
                per_group = [ndcg_score(label_array[e - s:e][None], score_array[e - s:e][None], k=10)
                             for s, e in zip(size_array[:300], ends)]
                out["sklearn_first_groups"] = np.array(per_group)
            return out
        return call, values
    if tool == "sklearn":
        from sklearn.metrics import ndcg_score
        ignore = ties == "input"
        call = lambda: ndcg_score(label_array, score_array, k=10, ignore_ties=ignore)

        def values(result):
            out = {"mean": np.array([float(result)])}
            if ignore:
                out["mean_untied"] = np.array([float(ndcg_score(label_array, np.load(untied), k=10, ignore_ties=True))])
            return out
        return call, values
    if tool == "argpartition":
        return (lambda: np.argpartition(-score_array, 10, axis=1)), None
    raise ValueError(tool)


def setup_training(tool, labels, scores, untied, sizes, tied=False, **_):
    "One round's eval-metric call on fixed scores: ours as LightGBM's feval calls it, or LightGBM's own ndcg@10."
    import lightgbm
    label_array, size_array = np.load(labels).ravel().astype(float), np.load(sizes)
    score_array = np.load(scores if tied else untied).ravel()
    features = np.zeros((len(label_array), 1))
    if tool == "ndcg_nb":
        from ndcg_nb.training import lightgbm_ndcg
        metric, data = lightgbm_ndcg(10), lightgbm.Dataset(features, label=label_array, group=size_array).construct()
        return (lambda: metric(score_array, data)), (lambda result: {"mean": np.array([result[0][1]])})
    if tool == "lightgbm":
        data = lightgbm.Dataset(features, label=label_array, group=size_array, init_score=score_array)
        booster = lightgbm.Booster(params={"objective": "lambdarank", "metric": "ndcg", "eval_at": [10],
                                           "verbose": -1}, train_set=data)
        return booster.eval_train, (lambda result: {"mean": np.array([result[0][2]])})
    raise ValueError(tool)


SETUPS = {"files": setup_files, "dicts": setup_dicts, "arrays": setup_arrays, "training": setup_training}


def child_main(spec: dict):
    "Runs in the child: set up, call `repeats` times, report times and peak RSS as one JSON line."
    started = time.perf_counter()
    prepared = SETUPS[spec["kind"]](**spec["args"])
    if isinstance(prepared[0], str):
        print(MARK + json.dumps({"skipped": prepared[0]}))
        return
    call, values = prepared
    setup_s = time.perf_counter() - started
    base_kb = peak_rss_kb()
    times, peak_kb, result = [], None, None
    for i in range(spec["repeats"]):
        result = None  # the previous result is freed before the next call
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
        if i == 0:
            peak_kb = peak_rss_kb()
    report = {"times": times, "first": times[0], "best": min(times),
              "warm": min(times[1:]) if len(times) > 1 else None, "setup_s": setup_s,
              "base_mb": base_kb / 1024, "peak_mb": peak_kb / 1024}
    if values is not None and spec.get("values"):
        arrays = {}
        for name, value in values(result).items():
            if isinstance(value, tuple):
                arrays[f"q|{name}"], arrays[f"v|{name}"] = value
            else:
                arrays[name] = value
        np.savez(spec["values"], **arrays)
        report["values"] = spec["values"]
    print(MARK + json.dumps(report))


def generate_main(spec: dict):
    "Runs in a child too, so the parent's RSS stays small."
    out = {}
    for key, (kind, kwargs) in spec.items():
        kwargs = dict(kwargs)
        kwargs["base"] = Path(kwargs["base"])
        out[key] = (make_trec if kind == "trec" else make_arrays)(**kwargs)
    print(MARK + json.dumps(out))


# ---------------------------------------------------------------------------------------------
# Parent side: plan, run children, compare values, report
# ---------------------------------------------------------------------------------------------

def _spawn(argument: str, payload: dict, timeout=3600) -> dict:
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), argument, json.dumps(payload)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    if done.returncode != 0 or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-12:]
        return {"error": "\n".join(tail) or f"exit code {done.returncode}"}
    return json.loads(lines[-1][len(MARK):])


def _note(text):
    print(text, file=sys.stderr, flush=True)


def _load_values(path) -> dict:
    with np.load(path) as data:
        raw = {k: data[k] for k in data.files}
    out = {}
    for key, value in raw.items():
        if key.startswith("q|"):
            name = key[2:]
            order = np.argsort(value, kind="stable")
            out[name] = (value[order], raw["v|" + name][order])
        elif not key.startswith("v|"):
            out[key] = value
    return out


def compare_queries(ours: dict, theirs: dict, measures, only=None, tolerance=TOLERANCE) -> dict:
    "Per-query agreement on `measures`; `only` restricts the comparison to those queries."
    worst, compared = 0.0, 0
    for name in measures:
        if name not in ours or name not in theirs:
            return {"ok": False, "detail": f"{name} missing"}
        (q1, v1), (q2, v2) = ours[name], theirs[name]
        if only is not None:
            keep1, keep2 = np.isin(q1, only), np.isin(q2, only)
            q1, v1, q2, v2 = q1[keep1], v1[keep1], q2[keep2], v2[keep2]
        if len(q1) != len(q2) or not np.array_equal(q1, q2):
            return {"ok": False, "detail": f"{name}: different queries ({len(q1)} vs {len(q2)})"}
        if len(v1):
            worst = max(worst, float(np.max(np.abs(v1 - v2))))
        compared += len(q1)
    ok = worst <= tolerance
    return {"ok": ok, "max_abs_diff": worst, "compared": compared, "tolerance": tolerance,
            "detail": f"max |diff| {worst:.1e} over {compared:,} query values" + ("" if ok else f" > {tolerance:g}")}


def compare_numbers(a, b, what) -> dict:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return {"ok": False, "detail": f"{what}: shapes {a.shape} vs {b.shape}"}
    worst = float(np.max(np.abs(a - b))) if a.size else 0.0
    ok = worst <= TOLERANCE
    return {"ok": ok, "max_abs_diff": worst, "compared": int(a.size), "tolerance": TOLERANCE,
            "detail": f"{what}: max |diff| {worst:.1e} over {a.size:,} values" + ("" if ok else f" > {TOLERANCE:g}")}


class Bench:
    def __init__(self, args):
        self.args = args
        self.data_dir = Path(args.data_dir)
        self.values_dir = Path(tempfile.mkdtemp(prefix="ndcg_nb_values_"))
        self.workloads, self.targets, self.notes = [], [], []
        self.failed = False

    # --- running -----------------------------------------------------------------------------
    def measure(self, workload, label, kind, args, repeats, keep_values=True):
        tool = args["tool"]
        _note(f"  {workload['name']}: {label} ...")
        values_path = str(self.values_dir / f"{workload['name']}-{label}.npz".replace(" ", "_").replace("/", "_"))
        spec = {"kind": kind, "args": args, "repeats": 1 if self.args.only_check else repeats,
                "values": values_path if keep_values else None}
        result = _spawn("--child", spec)
        row = {"tool": tool, "label": label, **{k: v for k, v in result.items() if k != "values"}}
        if "values" in result:
            row["_values"] = _load_values(result["values"])
            os.unlink(result["values"])
        if "error" in row:
            self.failed = True
            _note("    failed: " + "\n    ".join(row["error"].splitlines()[-4:]))
        elif "skipped" in row:
            _note(f"    skipped: {row['skipped']}")
        else:
            _note(f"    first {row['first']:.3f} s, best {row['best']:.3f} s, peak {row['peak_mb']:.0f} MB")
        workload["rows"].append(row)
        return row

    def check(self, row, outcome):
        row["check"] = outcome
        if not outcome["ok"]:
            self.failed = True
            _note(f"    VALUES DIFFER: {outcome['detail']}")

    def generate(self, plan: dict) -> dict:
        _note(f"data in {self.data_dir} (generated once, then reused)")
        started = time.perf_counter()
        out = _spawn("--generate", plan, timeout=3600)
        if "error" in out:
            raise SystemExit(f"data generation failed:\n{out['error']}")
        _note(f"  ready in {time.perf_counter() - started:.1f} s")
        return out

    # --- workloads ---------------------------------------------------------------------------
    def files_workload(self, name, title, meta, repeats, peers, cut_all=False, only_pytrec=False):
        workload = {"name": name, "kind": "files", "title": title, "data": meta, "rows": [],
                    "measures": FILE_MEASURES, "reference": "ndcg_nb"}
        self.workloads.append(workload)
        files = {"qrels": meta["qrels"], "run": meta["run"]}
        ours = self.measure(workload, "ndcg_nb", "files", {"tool": "ndcg_nb", **files}, repeats)
        names = ["ndcg", "ndcg_cut_10"]
        if cut_all:
            one = self.measure(workload, "ndcg_nb ndcg_cut.10 alone", "files",
                               {"tool": "ndcg_nb", **files, "measures": ["ndcg_cut.10"]}, repeats)
            one["reference"] = "ndcg_nb"
            row = self.measure(workload, "ndcg_nb ndcg_cut (9 depths)", "files",
                               {"tool": "ndcg_nb", **files, "measures": ["ndcg_cut"]}, repeats)
            row["reference"] = "ndcg_nb ndcg_cut.10 alone"
            for extra in (one, row):
                if "_values" in extra and "_values" in ours:
                    self.check(extra, compare_queries(ours["_values"], extra["_values"], ["ndcg_cut_10"]))
        for peer in peers:
            row = self.measure(workload, peer, "files", {"tool": peer, **files}, repeats)
            row["reference"] = "ndcg_nb"
            if "_values" in row and "_values" in ours:
                if peer == "ranx":  # ranx orders tied scores its own (unstable) way: compare tie-free queries
                    only = np.load(meta["tie_free"])
                    outcome = compare_queries(ours["_values"], row["_values"], names, only=only)
                    outcome["detail"] += f" (the {len(only):,} queries without tied scores)"
                else:
                    outcome = compare_queries(ours["_values"], row["_values"], names,
                                              tolerance=PEER_TOLERANCE.get(peer, TOLERANCE))
                self.check(row, outcome)
        return workload

    def arrays_workload(self, name, title, meta, repeats, sklearn_repeats):
        workload = {"name": name, "kind": "arrays", "title": title, "rows": [],
                    "data": {"rows": meta["rows"], "cols": meta["cols"], "values": meta["values"]}}
        self.workloads.append(workload)
        files = {k: meta[k] for k in ("labels", "scores", "untied", "sizes")}
        average = self.measure(workload, "ndcg_nb ties=average", "arrays", {"tool": "ndcg_nb", "ties": "average", **files}, repeats)
        if "skipped" in average:
            workload["skipped"] = average["skipped"]
            workload["rows"].clear()
            return workload
        given = self.measure(workload, "ndcg_nb ties=input", "arrays", {"tool": "ndcg_nb", "ties": "input", **files}, repeats)
        given["reference"] = "ndcg_nb ties=average"
        sk_avg = self.measure(workload, "scikit-learn ndcg_score", "arrays", {"tool": "sklearn", "ties": "average", **files}, sklearn_repeats)
        sk_avg["reference"] = "ndcg_nb ties=average"
        if "_values" in sk_avg and "_values" in average:
            self.check(sk_avg, compare_numbers(average["_values"]["mean"], sk_avg["_values"]["mean"], "mean NDCG@10, tied scores"))
        sk_input = self.measure(workload, "scikit-learn ndcg_score ignore_ties=True", "arrays",
                                {"tool": "sklearn", "ties": "input", **files}, repeats)
        sk_input["reference"] = "ndcg_nb ties=input"
        if "_values" in sk_input and "_values" in given:
            self.check(sk_input, compare_numbers(given["_values"]["mean_untied"], sk_input["_values"]["mean_untied"],
                                                 "mean NDCG@10 on tie-free scores"))
        if not self.args.only_check:  # nothing to check: timing only
            arg = self.measure(workload, "np.argpartition(-scores, 10, axis=1)", "arrays", {"tool": "argpartition", **files},
                               repeats, keep_values=False)
            arg["reference"] = "ndcg_nb ties=input"
        return workload

    def groups_workload(self, name, title, uniform_meta, ragged_meta, repeats, twod_row=None):
        workload = {"name": name, "kind": "groups", "title": title, "rows": [],
                    "data": {"uniform": {k: uniform_meta[k] for k in ("rows", "cols", "values")},
                             "ragged": {k: ragged_meta[k] for k in ("rows", "values")}}}
        self.workloads.append(workload)
        files = {k: uniform_meta[k] for k in ("labels", "scores", "untied", "sizes")}
        flat = self.measure(workload, "ndcg_nb 1-D, group_sizes (all equal)", "arrays",
                            {"tool": "ndcg_nb", "ties": "average", "layout": "flat", **files}, repeats)
        if "skipped" in flat:
            workload["skipped"] = flat["skipped"]
            workload["rows"].clear()
            return workload
        if twod_row is not None and "_values" in twod_row and "_values" in flat:
            flat["reference"] = twod_row["label"] + " (2-D)"
            flat["reference_best"] = twod_row.get("best")
            self.check(flat, compare_numbers(twod_row["_values"]["per_row"], flat["_values"]["per_row"],
                                             "per group vs the 2-D call"))
        files = {k: ragged_meta[k] for k in ("labels", "scores", "untied", "sizes")}
        ragged = self.measure(workload, "ndcg_nb 1-D, group_sizes (2 to 38)", "arrays",
                              {"tool": "ndcg_nb", "ties": "average", "layout": "ragged", **files}, repeats)
        if "_values" in ragged:
            self.check(ragged, compare_numbers(ragged["_values"]["per_row"][:300], ragged["_values"]["sklearn_first_groups"],
                                               "first 300 groups vs scikit-learn, one group at a time"))
        return workload

    def scaling_workload(self, metas, repeats_for):
        workload = {"name": "scaling", "kind": "scaling", "title": "files to numbers, 10 documents per query",
                    "rows": [], "points": []}
        self.workloads.append(workload)
        for meta in metas:
            n = meta["queries"]
            files = {"qrels": meta["qrels"], "run": meta["run"]}
            ours = self.measure(workload, f"ndcg_nb {n:,} queries", "files", {"tool": "ndcg_nb", **files}, repeats_for(n))
            peer = self.measure(workload, f"pytrec_eval {n:,} queries", "files", {"tool": "pytrec_eval", **files},
                                repeats_for(n))
            peer["reference"] = f"ndcg_nb {n:,} queries"
            if "_values" in ours and "_values" in peer:
                self.check(peer, compare_queries(ours["_values"], peer["_values"], ["ndcg", "ndcg_cut_10"],
                                                 tolerance=FLOAT32_TOLERANCE))
            point = {"queries": n, "lines": meta["run_lines"]}
            for key, row in (("ndcg_nb", ours), ("pytrec_eval", peer)):
                if "best" in row:
                    point[f"{key}_s"] = row["best"]
                    point[f"{key}_us_per_query"] = row["best"] / n * 1e6
            workload["points"].append(point)
        return workload


def _row(workload, label):
    for row in workload["rows"]:
        if row["label"] == label:
            return row
    return None


def _ratios(workload):
    "time and memory of each row relative to its reference row (peer / reference)."
    for row in workload["rows"]:
        ref = _row(workload, row.get("reference", "")) if row.get("reference") else None
        if ref is None and row.get("reference_best"):
            row["time_ratio"] = row["best"] / row["reference_best"] if "best" in row else None
            continue
        if ref is None or "best" not in row or "best" not in ref:
            continue
        row["time_ratio"] = row["best"] / ref["best"]
        row["first_ratio"] = row["first"] / ref["first"]
        row["memory_ratio"] = row["peak_mb"] / ref["peak_mb"]


def _valid(*rows):
    return all(r is not None and "best" in r and r.get("check", {"ok": True})["ok"] for r in rows)


def evaluate_targets(bench: Bench, quick: bool):
    targets = []

    def add(name, ratio, limit, kind, rows, explanation):
        if not _valid(*rows):
            targets.append({"target": name, "status": "NOT MEASURED" if any(r is None or "best" not in r for r in rows)
                            else "INVALID (values differ)", "ratio": None, "limit": limit, "rule": explanation})
            return
        met = ratio >= limit if kind == ">=" else (ratio <= limit if kind == "<=" else ratio < limit)
        targets.append({"target": name, "status": "MET" if met else "MISSED", "ratio": ratio, "limit": limit,
                        "comparison": kind, "rule": explanation})

    by_name = {w["name"]: w for w in bench.workloads}
    for name, w in by_name.items():
        if w["kind"] != "files" or name == "skewed":
            continue
        size = f"{w['data']['run_lines']:,} lines"
        ours, peer = _row(w, "ndcg_nb"), _row(w, "pytrec_eval")
        if ours and peer and "best" in ours and "best" in peer:
            add(f"files {size}: ndcg_nb >= 5x faster than pytrec_eval", peer["best"] / ours["best"], 5, ">=",
                [ours, peer], "pytrec_eval best time / ndcg_nb best time")
            add(f"files {size}: ndcg_nb peak memory <= pytrec_eval's", ours["peak_mb"] / peer["peak_mb"], 1, "<=",
                [ours, peer], "ndcg_nb peak RSS / pytrec_eval peak RSS (whole process)")
        cut, one = _row(w, "ndcg_nb ndcg_cut (9 depths)"), _row(w, "ndcg_nb ndcg_cut.10 alone")
        if cut:
            add(f"files {size}: ndcg_cut (9 depths) within 1.3x of ndcg_cut.10", cut["best"] / one["best"] if _valid(cut, one) else None,
                1.3, "<=", [cut, one], "ndcg_nb time for ['ndcg_cut'] / for ['ndcg_cut.10']")
    w = by_name.get("skewed")
    if w:
        ours, peer = _row(w, "ndcg_nb"), _row(w, "pytrec_eval")
        add("skewed: ndcg_nb peak memory < 300 MB", ours["peak_mb"] if _valid(ours) else None, 300, "<", [ours],
            "peak RSS of the ndcg_nb child, in MB (not a ratio)")
        add("skewed: ndcg_nb time <= pytrec_eval's", ours["best"] / peer["best"] if _valid(ours, peer) else None, 1, "<=",
            [ours, peer], "ndcg_nb best time / pytrec_eval best time")
    for name, w in by_name.items():
        if w["kind"] != "arrays":
            continue
        if w.get("skipped"):
            targets.append({"target": f"{name}: every array target", "status": "SKIPPED", "ratio": None,
                            "limit": None, "rule": w["skipped"]})
            continue
        avg, inp = _row(w, "ndcg_nb ties=average"), _row(w, "ndcg_nb ties=input")
        sk_avg, sk_inp = _row(w, "scikit-learn ndcg_score"), _row(w, "scikit-learn ndcg_score ignore_ties=True")
        arg = _row(w, "np.argpartition(-scores, 10, axis=1)")
        r = lambda a, b: a["best"] / b["best"] if _valid(a, b) else None
        add(f"{name}: ties averaged >= 3x faster than scikit-learn's ndcg_score", r(sk_avg, avg), 3, ">=", [sk_avg, avg],
            "ndcg_score best time / ndcg_nb ties='average' best time")
        add(f"{name}: ties in input order >= 3x faster than ndcg_score(ignore_ties=True)", r(sk_inp, inp), 3, ">=",
            [sk_inp, inp], "ndcg_score(ignore_ties=True) best time / ndcg_nb ties='input' best time")
        add(f"{name}: ties averaged within 1.5x of ties in input order", r(avg, inp), 1.5, "<=", [avg, inp],
            "ndcg_nb ties='average' / ties='input'")
        add(f"{name}: ties in input order within 2x of one argpartition pass", r(inp, arg), 2, "<=", [inp, arg],
            "ndcg_nb ties='input' / np.argpartition(-scores, 10, axis=1)")
        add(f"{name}: ties averaged within 2x of one argpartition pass", r(avg, arg), 2, "<=", [avg, arg],
            "ndcg_nb ties='average' / np.argpartition(-scores, 10, axis=1)")
    w = by_name.get("scaling")
    if w and w["points"]:
        points = {p["queries"]: p for p in w["points"]}
        largest = max(points)
        base, top = points.get(10_000), points[largest]
        rows = [_row(w, f"ndcg_nb {largest:,} queries"), _row(w, f"ndcg_nb {10_000:,} queries")]
        ratio = (top["ndcg_nb_us_per_query"] / base["ndcg_nb_us_per_query"]
                 if base and "ndcg_nb_us_per_query" in base and "ndcg_nb_us_per_query" in top else None)
        add(f"scaling: time per query flat ({largest:,} vs 10,000 queries)", ratio, 1.5, "<=", rows,
            f"ndcg_nb time per query at {largest:,} queries / at 10,000 queries; flat means <= 1.5")
    training_targets(bench, add)
    return targets


def _portable(data):
    "A data description without the paths of this machine's cached files."
    if isinstance(data, dict):
        return {k: _portable(v) for k, v in data.items() if k not in ("run", "qrels", "tie_free", "labels", "scores",
                                                                      "untied", "sizes")}
    return data


def _last_line(text):
    return text.strip().splitlines()[-1] if text else text


def _fmt(x, spec, missing="-"):
    return missing if x is None else format(x, spec)


def report(bench: Bench, args):
    out = []
    m = bench.machine
    out.append(f"ndcg_nb benchmark ({'only-check' if args.only_check else 'quick' if args.quick else 'full'}), "
               f"{m['date']}")
    out.append(f"{m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM; Python {m['python']}, "
               + ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v))
    out.append(f"load average at start {m['load_average_at_start']}, at end {m.get('load_average_at_end')}")
    out.append("times in seconds (first call in a fresh process / best of the calls); peak = the child's own "
               "high-water RSS in MB incl. interpreter, imports and inputs (base = before the first call); "
               "ratios = row / reference row (> 1: the reference is faster / smaller)")
    for w in bench.workloads:
        _ratios(w)
        out.append("")
        data = w.get("data", {})
        if w["kind"] in ("files", "dicts"):
            size = (f"{data['queries']:,} queries, {data['run_lines']:,} run lines, {data['qrels_lines']:,} qrels lines, "
                    f"{data['queries_with_ties']:,} queries with tied scores")
        elif w["kind"] == "arrays":
            size = f"{data['rows']:,} x {data['cols']}"
        elif w["kind"] == "groups":
            size = f"{data['uniform']['values']:,} and {data['ragged']['values']:,} values"
        else:
            size = ""
        out.append(f"== {w['name']}: {w['title']}" + (f" ({size})" if size else ""))
        if w.get("skipped"):
            out.append(f"   SKIPPED: {w['skipped']}")
            continue
        if args.only_check:
            for row in w["rows"]:
                status = _last_line(row.get("error")) or row.get("skipped") or (row["check"]["detail"] if "check" in row else "reference")
                flag = "" if "check" not in row else ("values agree: " if row["check"]["ok"] else "VALUES DIFFER: ")
                out.append(f"   {row['label']:<45} {flag}{status}")
            out.extend("   " + line for line in w.get("lines", []) if not line.startswith("Dask: peak"))
            continue
        out.append(f"   {'':<45}{'first':>9}{'best':>9}{'base':>7}{'peak':>7}  {'reference':<26}{'time':>7}"
                   f"{'first':>7}{'memory':>7}  values")
        for row in w["rows"]:
            if "best" not in row:
                out.append(f"   {row['label']:<45}{'FAILED: ' + _last_line(row['error']) if 'error' in row else 'skipped: ' + row['skipped']}")
                continue
            check = row["check"]["detail"] if "check" in row else ""
            if "check" in row and not row["check"]["ok"]:
                check = "INVALID: " + check
            out.append(f"   {row['label']:<45}{row['first']:>9.3f}{row['best']:>9.3f}{row['base_mb']:>7.0f}{row['peak_mb']:>7.0f}  "
                       f"{row.get('reference', ''):<26}{_fmt(row.get('time_ratio'), '6.2f'):>7}{_fmt(row.get('first_ratio'), '6.2f'):>7}"
                       f"{_fmt(row.get('memory_ratio'), '6.2f'):>7}  {check}")
        if w["name"] == "skewed" and getattr(bench, "baseline_import_mb", None):
            out.append(f"   (for scale: `python -c 'import ndcg_nb'` alone peaks at {bench.baseline_import_mb:.0f} MB)")
        if w["kind"] == "scaling":
            out.append(f"   {'queries':>10}{'run lines':>12}{'ndcg_nb us/query':>18}{'pytrec_eval us/query':>22}")
            for p in w["points"]:
                out.append(f"   {p['queries']:>10,}{p['lines']:>12,}{_fmt(p.get('ndcg_nb_us_per_query'), '18.2f'):>18}"
                           f"{_fmt(p.get('pytrec_eval_us_per_query'), '22.2f'):>22}")
        out.extend("   " + line for line in w.get("lines", []))
    if bench.targets:
        out.append("")
        out.append("== targets")
        for t in bench.targets:
            ratio = "" if t["ratio"] is None else f" ({t['ratio']:.2f}, limit {t['comparison']} {t['limit']}: {t['rule']})"
            out.append(f"   {t['status']:<7} {t['target']}{ratio}")
    for note in bench.notes:
        out.append(f"note: {note}")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# distributed: in-memory vs Dask, and bounded memory (own children: the workers' peaks are read too)
# ---------------------------------------------------------------------------------------------

DISTRIBUTED_COPIES = 6        # the bounded-memory run: the 10M-line run this many times, other query ids
DISTRIBUTED_LIMIT_MB = 1024   # memory per Dask worker, and RLIMIT_AS of the in-memory process beside it


def _replicate(meta: dict, copies: int) -> dict:
    "The run and qrels of `meta` written `copies` times, query ids prefixed c0-, c1-, ...: same mean, more lines."
    out = {}
    for key in ("run", "qrels"):
        target = Path(f"{meta[key]}.x{copies}")
        if not target.exists():
            with open(f"{target}.tmp", "wb") as dst:
                for copy in range(copies):
                    prefix = f"c{copy}-".encode()
                    with open(meta[key], "rb") as src:
                        while chunk := src.read(64 << 20):
                            chunk += src.readline()                       # to the end of its line
                            dst.write(prefix + chunk[:-1].replace(b"\n", b"\n" + prefix) + b"\n")
            os.replace(f"{target}.tmp", target)
        out[key] = str(target)
    out["run_bytes"] = Path(out["run"]).stat().st_size
    return out


def _compare_copies(folder: Path, single: dict, copies: int) -> dict:
    "The per-query values the workers wrote for the copied run, each copy against the in-memory values of the original."
    import pandas as pd
    table = pd.read_parquet(folder, columns=["query", "measure", "value"])
    copy, query = np.char.partition(table["query"].to_numpy(str), "-")[:, ::2].T
    measures, values = table["measure"].astype(str).to_numpy(), table["value"].to_numpy()
    worst, compared = 0.0, 0
    for number in range(copies):
        ours = {}
        for name in single:
            mine = (measures == name) & (copy == f"c{number}")
            order = np.argsort(query[mine], kind="stable")
            ours[name] = (query[mine][order], values[mine][order])
        outcome = compare_queries(ours, single, list(single))
        if not outcome["ok"]:
            return {**outcome, "detail": f"copy {number}: {outcome['detail']}"}
        worst, compared = max(worst, outcome["max_abs_diff"]), compared + outcome["compared"]
    if compared != len(table):
        return {"ok": False, "detail": f"{len(table) - compared:,} written rows belong to no copy of an original query"}
    return {"ok": True, "max_abs_diff": worst, "compared": compared,
            "detail": f"max |diff| {worst:.1e} over {compared:,} query values ({copies} copies x the original's)"}


def distributed_child_main(spec: dict):
    "In a child: evaluate TREC files in memory or on a Dask LocalCluster; times, peak RSS (own, per worker), values."
    if spec.get("rlimit_mb"):
        resource.setrlimit(resource.RLIMIT_AS, (spec["rlimit_mb"] << 20, spec["rlimit_mb"] << 20))
    client = None
    if spec["engine"] == "dask":
        if spec.get("worker_mb"):   # set before dask is imported, here and in the spawned workers:
            # the P2P shuffle buffers up to 1 GiB per worker by default (an eighth of the limit here), and Arrow's
            # own allocator keeps freed memory, which the worker's memory monitor counts
            os.environ["DASK_DISTRIBUTED__P2P__COMM__BUFFER"] = f"{spec['worker_mb'] // 8}MiB"
            os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
        from distributed import Client, LocalCluster
        from ndcg_nb.distributed import evaluate
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                     memory_limit=f"{spec['worker_mb']}MiB" if spec.get("worker_mb") else "auto"))
        pids = client.run(os.getpid)
        call = lambda: evaluate(spec["qrels"], spec["run"], spec["measures"], blocksize=spec.get("blocksize", "16 MiB"),
                                npartitions=spec.get("npartitions"), write_per_query=spec.get("write_per_query"))
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
        print(MARK + json.dumps({"refused": f"{type(exc).__name__}: {str(exc)[:200]}", "seconds": time.perf_counter() - start}))
        return
    report = {"times": times, "first": times[0], "best": min(times), "base_mb": base_kb / 1024,
              "peak_mb": peak_rss_kb() / 1024, "aggregate": dict(zip(result.aggregate.measure, result.aggregate.value))}
    if client is not None:
        peaks = client.run(peak_rss_kb)   # each worker's VmHWM: valid for the whole run if no worker restarted
        report["client_peak_mb"], report["peak_mb"] = report["peak_mb"], max(peaks.values()) / 1024
        report["worker_peaks_mb"] = [kb / 1024 for kb in peaks.values()]
        report["worker_restarts"] = sum(pids.get(a) != pid for a, pid in client.run(os.getpid).items())
        report["worker_memory_limit_mb"] = spec.get("worker_mb")
        client.close()
    if spec.get("values"):
        frame = result.per_query
        np.savez(spec["values"], **{f"{p}|{m}": (frame["query"] if p == "q" else frame["value"])[frame.measure == m].to_numpy(str if p == "q" else float)
                                    for m in frame.measure.unique() for p in ("q", "v")})
        report["values"] = spec["values"]
    print(MARK + json.dumps(report))


def distributed_workload(bench, meta: dict, args):
    "In-memory vs Dask on one run, values compared; then (full mode) bounded memory on a run several times larger."
    w = {"name": "distributed", "kind": "distributed", "data": meta, "rows": [], "lines": [],
         "title": "TREC files to numbers in one process vs on a Dask LocalCluster of 2 worker processes "
                  "(1 thread each); peak = max over the workers' own RSS"}
    bench.workloads.append(w)
    measures = FILE_MEASURES
    common = {"qrels": meta["qrels"], "run": meta["run"], "measures": measures, "repeats": args.repeats or 1}
    rows = {}
    for engine, label in (("memory", "in-memory evaluate, 1 process"), ("dask", "ndcg_nb.distributed, 2 workers")):
        _note(f"  distributed: {label} ...")
        values = str(bench.values_dir / f"distributed-{engine}.npz")
        result = _spawn("--distributed-child", {**common, "engine": engine, "values": values})
        row = {"tool": "ndcg_nb", "label": label, **{k: v for k, v in result.items() if k not in ("values", "refused")}}
        if "values" in result:
            row["_values"] = _load_values(result["values"])
            os.unlink(result["values"])
        if "best" not in row:
            row["error"] = result.get("error") or result.get("refused")
            bench.failed = True
        w["rows"].append(row)
        rows[engine] = row
    rows["dask"]["reference"] = rows["memory"]["label"]
    if "_values" in rows["memory"] and "_values" in rows["dask"]:
        bench.check(rows["dask"], compare_queries(rows["memory"]["_values"], rows["dask"]["_values"], ["ndcg", "ndcg_cut_10"]))
    if "worker_peaks_mb" in rows["dask"]:
        w["lines"].append(f"Dask: peak RSS per worker {', '.join(f'{x:.0f}' for x in rows['dask']['worker_peaks_mb'])} MB, "
                          f"client {rows['dask']['client_peak_mb']:.0f} MB; workers restarted: {rows['dask']['worker_restarts']}")
    if args.quick:
        return w
    # --only-check: the same steps on the tiny data, 2 copies, so that this code is run in CI; it proves nothing
    copies = 2 if args.only_check else DISTRIBUTED_COPIES
    big = _replicate(meta, copies)
    w["bounded"] = {"run": big["run"], "run_lines": meta["run_lines"] * copies, "run_bytes": big["run_bytes"],
                    "limit_mb": DISTRIBUTED_LIMIT_MB}
    size = f"{meta['run_lines'] * copies:,} lines, {big['run_bytes'] / 2**30:.1f} GiB of text"
    _note(f"  distributed: bounded memory, {size} ...")
    limited = {**common, "qrels": big["qrels"], "run": big["run"], "repeats": 1}
    w["lines"].append(f"bounded memory: the run copied {copies} times ({size}), limit {DISTRIBUTED_LIMIT_MB} MB")
    if not args.only_check:
        control = _spawn("--distributed-child", {**common, "qrels": str(ROOT / "ndcg_nb" / "data" / "sample.qrels"),
                                                 "run": str(ROOT / "ndcg_nb" / "data" / "sample.run"), "repeats": 1,
                                                 "engine": "memory", "rlimit_mb": DISTRIBUTED_LIMIT_MB})
        alone = _spawn("--distributed-child", {**limited, "engine": "memory", "rlimit_mb": DISTRIBUTED_LIMIT_MB})
        w["bounded"].update({"in_memory_control": control, "in_memory": alone})
        if "best" not in control or "refused" not in alone:    # without both, the limit shows nothing
            bench.failed = True
        w["lines"].append("  in memory, RLIMIT_AS {0} MB, sample data (control): {1}".format(
            DISTRIBUTED_LIMIT_MB, "evaluated" if "best" in control else f"FAILED {control}"))
        w["lines"].append("  in memory, RLIMIT_AS {0} MB, the large run: {1}".format(
            DISTRIBUTED_LIMIT_MB, f"fails as expected after {alone['seconds']:.1f} s ({alone['refused']})"
            if "refused" in alone else f"NOT REFUSED, so this run does not show the bound: {alone}"))
    written = bench.values_dir / "distributed-bounded-per-query"      # the workers write every per-query row
    dask = _spawn("--distributed-child", {**limited, "engine": "dask", "worker_mb": DISTRIBUTED_LIMIT_MB,
                                          "blocksize": "8 MiB", "npartitions": 4 if args.only_check else 1200,
                                          "write_per_query": str(written)})   # 1200: ~50,000 run lines each
    if "best" in dask and "_values" in rows["memory"]:
        bench.check(dask, _compare_copies(written, rows["memory"]["_values"], copies))
        shutil.rmtree(written)
    w["bounded"]["dask"] = dask
    if "best" in dask:
        reference = rows["memory"].get("aggregate", {})
        worst = max((abs(dask["aggregate"][m] - v) for m, v in reference.items()), default=float("nan"))
        w["lines"].append(f"  Dask, 2 workers of {DISTRIBUTED_LIMIT_MB} MB: done in {dask['best']:.1f} s; peak RSS per worker "
                          f"{', '.join(f'{x:.0f}' for x in dask['worker_peaks_mb'])} MB, client {dask['client_peak_mb']:.0f} MB; "
                          f"workers restarted: {dask['worker_restarts']}; means vs the single run's: max |diff| {worst:.1e}")
        if worst > TOLERANCE:
            bench.failed = True
        if dask["worker_restarts"]:     # a restart means a worker passed its limit; its peak then covers only the rest
            bench.failed = True
            w["lines"].append(f"  BOUND NOT SHOWN: {dask['worker_restarts']} worker(s) restarted during the run")
        if "check" in dask:
            w["lines"].append(f"  per-query values written by the workers, each copy vs the in-memory values of the "
                              f"original run: {dask['check']['detail']}")
    else:
        bench.failed = True
        w["lines"].append(f"  Dask, 2 workers of {DISTRIBUTED_LIMIT_MB} MB: FAILED {dask}")
    return w


def training_workload(bench, meta, repeats):
    "Per-round eval-metric cost: ndcg_nb's LightGBM metric vs LightGBM's own ndcg@10, on the same scores."
    w = {"name": "training", "kind": "training", "title": f"NDCG@10 eval metric per boosting round, {meta['rows']:,} "
         f"groups x {meta['cols']} documents", "data": meta, "rows": []}
    bench.workloads.append(w)
    files = {k: meta[k] for k in ("labels", "scores", "untied", "sizes")}
    ours = bench.measure(w, "ndcg_nb lightgbm_ndcg(10)", "training", {"tool": "ndcg_nb", **files}, repeats)
    theirs = bench.measure(w, "LightGBM ndcg@10 (eval_train)", "training", {"tool": "lightgbm", **files}, repeats)
    tied = bench.measure(w, "ndcg_nb, scores with ties", "training", {"tool": "ndcg_nb", "tied": True, **files}, repeats)
    theirs["reference"] = tied["reference"] = ours["label"]
    if "_values" in ours and "_values" in theirs:
        bench.check(theirs, compare_numbers(ours["_values"]["mean"], theirs["_values"]["mean"], "mean NDCG@10"))
    return w


def training_targets(bench, add):
    w = next((w for w in bench.workloads if w["name"] == "training"), None)
    if w:
        ours = _row(w, "ndcg_nb lightgbm_ndcg(10)")
        add("training: metric call < 10 ms (10,000 groups x 50 documents)", ours["best"] * 1e3 if _valid(ours) else None,
            10, "<", [ours], "best time of one call in ms (not a ratio)")


def plan_sizes(args):
    if args.only_check:
        return {"files": [(300, 30)], "skewed": (300, 10, 3000), "scaling": [], "arrays": [(500, 20)],
                "groups": (500, 20), "dicts": (300, 30), "repeats": 1}
    if args.quick:
        return {"files": [(2_000, 100)], "skewed": (5_000, 10, 50_000), "scaling": [1_000, 10_000, 100_000],
                "arrays": [(10_000, 100), (100_000, 20)], "groups": (100_000, 20), "dicts": (2_000, 100), "repeats": 2}
    return {"files": [(20_000, 100), (100_000, 100)], "skewed": (5_000, 10, 50_000),
            "scaling": [1_000, 10_000, 100_000, 1_000_000], "arrays": [(100_000, 100), (1_000_000, 20)],
            "groups": (1_000_000, 20), "dicts": (20_000, 100), "repeats": 3}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (a CI-like check, under 2 minutes)")
    parser.add_argument("--only-check", action="store_true", help="tiny data, one call per tool, values compared only")
    parser.add_argument("--json", metavar="PATH", help="write every result and the machine description to PATH")
    parser.add_argument("--data-dir", default=str(Path(tempfile.gettempdir()) / "ndcg_nb_benchmark"),
                        help="where generated data is cached (default: %(default)s)")
    parser.add_argument("--workloads", default="files,skewed,arrays,scaling,dicts,training",
                        help="comma-separated subset of files,skewed,arrays,scaling,dicts,training,distributed")
    parser.add_argument("--prepare", action="store_true", help="only generate (or find) the data, then stop")
    parser.add_argument("--repeats", type=int, help="calls per measurement (default 3; 1 for the largest inputs)")
    args = parser.parse_args()
    chosen = set(args.workloads.split(","))
    unknown = chosen - {"training", "files", "skewed", "arrays", "scaling", "dicts", "distributed"}
    if unknown:
        parser.error(f"unknown workloads: {', '.join(sorted(unknown))}")
    sizes = plan_sizes(args)
    repeats = args.repeats or sizes["repeats"]
    big = lambda lines: 1 if lines > 5_000_000 and not args.repeats else repeats

    bench = Bench(args)
    bench.machine = machine()
    data = Path(args.data_dir)
    v = GENERATOR_VERSION
    plan = {}
    for q, d in sizes["files"] + ([sizes["dicts"]] if "dicts" in chosen else []):
        plan[f"files-{q}x{d}"] = ("trec", {"base": str(data / f"v{v}-trec-{q}x{d}"), "n_queries": q, "depth": d, "seed": 1})
    q, d, b = sizes["skewed"]
    plan["skewed"] = ("trec", {"base": str(data / f"v{v}-trec-skewed-{q}x{d}-{b}"), "n_queries": q, "depth": d,
                               "big_depth": b, "seed": 2})
    for q in sizes["scaling"]:
        plan[f"scaling-{q}"] = ("trec", {"base": str(data / f"v{v}-trec-{q}x10"), "n_queries": q, "depth": 10, "seed": 3})
    for r, c in sizes["arrays"]:
        plan[f"arrays-{r}x{c}"] = ("arrays", {"base": str(data / f"v{v}-arrays-{r}x{c}"), "n_rows": r, "n_cols": c, "seed": 4})
    r, c = sizes["groups"]
    plan[f"arrays-{r}x{c}"] = ("arrays", {"base": str(data / f"v{v}-arrays-{r}x{c}"), "n_rows": r, "n_cols": c, "seed": 4})
    q, d = (300, 30) if args.only_check else (20_000, 100) if args.quick else (100_000, 100)
    plan["distributed"] = ("trec", {"base": str(data / f"v{v}-trec-{q}x{d}-distributed"), "n_queries": q, "depth": d,
                                    "seed": 6})
    tr, tc = (200, 50) if args.only_check else (10_000, 50)
    plan["training"] = ("arrays", {"base": str(data / f"v{v}-training-{tr}x{tc}"), "n_rows": tr, "n_cols": tc, "seed": 7})
    plan["ragged"] = ("arrays", {"base": str(data / f"v{v}-ragged-{r}x{c}"), "n_rows": r, "n_cols": c, "seed": 5, "ragged": True})
    keep = {k: p for k, p in plan.items() if (k.split("-")[0] in chosen)
            or (k.startswith("files") and "dicts" in chosen and k == f"files-{sizes['dicts'][0]}x{sizes['dicts'][1]}")
            or (k in (f"arrays-{r}x{c}", "ragged") and "arrays" in chosen)}
    metas = bench.generate(keep)
    if args.prepare:
        for key, meta in metas.items():
            print(f"{key}: " + ", ".join(f"{k}={v}" for k, v in meta.items() if not isinstance(v, str)))
        return

    peers = ["pytrec_eval", "ranx"]
    if _version("ir_measures"):
        peers.append("ir_measures")
    else:
        bench.notes.append("ir_measures is not installed: left out")
    if "files" in chosen:
        for i, (q, d) in enumerate(sizes["files"]):
            meta = metas[f"files-{q}x{d}"]
            title = "TREC files to numbers: ndcg + ndcg_cut.10, trec_eval conventions"
            bench.files_workload(f"files-{q}x{d}", title, meta, big(meta["run_lines"]), peers, cut_all=(i == 0))
    if "skewed" in chosen:
        bench.files_workload("skewed", "one query of 50,000 documents among 10-document queries" if not args.only_check
                             else "one long query among short ones", metas["skewed"], repeats, ["pytrec_eval"])
        baseline = _spawn("--child", {"kind": "import", "args": {}, "repeats": 1})
        bench.baseline_import_mb = baseline.get("peak_mb")
    if "arrays" in chosen:
        twod = None
        for r, c in sizes["arrays"]:
            w = bench.arrays_workload(f"arrays-{r}x{c}", "NDCG@10 of 2-D label and score arrays", metas[f"arrays-{r}x{c}"],
                                      repeats, 1 if r * c > 10_000_000 and not args.repeats else repeats)
            if (r, c) == sizes["groups"]:
                twod = _row(w, "ndcg_nb ties=average")
        r, c = sizes["groups"]
        bench.groups_workload("groups", "NDCG@10 of 1-D arrays with group_sizes (LightGBM style), ties averaged",
                              metas[f"arrays-{r}x{c}"], metas["ragged"], repeats, twod)
    if "scaling" in chosen and sizes["scaling"]:
        bench.scaling_workload([metas[f"scaling-{q}"] for q in sizes["scaling"]],
                               lambda n: 1 if n >= 1_000_000 and not args.repeats else (5 if n <= 10_000 and not args.repeats else repeats))
    if "training" in chosen:
        training_workload(bench, metas["training"], args.repeats or (1 if args.only_check else 10))
    if "dicts" in chosen:
        q, d = sizes["dicts"]
        meta = metas[f"files-{q}x{d}"]
        w = {"name": "dicts", "kind": "dicts", "title": "from {query: {doc: score}} dicts (informational; "
             "each tool's own structures built inside the timing)", "data": meta, "rows": []}
        bench.workloads.append(w)
        files = {"qrels": meta["qrels"], "run": meta["run"]}
        ours = bench.measure(w, "ndcg_nb", "dicts", {"tool": "ndcg_nb", **files}, repeats)
        # (--only-check leaves ranx out here: its values were checked on the files, and each ranx child
        # compiles numba code for seconds)
        for peer in ("pytrec_eval",) if args.only_check else ("pytrec_eval", "ranx"):
            row = bench.measure(w, peer, "dicts", {"tool": peer, **files}, repeats)
            row["reference"] = "ndcg_nb"
            if "_values" in row and "_values" in ours:
                only = np.load(meta["tie_free"]) if peer == "ranx" else None
                outcome = compare_queries(ours["_values"], row["_values"], ["ndcg", "ndcg_cut_10"], only=only,
                                          tolerance=PEER_TOLERANCE.get(peer, TOLERANCE))
                if only is not None:
                    outcome["detail"] += f" (the {len(only):,} queries without tied scores)"
                bench.check(row, outcome)

    if "distributed" in chosen:
        distributed_workload(bench, metas["distributed"], args)
    bench.machine["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    if not args.only_check:
        bench.targets = evaluate_targets(bench, args.quick)
    if getattr(bench, "baseline_import_mb", None):
        bench.notes.append(f"`python -c 'import ndcg_nb'` alone peaks at {bench.baseline_import_mb:.0f} MB")
    if any(r.get("tool") == "ranx" for w in bench.workloads for r in w["rows"]):
        bench.notes.append("ranx runs its metrics with numba in parallel threads; the other tools use one core. "
                           "ranx's 'first' includes numba compiling its code (or loading it from numba's disk cache)")
    bench.notes.append("values are compared to 1e-12, except pytrec_eval and ir_measures (1e-9): trec_eval keeps "
                       "run scores as float32, where distinct scores can tie (not in this data: scores < 90, 4 decimals); "
                       "ranx orders tied scores by an unstable sort, so it is compared on the queries without tied "
                       "scores, the others on every query")
    text = report(bench, args)
    print(text)
    if args.json:
        payload = {"mode": "only-check" if args.only_check else "quick" if args.quick else "full",
                   "machine": bench.machine, "tolerance": TOLERANCE, "notes": bench.notes,
                   "baseline_import_ndcg_nb_mb": getattr(bench, "baseline_import_mb", None),
                   "workloads": [{**w, "data": _portable(w.get("data", {})),
                                  "rows": [{k: v for k, v in r.items() if not k.startswith("_")} for r in w["rows"]]}
                                 for w in bench.workloads],
                   "targets": bench.targets, "report": text}
        Path(args.json).write_text(json.dumps(payload, indent=1) + "\n")
    if args.only_check and not bench.failed:
        print("\nall values agree")
    sys.exit(1 if bench.failed else 0)


def import_only_main():
    import ndcg_nb  # noqa: F401
    print(MARK + json.dumps({"peak_mb": peak_rss_kb() / 1024}))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        spec = json.loads(sys.argv[2])
        import_only_main() if spec["kind"] == "import" else child_main(spec)
    elif len(sys.argv) == 3 and sys.argv[1] == "--distributed-child":
        distributed_child_main(json.loads(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "--generate":
        generate_main(json.loads(sys.argv[2]))
    else:
        main()
