"""A probe, not part of ndcg_nb: how fast could a polars lane for two TREC files be, with the checks ndcg_nb owes
its users? It measures the polars lane that the performance page's "pyarrow, not polars" decision weighs.

polars reads the run and the qrels, joins and ranks them; ndcg_nb's own code (grade rules, `score_depths`,
`measure_summary`) does the rest, under the trec_eval preset, for `ndcg` and `ndcg_cut.10`. Two joins:

  strings  polars' join on the (query, document) strings and its sort by query, score, document id: the
           document-id tie order is polars' sort. `--check` compares the per-query table with `evaluate`'s.
  hashed   a join on 64-bit hashes of (query, document) that checks both sides hold each pair once, then
           ndcg_nb's numpy ranking. Timing only: no tie order by document id, no test of hash collisions
           (both would cost more), so its figure is a lower bound.

Either way a file is left to ndcg_nb's reader (this probe then says so and stops) when its text is not
plain: a tab, a carriage return, a blank line, two spaces, a line that is not all fields, a NUL, a
byte order mark, invalid UTF-8, a line over ndcg_nb's limit, a field missing, a document listed twice, a
grade that is not a plain decimal, a score that is not finite.

    python tools/polars_lane_probe.py /tmp/ndcg_nb_benchmark/v2-trec-20000x100 --join hashed
    python tools/polars_lane_probe.py /tmp/ndcg_nb_benchmark/v2-trec-20000x100 --join strings --check

Run it under `/usr/bin/time -f "%e s %M KB"` for the process wall and peak; it prints the stages' times.
Needs polars (not a dependency of ndcg_nb: `pip install polars`).
"""
from __future__ import annotations

import argparse
import codecs
import mmap
import re
import sys
import time

import numpy as np

FIELDS = {"qrels": ("query", "iter", "doc", "relevance"), "run": ("query", "q0", "doc", "rank", "score", "tag")}
BLOCK = 1 << 20
DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)$")
STAGES = {}


def stage(name, started):
    STAGES[name] = time.perf_counter() - started
    return time.perf_counter()


def text_facts(data: np.ndarray):
    "(spaces, lines, ASCII only) if every whitespace byte is a space or a line break and no two are neighbours."
    spaces = breaks = 0
    ascii_only, previous_white = True, True
    for start in range(0, len(data), BLOCK):
        block = data[start:start + BLOCK]
        white = block <= 32
        n_spaces, n_breaks = int(np.count_nonzero(block == 32)), int(np.count_nonzero(block == 10))
        if np.count_nonzero(white) != n_spaces + n_breaks or (previous_white and white[0]) or (white[1:] & white[:-1]).any():
            return None
        spaces, breaks, previous_white = spaces + n_spaces, breaks + n_breaks, bool(white[-1])
        ascii_only = ascii_only and int(block.max()) < 128
    return spaces, breaks + int(data[-1] != 10), ascii_only


def plain_text(path, kind: str):
    "The first line of a file whose text the lane reads as ndcg_nb's reader would; None: leave it to that reader."
    from ndcg_nb.engine.runs import MAX_LINE_BYTES
    with open(path, "rb") as handle:
        if handle.read(2) == b"\x1f\x8b" or handle.seek(0, 2) == 0:
            return None
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            facts = text_facts(np.frombuffer(view, dtype=np.uint8))
            window = MAX_LINE_BYTES // 2
            if facts is None or any(view.find(b"\n", at, at + window) < 0 for at in range(0, len(view) - window, window)):
                return None
            spaces, lines, ascii_only = facts
            if spaces != lines * (len(FIELDS[kind]) - 1):      # with the null check below: every line has all fields
                return None
            if not ascii_only:
                decoder = codecs.getincrementaldecoder("utf-8")()
                try:
                    for at in range(0, len(view), BLOCK):
                        decoder.decode(view[at:at + BLOCK])
                    decoder.decode(b"", final=True)
                except UnicodeDecodeError:
                    return None
                if view.find(b"\xef\xbb\xbf") >= 0:
                    return None
            end = view.find(b"\n")
            return bytes(view[:end if end >= 0 else len(view)])


