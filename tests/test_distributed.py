"""ndcg_nb.integrations.distributed gives the in-memory numbers: on a Dask LocalCluster of 2 worker processes (one per module),
for every preset and measure, missing queries (-c), ties and queries without judgments, from DataFrames and from
files; a worker without a needed plugin names it. Spark (local[2]) runs on request: NDCG_NB_SPARK_TESTS=1."""
import gzip
import json
import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from ndcg_nb import hookimpl, register_plugin, unregister_plugin
from ndcg_nb.integrations.distributed import MissingExtraError, evaluate, evaluate_on_dask, evaluate_spark
from ndcg_nb.errors import InputError, UsageError
from ndcg_nb.evaluation import evaluate as evaluate_in_memory
from ndcg_nb.plugins import PluginError, load_plugins, policies_of
from ndcg_nb.engine.plan import resolve_convention
from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN, read_qrels, read_run

TREC = os.path.join(os.path.dirname(__file__), "data", "trec_eval", "test")
ALL_PRESETS = sorted(policies_of("preset"))


def _partitions_carry(preset) -> bool:
    "Whether the distributed engines carry the preset's convention (they refuse the rules that look at every query)."
    convention = resolve_convention(preset)
    return convention.aggregation == "mean" and convention.zero_grade_sum != "skip" and convention.no_hits != "zero"


PRESETS = [p for p in ALL_PRESETS if _partitions_carry(p)]
REFUSED = [p for p in ALL_PRESETS if not _partitions_carry(p)]
MEASURES = ["ndcg", "ndcg_cut", "ndcg_cut.3,7", "nDCG@2", "ndcg.1=3,2=9"]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


def assert_same(ours, theirs):
    "Per-query values to 1e-12 (ids, statuses and counted flags exactly), and the aggregate rows."
    mine, ref = ours.per_query, theirs.per_query
    assert list(mine.columns) == list(ref.columns)
    for column in ("query", "measure", "status"):
        assert mine[column].astype(str).tolist() == ref[column].astype(str).tolist(), column
    assert mine["counted"].tolist() == ref["counted"].tolist()
    for column in ("value", "dcg", "idcg"):
        np.testing.assert_allclose(mine[column].to_numpy(float), ref[column].to_numpy(float), rtol=0, atol=1e-12,
                                   err_msg=column)
    pd.testing.assert_frame_equal(ours.aggregate.drop(columns="value"), theirs.aggregate.drop(columns="value"),
                                  check_dtype=False)
    np.testing.assert_allclose(ours.aggregate["value"].to_numpy(float), theirs.aggregate["value"].to_numpy(float),
                               rtol=0, atol=1e-12)
    assert ours.convention == theirs.convention and ours.conventions == theirs.conventions


def same(qrels, run, measures=MEASURES, npartitions=4, blocksize="64 MiB", **options):
    """The same values on workers as in memory. Where a preset refuses negative grades (the ntcir presets, which the
    sample's judgment of -1 trips), both engines must refuse them alike, and the values are compared with them read as 0."""
    in_memory = lambda **more: evaluate_in_memory(qrels if not isinstance(qrels, dd.DataFrame) else qrels.compute(),
                                                  run if not isinstance(run, dd.DataFrame) else run.compute(),
                                                  measures, progress=False, **options, **more)
    try:
        theirs = in_memory()
    except InputError as refused:
        assert "refuses negative grades" in str(refused), refused
        said = str(refused).split(": ", 1)[1]          # the query and document named may be another partition's first
        with pytest.raises(Exception, match=r"query '[^']+', document '[^']+': " + re.escape(said)):
            evaluate(qrels, run, measures, npartitions=npartitions, blocksize=blocksize, **options)
        options, theirs = {**options, "negative": "zero"}, in_memory(negative="zero")
    ours = evaluate(qrels, run, measures, npartitions=npartitions, blocksize=blocksize, **options)
    assert_same(ours, theirs)
    return ours, theirs


