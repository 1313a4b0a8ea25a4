"""Synthetic benchmark data: TREC run and qrels files built as bytes with NumPy (10M lines in seconds),
label/score arrays saved as .npy, and the run copied under other query ids for the bounded-memory check.

Every generator writes a small .json description next to its files and returns it; when that
description exists the files are reused, so data is generated once per --data-dir. Generation runs in
a child process (`generate` job in child.py) so that the parent's RSS stays small.
"""
import json
import os
from pathlib import Path

import numpy as np

GENERATOR_VERSION = 2  # bump when the data generators change, so cached files are rebuilt


# --- bytes of text, column by column ------------------------------------------------------------------

def ascii_digits(x, width, pad=False):
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


def constant_column(text, n):
    "The same text on n rows, as an (n, len(text)) byte block."
    return np.broadcast_to(np.frombuffer(text.encode(), np.uint8), (n, len(text)))


def write_lines(handle, n, columns, chunk=1_000_000):
    "Write n lines; `columns(sl)` gives the byte blocks of the rows in slice `sl`. 0 bytes are dropped."
    for start in range(0, n, chunk):
        block = np.concatenate(columns(slice(start, min(n, start + chunk))), axis=1).ravel()
        handle.write(block[block != 0].tobytes())


def short_doc_ids(docnum):
    "Short ids, one per document of its query: d<number:11>, the generator's document number."
    return [constant_column("d", len(docnum)), ascii_digits(docnum, 11, pad=True)]


