"""A probe, not part of ndcg_nb: how fast could a polars lane for two TREC files be, with the checks ndcg_nb owes
its users? It measures the polars lane that the performance page's "pyarrow, not polars" decision weighs.

polars reads the run and the qrels, joins and ranks them; ndcg_nb's public API does the rest: a `Plan` of `ndcg` and
`ndcg_cut.10` under the trec_eval preset, its convention's grade rules, `score_depths` of the ranked lists against
the judged pool, and `measure_summary` of each measure, put together as `score_run` puts them into an `Evaluation`.
Two joins:

  strings  polars' join on the (query, document) strings and its sort by query, score, document id: the
           document-id tie order is polars' sort. `--check` compares the per-query table and the aggregate with
           `ndcg_nb.evaluate`'s on the same files.
  hashed   a join on 64-bit hashes of (query, document) that checks both sides hold each pair once, then
           ndcg_nb's numpy ranking. Timing only: no tie order by document id, no test of hash collisions
           (both would cost more), so its figure is a lower bound.

Either way a file is left to ndcg_nb's reader (this probe then says so and stops) when its text is not
plain: a tab, a carriage return, a blank line, two spaces, a line that is not all fields, a NUL, a
byte order mark, invalid UTF-8, a line over ndcg_nb's limit, a field missing, a document listed twice, a
grade that is not a plain decimal, a score that is not finite.

To run it: polars is not a dependency of ndcg_nb, so install it into the environment first; then make the
benchmark's files (written under /tmp/ndcg_nb_benchmark unless `--data-dir` says otherwise); then give the probe
the prefix of one pair of files:

    pip install polars
    python tools/benchmark.py --prepare
    python tools/polars_lane_probe.py /tmp/ndcg_nb_benchmark/v2-trec-20000x100 --join hashed
    python tools/polars_lane_probe.py /tmp/ndcg_nb_benchmark/v2-trec-20000x100 --join strings --check

It prints the stages' times on stderr and the means as trec_eval prints them on stdout. Run it under
`/usr/bin/time -f "%e s %M KB"` for the process wall and peak.
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
MEASURES = ["ndcg", "ndcg_cut.10"]


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


def run_only(pl, run, queries):
    "The run's query ids that no judgment names, sorted (a lazy frame)."
    return run.lazy().select(pl.col("query").unique()).join(queries, on="query", how="anti").sort("query")


def ranked_by_strings(pl, qrels, run, conv):
    """(query index, grade, judged) of the ranked lines, the qrels' query index, the judged query ids (sorted as
    ndcg_nb sorts them: by their UTF-8 bytes), the run's query ids without judgments."""
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
        unjudged, queries, ordered, duplicates, pool = pl.collect_all([run_only(pl, run, queries), queries, ordered,
                                                                       duplicates, pool])
    except pl.exceptions.ComputeError:        # a document judged twice for a query
        return None
    if duplicates.item():
        return None
    return (ordered["q"].to_numpy(), ordered["relevance"].to_numpy(), ordered["judged"].to_numpy(),
            pool["q"].to_numpy(), queries["query"].to_list(), unjudged["query"].to_list())


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
        unjudged, queries, found, run_q, pool = pl.collect_all([run_only(pl, run, queries), queries, found, run_q, pool])
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
    return (query[order], grade[order], judged[order], pool["q"].to_numpy(), queries["query"].to_list(),
            unjudged["query"].to_list())


def lane_reads(plan) -> bool:
    "Whether the steps below reproduce what `score_run` does for `plan`: one convention, scored by the core."
    conv = plan.convention.convention
    return (conv.ties == "docno" and conv.max_docs is None and conv.unjudged != "drop" and conv.negative != "drop"
            and all(m.convention is plan.convention and m.family.scorer(m) == "core"
                    and not m.policies.truncation.context for m in plan.measures))


def ranked_lists(ranked, qrels, plan):
    "The ranked grades and the judged pool of every judged query as `ListsToScore`, and the per-ranked-document judged flags."
    from ndcg_nb.metrics.batch import Batch
    from ndcg_nb.metrics.core import ListsToScore
    from ndcg_nb.engine.judgments import pool_order
    query, grade, judged, pool_query, names, _ = ranked
    n = len(names)
    grades, dropped = plan.convention.read_grades(grade, judged=judged)
    judged = judged if dropped is None else judged & ~dropped
    batch = Batch.from_lengths(grades, np.bincount(query, minlength=n))
    pool_query = pool_query.astype(np.int64)
    pool_grades = plan.convention.read_pool(qrels["relevance"].to_numpy())
    pool = Batch.from_lengths(pool_grades[pool_order(pool_query)], np.bincount(pool_query, minlength=n))
    return ListsToScore.of(batch, pool), judged