def generated(seed=0, n_queries=120):
    """Qrels and a run with many tied scores (integers 0..4), queries missing from the run, run queries without
    judgments, queries whose grades are all 0 (IDCG 0), negative and fractional grades, unjudged documents."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        docs = [f"d{d}" for d in rng.choice(60, size=rng.integers(1, 25), replace=False)]
        kind = q % 10
        grades = np.zeros(len(docs)) if kind == 3 else rng.choice([-1, 0, 0, 1, 2, 3, 1.5], size=len(docs))
        if kind != 9:                          # kind 9: judged, never retrieved
            qrels += [(f"q{q}", d, g) for d, g in zip(docs, grades)]
        if kind != 5:                          # kind 5: judged, not in the run
            retrieved = [f"d{d}" for d in rng.choice(60, size=rng.integers(1, 30), replace=False)]
            run += [(f"q{q}", d, float(rng.integers(0, 5))) for d in retrieved]
    qrels = pd.DataFrame(qrels, columns=["query", "doc", "relevance"])
    run = pd.DataFrame(run, columns=["query", "doc", "score"]).sample(frac=1, random_state=seed)  # queries interleaved
    return qrels, run.reset_index(drop=True)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("complete", [False, True])
def test_sample_every_preset(client, preset, complete):
    same(SAMPLE_QRELS, SAMPLE_RUN, preset=preset, **({"missing_queries": "zero"} if complete else {}))


@pytest.mark.parametrize("preset", REFUSED)
def test_presets_the_partitions_cannot_carry_are_refused(client, preset):
    with pytest.raises(Exception, match="is not supported on Dask or Spark yet"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg"], preset=preset)


def test_dialects_each_their_convention(client):
    "With no preset named, trec_eval's, ir_measures' and ranx's names take their own conventions on Dask too."
    ours, _ = same(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut.10", "nDCG@10", "ndcg@10", "ndcg_burges@5"])
    assert [c.preset for c in ours.conventions.values()] == ["trec_eval", "ir_measures", "ranx", "ranx_burges"]
    assert ours.aggregate["n_missing_scored_zero"].tolist() == [0, 1, 1, 1]


def test_measures_of_other_tools_refused(client):
    with pytest.raises(UsageError, match="AP, P@10: computed by ir_measures, which runs in memory"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg", "AP", "P@10"])
    with pytest.raises(UsageError, match="map: computed by ir_measures, which runs in memory"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg", "map"], preset="trec_eval_9")


@pytest.mark.parametrize("complete", [False, True])
def test_trec_eval_measures_of_relevance_on_workers(client, complete):
    "map, P, recall, recip_rank, Rprec, success and map_cut, which ndcg_nb computes under trec_eval, on workers too."
    measures = ["map", "P.5,10", "recall.10", "recip_rank", "Rprec", "success.1", "map_cut.10", "ideal_dcg"]
    same(os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.trunc"), measures, npartitions=2,
         preset="trec_eval", **({"missing_queries": "zero"} if complete else {}))


def test_trec_eval_complete_flag(client):
    ours, _ = same(SAMPLE_QRELS, SAMPLE_RUN, preset="trec_eval:complete=1")
    assert ours.aggregate["n_missing_scored_zero"].iloc[0] == 1


@pytest.mark.parametrize("complete", [False, True])
def test_trec_eval_family_with_gain_tables(client, complete):
    "dcg, ideal_dcg and trec_eval's gain tables on workers, on trec_eval's collection with judgments of -1."
    measures = ["dcg", "ideal_dcg", "ndcg.0=1,1=4", "ndcg.-1=-2,1=1", "dcg.1=1.5,2=1", "ndcg_rel.0=1,1=4", "Rndcg.0=1,1=4"]
    same(os.path.join(TREC, "qrels.rel_level"), os.path.join(TREC, "results.test"), measures, npartitions=2,
         preset="trec_eval", **({"missing_queries": "zero"} if complete else {}))


@pytest.mark.parametrize("preset", PRESETS)
def test_generated_ties_every_preset(client, preset):
    qrels, run = generated()
    same(dd.from_pandas(qrels, npartitions=3), dd.from_pandas(run, npartitions=5), npartitions=7, preset=preset)


@pytest.mark.parametrize("overrides", [
    {"ties": "input"}, {"ties": "average"}, {"ties": "docno", "missing_queries": "zero"},
    {"zero_idcg": "skip"}, {"zero_idcg": "nan"}, {"zero_idcg": "one", "missing_queries": "zero"},
    {"unjudged": "drop"}, {"max_docs": 5}, {"negative": "keep", "normalization": "retrieved"},
    {"normalization": "minmax"}, {"gain": "exponential", "discount": "ln"}, 
    {"truncation": "pad:fill=0", "measures": ["ndcg_cut.3,7", "nDCG@2"]},   # 'pad' and 'full' need a depth
    {"normalization": "full", "measures": ["ndcg_cut.3,7", "nDCG@2"]},
    {"unjudged_queries": "zero"}, {"unjudged_queries": "one", "zero_idcg": "one"},           # rules applied query by query
    {"negative": "drop", "normalization": "retrieved"}, {"zero_grade_sum": "one", "negative": "keep"},
    {"zero_idcg": "signed_skip", "negative": "keep", "ideal_negatives": "keep"},
    {"normalization": "given_order", "ideal_negatives": "keep", "gain": "exponential"},
    {"gain": "int32_exponential", "normalization": "grade_order", "ideal_grades": "rint", "ideal_negatives": "keep"},
])
def test_generated_conventions(client, overrides):
    qrels, run = generated(seed=1)
    overrides = dict(overrides)
    same(qrels, run, overrides.pop("measures", MEASURES), npartitions=6, **overrides)


def test_partitions_without_run_queries(client):
    "Most partitions hold only queries the run misses; with -c they score 0, without it they are skipped."
    qrels = pd.DataFrame({"query": [f"q{i}" for i in range(30)], "doc": "a", "relevance": 1.0})
    run = pd.DataFrame({"query": ["q0", "q0", "zz"], "doc": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]})
    for options in ({}, {"missing_queries": "zero"}):
        ours, _ = same(qrels, run, ["ndcg", "ndcg_cut.1"], npartitions=10, **options)
    assert ours.aggregate["n_missing_scored_zero"].tolist() == [29, 29]


@pytest.mark.parametrize("overrides, refused", [
    ({"zero_grade_sum": "skip"}, "zero_grade_sum='skip' is not supported"),
    ({"no_hits": "zero"}, "no_hits='zero' is not supported"),
    ({"aggregation": "max"}, "aggregation='max' is not supported"),
])
def test_rules_on_every_query_refused(client, overrides, refused):
    "The rules that look at every query at once are refused with what to do instead, on Dask and Spark alike."
    with pytest.raises(Exception, match=refused):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg"], **overrides)


def test_unjudged_queries_raise_on_workers(client):
    "unjudged_queries='raise' fails on the worker that holds a run query without judgments, as in memory."
    with pytest.raises(Exception, match="have no judgment"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg"], unjudged_queries="raise", npartitions=3)


def test_no_common_query(client):
    with pytest.raises(InputError, match="no query of the run is in the qrels"):
        evaluate(pd.DataFrame({"query": ["7.0"], "doc": ["a"], "relevance": [1]}),
                 pd.DataFrame({"query": [7], "doc": ["a"], "score": [1.0]}), "ndcg")


def test_integer_ids_and_duplicate_qrels(client):
    qrels = pd.DataFrame({"query": [1, 1, 1, 2], "doc": [10, 10, 11, 10], "relevance": [1, 3, 2, 1]})
    run = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["10", "11", "10"], "score": [0.5, 0.5, 1.0]})
    for duplicates in ("first", "last", "max"):
        same(qrels, run, ["ndcg"], qrels_duplicates=duplicates)
    with pytest.raises(InputError, match="appears 2 times"):
        evaluate(qrels, run, "ndcg")


def test_files_text_gzip_parquet(client, tmp_path):
    "TREC text read in several blocks, gzip (one partition per file) and parquet give the in-memory numbers."
    qrels, run = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
    ours, theirs = same(qrels, run, ["ndcg", "ndcg_cut"], blocksize="8 kB")
    assert ours.run_tag == theirs.run_tag == "STANDARD"
    gz = tmp_path / "results.test.gz"
    gz.write_bytes(gzip.compress(open(run, "rb").read()))
    same(qrels, str(gz), ["ndcg"])
    read_run(run)[["query", "doc", "score"]].to_parquet(tmp_path / "run.parquet")
    read_qrels(qrels)[["query", "doc", "relevance"]].to_parquet(tmp_path / "qrels.parquet")
    assert_same(evaluate(str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "ndcg", npartitions=3),
                evaluate_in_memory(qrels, run, "ndcg", progress=False))


def test_summary_only(client):
    ours = evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", per_query=False)
    theirs = evaluate_in_memory(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", progress=False)
    assert ours.per_query.empty
    assert abs(ours.value("ndcg") - theirs.value("ndcg")) < 1e-12


def test_evaluate_on_dask_address(client):
    ours = evaluate_on_dask(client.scheduler.address, SAMPLE_QRELS, SAMPLE_RUN, ["ndcg_cut.10"])
    assert abs(ours.value("ndcg_cut.10") - evaluate_in_memory(SAMPLE_QRELS, SAMPLE_RUN, "ndcg_cut.10",
                                                              progress=False).value("ndcg_cut.10")) < 1e-12


class Halved:
    @hookimpl
    def register_discounts(self, register):
        register("halved_log2", lambda ranks: 0.5 / np.log2(ranks + 1.0), "half of log2")


def test_plugin_missing_on_workers(client):
    "A plugin registered only in the client's process is not on the workers: the error names it."
    register_plugin(Halved(), name="halved_only_here")
    try:
        with pytest.raises(PluginError, match=r"plugin 'halved_only_here' is missing on Dask worker tcp://"):
            evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg", discount="halved_log2")
    finally:
        unregister_plugin("halved_only_here")


PLUGIN_MODULE = '''
import numpy as np
from ndcg_nb import hookimpl

@hookimpl
def register_discounts(register):
    register("halved_log2", lambda ranks: 0.5 / np.log2(ranks + 1.0), "half of log2")
'''


def _use_site(path, add: bool):
    "Put `path` on (or off) sys.path and reload ndcg_nb's plugins, so entry points there are found (or not)."
    if add:
        sys.path.insert(0, path)
    elif path in sys.path:
        sys.path.remove(path)
    importlib.invalidate_caches()
    from ndcg_nb.plugins import load_plugins
    load_plugins()
    return True


def test_plugin_found_on_workers_through_entry_point(client, tmp_path):
    "An installed plugin (an entry point in group ndcg_nb) is found by each worker on its own."
    site = tmp_path / "site"
    (site / "halved_plugin-1.0.dist-info").mkdir(parents=True)
    (site / "halved_plugin.py").write_text(PLUGIN_MODULE)
    (site / "halved_plugin-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: halved-plugin\nVersion: 1.0\n")
    (site / "halved_plugin-1.0.dist-info" / "entry_points.txt").write_text("[ndcg_nb]\nhalved = halved_plugin\n")
    for add in (True, False):
        _use_site(str(site), add)
        client.run(_use_site, str(site), add)
        if add:
            ours, _ = same(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg"], discount="halved_log2")
            assert ours.convention.discount == "halved_log2 [plugin halved]"


def test_missing_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(MissingExtraError, match=r'pip install "ndcg_nb\[dask\]"'):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, "ndcg")
    monkeypatch.setitem(sys.modules, "pyspark", None)
    with pytest.raises(MissingExtraError, match=r'pip install "ndcg_nb\[spark\]"'):
        evaluate_spark(None, None, "ndcg")


def test_import_stays_light():
    code = "import sys, ndcg_nb, ndcg_nb.integrations.distributed; print(sorted({'dask', 'distributed', 'pyspark'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- Spark ---------------------------------------------------------------------------------------------------
# On request only: NDCG_NB_SPARK_TESTS=1 python -m pytest tests/test_distributed.py -k spark
# Starting a SparkSession and the four evaluations below take longer than all of this file's Dask tests together,
# so CI does not run them by default. They need Java (Debian's openjdk-17-jre-headless) and pyspark (the spark extra).
needs_spark = pytest.mark.skipif(os.environ.get("NDCG_NB_SPARK_TESTS") != "1" or shutil.which("java") is None
                                 or importlib.util.find_spec("pyspark") is None,
                                 reason="Spark tests run on request: NDCG_NB_SPARK_TESTS=1 (with Java and pyspark)")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[2]").appName("ndcg_nb tests")
               .config("spark.sql.shuffle.partitions", 4).config("spark.ui.enabled", "false")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true").getOrCreate())
    yield session
    session.stop()


@needs_spark
@pytest.mark.filterwarnings("ignore::FutureWarning")   # pyspark 4.3 warns that it does not fully support pandas 3
def test_spark_same_numbers(spark):
    qrels, run = generated(seed=2, n_queries=80)
    spark_qrels, spark_run = spark.createDataFrame(qrels), spark.createDataFrame(run)
    for preset, options in (("trec_eval", {"missing_queries": "zero"}), ("sklearn", {}), ("lightgbm", {}),
                            ("trec_eval", {"ties": "input"}), ("torchmetrics", {})):
        ours = evaluate_spark(spark_qrels, spark_run, MEASURES, preset=preset, **options)
        assert_same(ours, evaluate_in_memory(qrels, run, MEASURES, preset=preset, progress=False, **options))
    import ndcg_nb          # the top-level evaluate sends PySpark DataFrames to evaluate_spark
    assert_same(ndcg_nb.evaluate(spark_qrels, spark_run, MEASURES), evaluate_in_memory(qrels, run, MEASURES, progress=False))


@needs_spark
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_spark_trec_eval_family_with_gain_tables(spark):
    "dcg, ideal_dcg and trec_eval's gain tables on Spark: the in-memory numbers."
    qrels, run = generated(seed=3, n_queries=60)
    measures = ["dcg", "ideal_dcg", "ndcg.0=1,1=4", "ndcg.-1=-2,1=1", "ndcg_rel.0=1,1=4", "Rndcg.0=1,1=4"]
    ours = evaluate_spark(spark.createDataFrame(qrels), spark.createDataFrame(run), measures, preset="trec_eval")
    assert_same(ours, evaluate_in_memory(qrels, run, measures, preset="trec_eval", progress=False))


@needs_spark
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_spark_null_query_id_refused(spark):
    "A row whose query id is null is an error naming it, never dropped on the way."
    run = read_run(SAMPLE_RUN)[["query", "doc", "score"]].astype({"query": object, "doc": object})
    run.loc[0, "query"] = None
    qrels = read_qrels(SAMPLE_QRELS)[["query", "doc", "relevance"]].astype({"query": object, "doc": object})
    with pytest.raises(Exception, match=r"the run has 1 row\(s\) without a query id \(null\)"):
        evaluate_spark(spark.createDataFrame(qrels), spark.createDataFrame(run))


@needs_spark
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_spark_duplicate_named_by_partition_and_row(spark):
    "A repeated run line is placed by its Spark partition and its row there, not by Spark's internal id."
    run = pd.DataFrame({"query": ["q1", "q1", "q1"], "doc": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query": ["q1"], "doc": ["a"], "relevance": [1]})
    with pytest.raises(Exception) as caught:
        evaluate_spark(spark.createDataFrame(qrels), spark.createDataFrame(run).repartition(1))
    message = str(caught.value)
    assert "run: document 'a' appears 2 times for query 'q1' (run frame (Spark partition 0; rows counted from the " \
           "partition's start), rows 0, 2)" in message, message
    assert "8589934592" not in message


@pytest.mark.skipif(importlib.util.find_spec("pyspark") is None, reason="needs pyspark (the spark extra)")
def test_spark_takes_spark_frames():
    "No session is needed to refuse pandas frames, with a message that says how to make Spark ones."
    with pytest.raises(TypeError, match=r"the qrels is a pandas\.DataFrame \(spark\.createDataFrame"):
        evaluate_spark(read_qrels(SAMPLE_QRELS), read_run(SAMPLE_RUN), "ndcg")


def values_by_query(rows) -> dict:
    "{(measure, query): value} from per-query rows: a DataFrame, or the `per_query` list of `to_json`."
    if isinstance(rows, pd.DataFrame):
        return dict(zip(zip(rows["measure"].astype(str), rows["query"]), rows["value"]))
    return {(r["measure"], r["query"]): r["value"] for r in rows}


def assert_same_values(ours: dict, reference: dict):
    assert ours.keys() == reference.keys()
    assert all(abs(ours[key] - value) <= 1e-12 for key, value in reference.items())


def test_cli_dask_flag(client):
    "`ndcg-nb eval --dask ADDRESS` and `--dask local` (worker processes of its own) print the in-memory values."
    trec = Path(__file__).parent / "data" / "trec_eval" / "test"
    common = ["eval", str(trec / "qrels.test"), str(trec / "results.test"), "-m", "ndcg", "-m", "nDCG@10", "-q",
              "--format", "json", "--silent"]

    def per_query(args) -> dict:
        code = f"from ndcg_nb.__main__ import main; raise SystemExit(main({args!r}))"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return values_by_query(json.loads(done.stdout)["per_query"])

    in_memory = per_query(common)
    for scheduler in (client.scheduler.address, "local"):
        assert_same_values(per_query(common + ["--dask", scheduler]), in_memory)
    done = subprocess.run([sys.executable, "-c", "from ndcg_nb.__main__ import main; raise SystemExit(main("
                           f"{common[:3] + ['--dask', 'local', '--bounds']!r}))"], capture_output=True, text=True)
    assert done.returncode == 2 and "--dask evaluates one run" in done.stderr


def test_cli_write_per_query(client, tmp_path):
    "`--partitions N --write-per-query DIR`: N parquet files whose rows are the in-memory per-query values; means printed."
    trec = Path(__file__).parent / "data" / "trec_eval" / "test"
    qrels, run = trec / "qrels.test", trec / "results.test"
    folder = tmp_path / "per_query"
    args = ["eval", str(qrels), str(run), "-m", "ndcg", "-m", "nDCG@10", "--format", "json", "--silent",
            "--dask", client.scheduler.address, "--partitions", "4", "--write-per-query", str(folder)]
    done = subprocess.run([sys.executable, "-c", f"from ndcg_nb.__main__ import main; raise SystemExit(main({args!r}))"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    theirs = evaluate_in_memory(qrels, run, ["ndcg", "nDCG@10"], progress=False)
    means = {row["measure"]: row["value"] for row in json.loads(done.stdout)["aggregate"]}
    assert means.keys() == set(theirs.aggregate["measure"])
    assert all(abs(means[m] - v) <= 1e-12 for m, v in zip(theirs.aggregate["measure"], theirs.aggregate["value"]))
    assert sorted(p.name for p in folder.iterdir()) == ["_SUCCESS"] + [f"part-{n:05d}.parquet" for n in range(4)]
    written = pd.read_parquet(folder)
    assert len(written) == len(theirs.per_query)
    assert_same_values(values_by_query(written), values_by_query(theirs.per_query))
    again = subprocess.run([sys.executable, "-c", f"from ndcg_nb.__main__ import main; raise SystemExit(main({args!r}))"],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and "holds files already" in again.stderr


def test_without_a_client():
    "With no distributed Client (a fresh process), Dask's local scheduler runs the same shuffle and scoring."
    code = ("import json; from ndcg_nb.integrations.distributed import evaluate; from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN; "
            "e = evaluate(SAMPLE_QRELS, SAMPLE_RUN, ['ndcg', 'nDCG@3'], npartitions=3, missing_queries='zero'); "
            "print(e.to_json(per_query=True))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    theirs = evaluate_in_memory(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg", "nDCG@3"], missing_queries="zero", progress=False)
    assert_same_values(values_by_query(json.loads(done.stdout)["per_query"]), values_by_query(theirs.per_query))


# --- output that is complete or recognisably not, and inputs named as in memory ----------------------------------

def test_write_per_query_marker_written_last(client, tmp_path):
    "A complete directory ends with _SUCCESS (as Spark and Hadoop write it); parquet readers skip it."
    folder = tmp_path / "out"
    evaluate(SAMPLE_QRELS, SAMPLE_RUN, ["ndcg"], npartitions=3, write_per_query=folder)
    assert sorted(p.name for p in folder.iterdir()) == ["_SUCCESS"] + [f"part-{n:05d}.parquet" for n in range(3)]
    assert len(pd.read_parquet(folder)) == len(evaluate_in_memory(SAMPLE_QRELS, SAMPLE_RUN, progress=False).per_query)


def test_write_per_query_memory_url_refused(client):
    "memory://out lives in one process: the workers' rows would be lost, so it is refused up front."
    from ndcg_nb.errors import UsageError
    with pytest.raises(UsageError, match="in this process's memory, which the Dask workers cannot write into"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, write_per_query="memory://out")


def test_write_per_query_directory_the_client_cannot_see(client, tmp_path, monkeypatch):
    "Files the client cannot see (a disk local to the workers) leave the directory without _SUCCESS, and say so."
    import ndcg_nb.integrations.distributed as distributed_module
    from ndcg_nb.integrations.distributed import PerQueryWriteError
    folder = tmp_path / "out"
    original = distributed_module.mark_complete
    def hide_one(where, n_parts, options):
        (Path(where) / "part-00001.parquet").unlink()
        return original(where, n_parts, options)
    monkeypatch.setattr(distributed_module, "mark_complete", hide_one)
    with pytest.raises(PerQueryWriteError, match="does not see 1 of the 3 files"):
        evaluate(SAMPLE_QRELS, SAMPLE_RUN, npartitions=3, write_per_query=folder)
    assert not (folder / "_SUCCESS").exists()


def test_duplicate_lines_named_by_file_and_line_on_workers(client, tmp_path):
    raw = SAMPLE_RUN.read_bytes()
    (tmp_path / "dup.run").write_bytes(raw + raw.splitlines(keepends=True)[3])
    with pytest.raises(Exception, match=r"dup\.run, lines 4, 102"):
        evaluate(SAMPLE_QRELS, tmp_path / "dup.run", npartitions=2)
    dup_qrels = tmp_path / "dup.qrels"
    lines = SAMPLE_QRELS.read_bytes().splitlines(keepends=True)
    dup_qrels.write_bytes(b"".join(lines) + lines[0])
    with pytest.raises(Exception, match=r"dup\.qrels, lines 1, \d+\) \(pass qrels_duplicates="):
        evaluate(dup_qrels, SAMPLE_RUN, npartitions=2)


def test_truncated_gzip_and_empty_run_on_workers(client, tmp_path):
    (tmp_path / "torn.run.gz").write_bytes(gzip.compress(SAMPLE_RUN.read_bytes())[:-40])
    with pytest.raises(Exception, match="torn.run.gz: a damaged or truncated gzip file") as info:
        evaluate(SAMPLE_QRELS, tmp_path / "torn.run.gz")
    assert not isinstance(info.value, EOFError)
    (tmp_path / "empty.run").write_bytes(b"")
    with pytest.raises(Exception, match="empty.run: no run lines"):
        evaluate(SAMPLE_QRELS, tmp_path / "empty.run")