def clueweb_doc_ids(docnum):
    "clueweb09-style ids: clueweb09-en<segment:4>-<file:2>-<record:5>."
    n = len(docnum)
    return [constant_column("clueweb09-en", n), ascii_digits(docnum // 10 ** 7, 4, pad=True),
            constant_column("-", n), ascii_digits(docnum // 10 ** 5 % 100, 2, pad=True),
            constant_column("-", n), ascii_digits(docnum % 10 ** 5, 5, pad=True)]


# --- TREC files ---------------------------------------------------------------------------------------

def _judged_and_retrieved_documents(rng, depths):
    "Distinct document numbers per query, shuffled: the first `depths[q]` are retrieved, the rest only judged."
    n_queries = len(depths)
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
    return query_all, docnum, position, retrieved


def _run_scores(rng, run_query, depths):
    "Non-increasing scores per query in units of 1e-4, ties in about 30% of queries; and which queries have ties."
    n_queries, n_run = len(depths), len(run_query)
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
    return score, has_tie


def _two_decimal_scores(rng, run_query, depths):
    "Non-increasing scores per query with two decimals below 5, in units of 1e-4: about 20% of a query's documents tie."
    cents = rng.integers(0, 500, len(run_query))
    cents = cents[np.lexsort((-cents, run_query))]          # decreasing within each query (run_query is grouped)
    tied = np.zeros(len(run_query), dtype=bool)
    same = (cents[1:] == cents[:-1]) & (run_query[1:] == run_query[:-1])
    tied[1:] |= same
    tied[:-1] |= same
    return cents * 100, np.bincount(run_query[tied], minlength=len(depths)) > 0


def _qrels(rng, query_all, docnum, retrieved):
    "About 65% of the retrieved documents judged 0-3, every unretrieved one judged 1-3; by query, then document."
    total = len(query_all)
    judged = ~retrieved | (rng.random(total) < 0.65)
    grade = np.where(retrieved, rng.choice(4, total, p=[0.45, 0.25, 0.18, 0.12]),
                     rng.choice([1, 2, 3], total, p=[0.5, 0.3, 0.2]))
    order = np.lexsort((docnum[judged], query_all[judged]))
    return query_all[judged][order], docnum[judged][order], grade[judged][order]


def _write_run(path, query, doc, rank, score, doc_ids=clueweb_doc_ids):
    with open(str(path) + ".tmp", "wb") as handle:
        write_lines(handle, len(query), lambda s: [
            ascii_digits(query[s] + 1, 7), constant_column(" Q0 ", s.stop - s.start), *doc_ids(doc[s]),
            constant_column(" ", s.stop - s.start), ascii_digits(rank[s], 6), constant_column(" ", s.stop - s.start),
            ascii_digits(score[s] // 10_000, 6), constant_column(".", s.stop - s.start),
            ascii_digits(score[s] % 10_000, 4, pad=True), constant_column(" bench\n", s.stop - s.start)])


def _write_qrels(path, query, doc, grade, doc_ids=clueweb_doc_ids):
    with open(str(path) + ".tmp", "wb") as handle:
        write_lines(handle, len(query), lambda s: [
            ascii_digits(query[s] + 1, 7), constant_column(" 0 ", s.stop - s.start), *doc_ids(doc[s]),
            constant_column(" ", s.stop - s.start), ascii_digits(grade[s], 1), constant_column("\n", s.stop - s.start)])


def make_trec(base: Path, n_queries: int, depth: int, big_depth: int = 0, seed: int = 0, short: bool = False) -> dict:
    """A run of `n_queries` x `depth` documents (one query with `big_depth` if given) and its qrels.

    Like a real run: written by query, then by descending score; about 30% of queries have tied
    scores (tied documents in no particular order); scores have 4 decimals. The qrels judge about
    65% of the retrieved documents (grades 0-3) and add a few relevant documents the run missed;
    they are written by query, then document id. `short`: short document ids
    (`d` and 11 digits, none shared between queries) and scores of two decimals below 5, so that about
    20% of the scores tie.
    """
    meta_path = base.with_suffix(".json")
    if meta_path.exists():
        return json.loads(meta_path.read_text())
    rng = np.random.default_rng(seed)
    depths = np.full(n_queries, depth, np.int64)
    if big_depth:
        depths[n_queries // 2] = big_depth
    query_all, docnum, position, retrieved = _judged_and_retrieved_documents(rng, depths)
    run_query, run_doc, run_rank = query_all[retrieved], docnum[retrieved], position[retrieved] + 1
    score, has_tie = (_two_decimal_scores if short else _run_scores)(rng, run_query, depths)
    q_query, q_doc, q_grade = _qrels(rng, query_all, docnum, retrieved)
    base.parent.mkdir(parents=True, exist_ok=True)
    run_path, qrels_path = base.with_suffix(".run"), base.with_suffix(".qrels")
    ids = short_doc_ids if short else clueweb_doc_ids
    _write_run(run_path, run_query, run_doc, run_rank, score, ids)
    _write_qrels(qrels_path, q_query, q_doc, q_grade, ids)
    os.replace(str(run_path) + ".tmp", run_path)
    os.replace(str(qrels_path) + ".tmp", qrels_path)
    np.save(base.with_suffix(".tiefree.npy"), (np.flatnonzero(~has_tie) + 1).astype(str))
    meta = {"run": str(run_path), "qrels": str(qrels_path), "tie_free": str(base.with_suffix(".tiefree.npy")),
            "queries": n_queries, "run_lines": len(run_query), "qrels_lines": len(q_query),
            "queries_with_ties": int(has_tie.sum()), "max_depth": int(depths.max())}
    meta_path.write_text(json.dumps(meta))
    return meta


# --- arrays -------------------------------------------------------------------------------------------

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


ARRAY_FILES = ("labels", "scores", "untied", "sizes")


def array_files(meta: dict) -> dict:
    "The .npy paths of an arrays description, as the keyword arguments the array peers take."
    return {k: meta[k] for k in ARRAY_FILES}


def trec_files(meta: dict) -> dict:
    "The run and qrels paths of a TREC description, as the keyword arguments the file peers take."
    return {"qrels": meta["qrels"], "run": meta["run"]}


# --- planning and generating --------------------------------------------------------------------------

def trec_spec(data_dir: Path, name: str, n_queries: int, depth: int, seed: int, big_depth: int = 0,
              short: bool = False) -> tuple:
    "One entry of a generation plan: TREC files named `name` (the version is prefixed) in `data_dir`."
    kwargs = {"base": str(Path(data_dir) / f"v{GENERATOR_VERSION}-{name}"), "n_queries": n_queries, "depth": depth}
    if big_depth:
        kwargs["big_depth"] = big_depth
    if short:
        kwargs["short"] = True
    return "trec", {**kwargs, "seed": seed}


def arrays_spec(data_dir: Path, name: str, n_rows: int, n_cols: int, seed: int, ragged: bool = False) -> tuple:
    "One entry of a generation plan: arrays named `name` (the version is prefixed) in `data_dir`."
    kwargs = {"base": str(Path(data_dir) / f"v{GENERATOR_VERSION}-{name}"), "n_rows": n_rows, "n_cols": n_cols,
              "seed": seed}
    return "arrays", {**kwargs, "ragged": True} if ragged else kwargs


def generate(plan: dict) -> dict:
    "{key: (kind, kwargs)} -> {key: description}; run in a child (the `generate` job)."
    out = {}
    for key, (kind, kwargs) in plan.items():
        kwargs = dict(kwargs)
        kwargs["base"] = Path(kwargs["base"])
        out[key] = (make_trec if kind == "trec" else make_arrays)(**kwargs)
    return out


def replicate_trec(meta: dict, copies: int) -> dict:
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