def read(pl, qrels_path, run_path):
    "Both files as polars frames (run: query, doc, score, short), or None."
    def scan(path, kind, types):
        names = FIELDS[kind]
        return pl.scan_csv(path, separator=" ", has_header=False, quote_char=None, new_columns=list(names),
                           schema={n: types.get(n, pl.String) for n in names}, low_memory=True)
    qrels = scan(qrels_path, "qrels", {}).select("query", "doc", "relevance")
    run = scan(run_path, "run", {"score": pl.Float64}).select(
        "query", "doc", (pl.col("score") + 0.0).alias("score"), pl.col("tag").is_null().alias("short"))
    try:
        qrels, run = pl.collect_all([qrels, run], engine="streaming")
    except pl.exceptions.PolarsError:
        return None
    nulls = pl.collect_all([qrels.lazy().select(pl.any_horizontal(pl.all().is_null()).any()),
                            run.lazy().select((pl.any_horizontal(pl.all().is_null()) | pl.col("short")
                                               | ~pl.col("score").is_finite()).any())])
    if any(frame.item() for frame in nulls):
        return None
    spellings = qrels["relevance"].unique().to_list()
    if not all(DECIMAL.match(s) for s in spellings):
        return None
    grade = pl.col("relevance").replace_strict({s: float(s) for s in spellings}, return_dtype=pl.Float64)
    return qrels.with_columns(grade), run.drop("short")


def ranked_by_strings(pl, qrels, run, conv):
    "(query index, grade, judged) of the ranked lines, the qrels' query index, the judged query ids."
    queries = qrels.lazy().select(pl.col("query").unique().sort()).with_row_index("q")
    score = pl.col("score").cast(pl.Float32).cast(pl.Float64) if conv.float32_scores else pl.col("score")
    joined = (run.lazy().select("query", "doc", score.alias("score"))
              .join(qrels.lazy(), on=["query", "doc"], how="left", validate="m:1")
              .join(queries, on="query", how="left"))
    ordered = (joined.filter(pl.col("q").is_not_null()).sort(["q", "score", "doc"], descending=[False, True, True])
               .select("q", pl.col("relevance").fill_null(0.0), pl.col("relevance").is_not_null().alias("judged")))
    duplicates = run.lazy().select(pl.struct("query", "doc").is_duplicated().any())
    pool = qrels.lazy().select("query").join(queries, on="query", how="left", maintain_order="left")
    try:
        queries, ordered, duplicates, pool = pl.collect_all([queries, ordered, duplicates, pool])
    except pl.exceptions.ComputeError:        # a document judged twice for a query
        return None
    if duplicates.item():
        return None
    return (ordered["q"].to_numpy(), ordered["relevance"].to_numpy(), ordered["judged"].to_numpy(),
            pool["q"].to_numpy(), queries["query"].to_list())


def ranked_by_hashes(pl, qrels, run, conv):
    "As `ranked_by_strings`, joined on 64-bit hashes and ranked by ndcg_nb's numpy code (no document-id tie order)."
    from ndcg_nb.engine.judgments import rank_order, JoinedRun
    key = pl.struct("query", "doc").hash(1).alias("key")
    queries = qrels.lazy().select(pl.col("query").unique().sort()).with_row_index("q")
    found = (run.lazy().with_row_index("row").select(key, "row")
             .join(qrels.lazy().with_row_index("line").select(key, "line"), on="key", how="left", validate="1:1")
             .sort("row").select("line"))
    run_q = run.lazy().select("query").join(queries, on="query", how="left", maintain_order="left")
    pool = qrels.lazy().select("query").join(queries, on="query", how="left", maintain_order="left")
    try:
        queries, found, run_q, pool = pl.collect_all([queries, found, run_q, pool])
    except pl.exceptions.ComputeError:        # a pair listed twice (or two pairs with one hash)
        return None
    line = found["line"].fill_null(-1).to_numpy()
    query = run_q["q"].fill_null(-1).to_numpy().astype(np.int64)
    keep = query >= 0
    query, line = query[keep], line[keep]
    score = run["score"].to_numpy()[keep]
    score = score.astype(np.float32).astype(float) if conv.float32_scores else score
    judged = line >= 0
    grade = np.where(judged, qrels["relevance"].to_numpy()[np.maximum(line, 0)], 0.0)
    joined = JoinedRun(query, np.zeros(len(query), dtype=np.int64), None, score, grade, judged, None)
    order = rank_order(joined, "input")
    return query[order], grade[order], judged[order], pool["q"].to_numpy(), queries["query"].to_list()


