"""Spark MLlib RankingMetrics.ndcgAt, run here in local mode (pyspark 4.3, Java 17), one query at a time, over every
query of the run or the qrels (Spark counts both). The run sorted by score, ties in input order, is the prediction;
the qrels of the query, in their own order, are the labels.

- RankingMetrics_triples: PySpark's class given (prediction, labels, relevances) rows, labels = every judged document,
  relevances = the grades. PySpark hands Scala only the first two columns (PythonMLLibAPI.newRankingMetrics builds
  pairs from getSeq(0) and getSeq(1)), so this is binary with every label relevant.
- RankingMetrics_pairs_relevant: PySpark's class given (prediction, labels) pairs, labels = the documents graded above 0.
- of_graded: Scala's graded ndcgAt, reached through py4j as a Java user reaches it, RankingMetrics.of on an RDD of
  scala.Tuple3(prediction, labels, relevances); labels = every judged document, relevances = the grades.

PySpark infers the type of each column from the rows, and cannot from a lone row with an empty list (a query only in
the run or only in the qrels): such a query goes with a first row (["probe"], ["probe"]) that scores exactly 1, and
its value is 2 * mean - 1. A case without a depth uses ndcgAt(1000000), deeper than any list."""
from .common import load_cases, run_variant, mean, save
from .derive import order

FULL_DEPTH = 1_000_000
PROBE = (["probe"], ["probe"], [1.0])


def session():
    "The local Spark session (one core, no UI), created once."
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[1]").appName("ndcg_nb census").config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def python_ndcg(row, k):
    "ndcgAt(k) of PySpark's RankingMetrics on one row (a pair or a triple)."
    from pyspark.mllib.evaluation import RankingMetrics
    sc = session().sparkContext
    if all(row[:2]):
        return RankingMetrics(sc.parallelize([row])).ndcgAt(k)
    return 2 * RankingMetrics(sc.parallelize([PROBE[:len(row)], row])).ndcgAt(k) - 1


def scala_graded_ndcg(row, k):
    "ndcgAt(k) of Scala's RankingMetrics.of on one (prediction, labels, relevances) row, through py4j."
    sc = session().sparkContext
    jvm = sc._jvm

    def java_list(values):
        made = jvm.java.util.ArrayList()
        for value in values:
            made.add(value)
        return made
    rows = java_list([jvm.scala.Tuple3(java_list(row[0]), java_list(row[1]), java_list(row[2]))])
    return jvm.org.apache.spark.mllib.evaluation.RankingMetrics.of(sc._jsc.parallelize(rows)).ndcgAt(k)


ROWS = {"all": lambda run, qrels: [*run, *qrels], "run": lambda run, qrels: list(run),
        "qrels": lambda run, qrels: list(qrels), "both": lambda run, qrels: [q for q in run if q in qrels]}


def make(kind, rows="all", relevant_from=None):
    """`rows`: which queries are rows of Spark's input (an outer join, the run's, the qrels', an inner join);
    `relevant_from`: pairs whose labels are the documents graded at least that (None: above 0)."""
    def fn(case):
        k = case["k"] or FULL_DEPTH
        pq = {}
        for q in dict.fromkeys(ROWS[rows](case["run"], case["qrels"])):
            prediction, judged = order(case["run"].get(q, {})), case["qrels"].get(q, {})
            if kind == "pairs_relevant":
                relevant = (lambda g: g > 0) if relevant_from is None else (lambda g: g >= relevant_from)
                pq[q] = python_ndcg((prediction, [d for d, g in judged.items() if relevant(g)]), k)
            else:
                row = (prediction, list(judged), [float(g) for g in judged.values()])
                pq[q] = python_ndcg(row, k) if kind == "triples" else scala_graded_ndcg(row, k)
        return pq, mean(pq.values())
    return fn


variants = {"RankingMetrics_triples": make("triples"), "RankingMetrics_pairs_relevant": make("pairs_relevant"),
            "of_graded": make("graded")}
more_variants = {**variants, "RankingMetrics_pairs_grade_at_least_1": make("pairs_relevant", relevant_from=1),
                 **{f"RankingMetrics_triples_rows_{rows}": make("triples", rows) for rows in ("run", "qrels", "both")},
                 "of_graded_rows_run": make("graded", "run")}
if __name__ == "__main__":   # the census run (--more: the run on cases_more.json); tests import the variants only
    import sys
    import pyspark
    more = "--more" in sys.argv
    chosen = more_variants if more else variants
    results = {c["name"]: {v: run_variant(f, c) for v, f in chosen.items()} for c in load_cases(more)}
    save("pyspark", {"version": pyspark.__version__, "java": session().sparkContext._jvm.System.getProperty("java.version"),
                     "notes": "local mode; labels in qrels order; queries only in the run or only in the qrels scored "
                              "with a probe row (see run_pyspark.py)"}, results, more=more)
    session().stop()