def per_query_table(measures: list[dict]):
    "The per-query table as `score_run` shows it: every measure's rows, statuses as text, skipped missing queries left out."
    import pandas as pd
    from ndcg_nb.engine.scoring import STATUSES
    statuses = np.asarray(STATUSES, dtype=object)
    frames = [pd.DataFrame({**m, "query": pd.array(np.asarray(m["query"], dtype=object), dtype="str"),
                            "status": pd.array(statuses[m["status"]], dtype="str")}) for m in measures]
    table = pd.concat(frames, ignore_index=True)
    return table[table.counted | (table.status != "missing_from_run")].reset_index(drop=True)


def evaluation(ranked, qrels, first_line: bytes, plan):
    "ndcg_nb's Evaluation from the ranked lines, by the plan's grade rules, `score_depths` and `measure_summary`."
    import pandas as pd
    from ndcg_nb.metrics.core import score_depths
    from ndcg_nb.engine.plan import query_facts, run_only_scored
    from ndcg_nb.engine.scoring import Evaluation, measure_summary
    lists, judged = ranked_lists(ranked, qrels, plan)
    queries, unjudged = np.asarray(ranked[4], dtype=object), np.asarray(ranked[5], dtype=object)
    in_run = lists.batch.lengths > 0
    groups = {}
    for planned in plan.measures:          # the measures scored together: one ranking read at each of their depths
        groups.setdefault(planned.scoring_key, (planned, []))[1].append(planned.k)
    scores = {key: score_depths(lists, depths, planned.policies) for key, (planned, depths) in groups.items()}
    measures, summary, notes = [], [], []
    for planned in plan.measures:
        conv = planned.convention.convention
        columns, row = measure_summary(planned, scores[planned.scoring_key][planned.k], in_run, queries,
                                       unjudged=run_only_scored(unjudged, conv)[0],
                                       facts=query_facts(lists.batch, judged, planned.k, conv))
        measures.append(columns)
        summary.append(row)
        notes += planned.family.notes(planned, columns["value"][columns["counted"]], len(unjudged))
    return Evaluation(per_query_table(measures), pd.DataFrame(summary), plan.convention.convention,
                      first_line.split()[5].decode(), notes, means={row["measure"]: row["value"] for row in summary},
                      conventions=plan.measure_conventions)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix", help="the files PREFIX.qrels and PREFIX.run (tools/benchmark.py's data)")
    parser.add_argument("--join", choices=("strings", "hashed"), default="hashed")
    parser.add_argument("--check", action="store_true", help="compare the per-query table and the aggregate with evaluate's (--join strings)")
    args = parser.parse_args()
    if args.check and args.join != "strings":
        parser.error("--check takes --join strings: the hashed join has no tie order by document id")
    started = time.perf_counter()
    import polars as pl
    import ndcg_nb.metrics.core, ndcg_nb.engine.judgments, ndcg_nb.engine.runs, ndcg_nb.engine.scoring   # what the stages below use: timed here
    from ndcg_nb.engine.plan import Plan
    plan = Plan.make(MEASURES, preset="trec_eval")
    if not lane_reads(plan):
        sys.exit("the plan takes rules this lane does not reproduce: left to ndcg_nb")
    started = stage("import and plan", started)
    qrels_path, run_path = args.prefix + ".qrels", args.prefix + ".run"
    first_line = plain_text(run_path, "run")
    if plain_text(qrels_path, "qrels") is None or first_line is None:
        sys.exit("not plain text: left to ndcg_nb's reader")
    started = stage("text checks", started)
    both = read(pl, qrels_path, run_path)
    if both is None:
        sys.exit("a field missing, or a grade or score the lane leaves to ndcg_nb's reader")
    started = stage("read", started)
    rank = ranked_by_strings if args.join == "strings" else ranked_by_hashes
    ranked = rank(pl, *both, plan.convention.convention)
    if ranked is None:
        sys.exit("a (query, document) pair listed twice: left to ndcg_nb's reader")
    started = stage("join and rank", started)
    result = evaluation(ranked, both[0], first_line, plan)
    stage("score", started)
    print(" ".join(f"{name} {seconds:.2f} s" for name, seconds in STAGES.items()), file=sys.stderr)
    print(result.to_trec())
    if args.check:
        import pandas as pd
        from ndcg_nb import evaluate
        general = evaluate(qrels_path, run_path, MEASURES, preset="trec_eval", progress=False)
        try:
            pd.testing.assert_frame_equal(result.per_query, general.per_query, check_exact=True)
            pd.testing.assert_frame_equal(result.aggregate, general.aggregate, check_exact=True)
        except AssertionError as difference:
            sys.exit(f"the lane's Evaluation differs from evaluate's:\n{difference}")
        print("the per-query table and the aggregate are identical to evaluate's", file=sys.stderr)


if __name__ == "__main__":
    main()