def evaluation(ranked, qrels, first_line: bytes, conv, measures):
    "ndcg_nb's Evaluation from the ranked lines, by ndcg_nb's own grade rules, scoring and summary."
    import pandas as pd
    from ndcg_nb.metrics.batch import Batch
    from ndcg_nb.metrics.core import score_depths
    from ndcg_nb.engine.measures import parse_measures
    from ndcg_nb.engine.plan import apply_grade_rules
    from ndcg_nb.engine.scoring import Evaluation, measure_summary, _shown_rows as shown_rows   # score_run's own rule
    query, grade, judged, pool_query, names = ranked
    n = len(names)
    counts = np.bincount(query, minlength=n)
    batch = Batch.from_lengths(apply_grade_rules(grade, conv, judged=judged)[0], counts)
    pool_query = pool_query.astype(np.int64)
    order = np.argsort(pool_query, kind="stable")
    pool_grades = apply_grade_rules(qrels["relevance"].to_numpy(), conv, negative=conv.ideal_negatives == "keep",
                                    pool=True)[0]
    ideal = Batch.from_lengths(pool_grades[order], np.bincount(pool_query, minlength=n))
    wanted = parse_measures(measures)
    scores = score_depths(batch, [m.k for m in wanted], ideal=ideal, gain=conv.gain, discount=conv.discount,
                          truncation=conv.truncation, normalization=conv.normalization,
                          ideal_negatives=conv.ideal_negatives)
    queries = np.asarray(names, dtype=object)
    column = pd.array(queries, dtype="str")
    frames, summary = [], []
    for m in wanted:
        dcg, idcg, low, high = scores[m.k]
        rows, row = measure_summary(m.name, queries, dcg, idcg, low, high, counts > 0, conv, query_column=column)
        frames.append(rows)
        summary.append(row)
    return Evaluation(shown_rows(frames), pd.DataFrame(summary), conv, first_line.split()[5].decode())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix", help="the files PREFIX.qrels and PREFIX.run (tools/benchmark.py's data)")
    parser.add_argument("--join", choices=("strings", "hashed"), default="hashed")
    parser.add_argument("--check", action="store_true", help="compare the per-query table with evaluate's")
    args = parser.parse_args()
    started = time.perf_counter()
    import polars as pl
    import ndcg_nb.metrics.core, ndcg_nb.engine.judgments, ndcg_nb.engine.runs, ndcg_nb.engine.scoring   # what the stages below use: timed here
    from ndcg_nb.engine.plan import resolve_convention
    started = stage("import", started)
    qrels_path, run_path = args.prefix + ".qrels", args.prefix + ".run"
    first_line = plain_text(run_path, "run")
    if plain_text(qrels_path, "qrels") is None or first_line is None:
        sys.exit("not plain text: left to ndcg_nb's reader")
    started = stage("text checks", started)
    both = read(pl, qrels_path, run_path)
    if both is None:
        sys.exit("a field missing, or a grade or score the lane leaves to ndcg_nb's reader")
    started = stage("read", started)
    conv = resolve_convention("trec_eval")
    rank = ranked_by_strings if args.join == "strings" else ranked_by_hashes
    ranked = rank(pl, *both, conv)
    if ranked is None:
        sys.exit("a (query, document) pair listed twice: left to ndcg_nb's reader")
    started = stage("join and rank", started)
    result = evaluation(ranked, both[0], first_line, conv, ["ndcg", "ndcg_cut.10"])
    stage("score", started)
    print(" ".join(f"{name} {seconds:.2f} s" for name, seconds in STAGES.items()), file=sys.stderr)
    print(result.to_trec())
    if args.check:
        import pandas as pd
        from ndcg_nb import evaluate
        general = evaluate(qrels_path, run_path, ["ndcg", "ndcg_cut.10"], preset="trec_eval", progress=False)
        pd.testing.assert_frame_equal(result.per_query, general.per_query, check_exact=True)
        pd.testing.assert_frame_equal(result.aggregate, general.aggregate, check_exact=True)
        print("the per-query table and the aggregate are identical to evaluate's", file=sys.stderr)


if __name__ == "__main__":
    main()
