"""The first use of the plugins from many threads at once.

The plugin manager and the registry are built lazily, the first time a policy is needed. Eight threads
of a fresh process (and the four threads of one Dask worker) making that first call at the same time
must all find a plugin's policy, and get the number a serial call gets, while the plugin is still being
imported (`slow_gain` sleeps in its import). Each case runs in a fresh interpreter, several times, since
a race shows only sometimes. Laziness must survive the lock: `import ndcg_nb`, `--version` and `--help`
import no plugin, and `NDCG_NB_LOAD_PLUGINS=` (empty) loads none.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.test_plugin_isolation import site_with

LISTS = [[3, 2, 3, 0, 1, 2], [0, 1, 2, 3], [2, 2, 0, 1], [1, 0, 0, 4, 2], [4, 3, 2, 1], [0, 0, 1], [1, 2], [3, 0, 3, 1]]


def squared_gain_ndcg(grades):
    "NDCG with gain grade**2 and discount 1/log2(rank + 1), written out independently of ndcg_nb."
    grades = np.asarray(grades, dtype=float)
    weights = 1 / np.log2(np.arange(2, len(grades) + 2))
    return float((grades ** 2 * weights).sum() / (np.sort(grades)[::-1] ** 2 * weights).sum())


EXPECTED = [squared_gain_ndcg(grades) for grades in LISTS]


def run(code, site, timeout=180, **env_vars):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
           "PYTHONWARNINGS": "default"}
    env.pop("NDCG_NB_LOAD_PLUGINS", None)
    env.update(env_vars)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)


THREADS = """
import json, threading, warnings
warnings.simplefilter("always")
from ndcg_nb import ndcg
LISTS = %r
barrier = threading.Barrier(len(LISTS))
results = [None] * len(LISTS)
def first_call(i):
    barrier.wait()                    # all eight make their first call at the same moment
    try:
        results[i] = ndcg(LISTS[i], gain="p_slow")
    except Exception as exc:
        results[i] = type(exc).__name__ + ": " + str(exc)
threads = [threading.Thread(target=first_call, args=(i,)) for i in range(len(LISTS))]
for t in threads:
    t.start()
for t in threads:
    t.join()
serial = [ndcg(grades, gain="p_slow") for grades in LISTS]
print(json.dumps({"threads": results, "serial": serial}))
""" % (LISTS,)


@pytest.fixture(scope="module")
def slow_site(tmp_path_factory):
    return site_with(tmp_path_factory.mktemp("slow"), "slow_gain")


@pytest.mark.parametrize("attempt", range(5))
def test_eight_threads_first_call_get_the_serial_numbers(slow_site, tmp_path, attempt):
    log = tmp_path / "imports.log"
    done = run(THREADS, slow_site, NDCG_NB_TEST_IMPORT_LOG=str(log))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["threads"] == out["serial"], out["threads"]          # bit for bit, no UnknownPolicyError
    np.testing.assert_allclose(out["serial"], EXPECTED, rtol=1e-15, atol=0)
    assert log.read_text() == "imported\n"                           # one manager, one import
    assert "same name" not in done.stderr, done.stderr               # no false "has the same name" warning


DASK = """
import json
from dask.distributed import Client, LocalCluster
from ndcg_nb import ndcg
LISTS = %r
with LocalCluster(n_workers=1, threads_per_worker=4, processes=False, dashboard_address=None) as cluster, \\
        Client(cluster) as client:
    futures = client.map(lambda grades: ndcg(grades, gain="p_slow"), LISTS * 2, pure=False)
    errors = []
    values = []
    for future in futures:
        try:
            values.append(future.result())
        except Exception as exc:
            errors.append(type(exc).__name__ + ": " + str(exc))
    from ndcg_nb.integrations.distributed import evaluate as evaluate_on_dask
    from ndcg_nb.evaluation import evaluate
    qrels = {f"q{i}": {f"d{j}": g for j, g in enumerate(grades)} for i, grades in enumerate(LISTS)}
    run = {f"q{i}": {f"d{j}": 10.0 - j for j in range(len(grades))} for i, grades in enumerate(LISTS)}
    import pandas as pd
    qrels_frame = pd.DataFrame([(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                               columns=["query", "doc", "relevance"])
    run_frame = pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                             columns=["query", "doc", "score"])
    on_dask = evaluate_on_dask(qrels_frame, run_frame, ["ndcg"], gain="p_slow", npartitions=4)
    in_memory = evaluate(qrels, run, ["ndcg"], gain="p_slow")
print(json.dumps({"values": values, "errors": errors,
                  "dask": on_dask.per_query.sort_values("query")["value"].tolist(),
                  "memory": in_memory.per_query.sort_values("query")["value"].tolist(),
                  "gain": on_dask.convention.gain}))
""" % (LISTS,)


@pytest.mark.parametrize("attempt", range(3))
def test_a_dask_worker_with_four_threads_finds_the_plugin(slow_site, attempt):
    pytest.importorskip("dask.distributed")
    done = run(DASK, slow_site, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["errors"] == [], out["errors"]
    assert out["values"] == [ndcg_value for ndcg_value in out["values"][:len(LISTS)]] * 2
    np.testing.assert_allclose(out["values"][:len(LISTS)], EXPECTED, rtol=1e-15, atol=0)
    assert out["dask"] == out["memory"]
    assert out["gain"] == "p_slow [plugin slow_gain]"


def test_plugins_still_load_lazily_and_can_be_turned_off(slow_site, tmp_path):
    log = tmp_path / "imports.log"
    env = {"NDCG_NB_TEST_IMPORT_LOG": str(log), "NDCG_NB_TEST_SLOW_IMPORT": "0"}
    done = run("import ndcg_nb, sys; print('ndcg_nb_slow_gain' in sys.modules)", slow_site, **env)
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr
    for flag in ("--version", "--help"):
        done = run(f"from ndcg_nb.__main__ import main; raise SystemExit(main([{flag!r}]))", slow_site, **env)
        assert done.returncode == 0, done.stderr
    assert not log.exists(), "import ndcg_nb, --version or --help imported a plugin"
    done = run("""
from ndcg_nb import ndcg
try:
    ndcg([3, 2, 1], gain="p_slow")
except LookupError as exc:
    print("refused:", exc)
""", slow_site, NDCG_NB_LOAD_PLUGINS="", **env)
    assert done.returncode == 0 and "refused: unknown gain policy 'p_slow'" in done.stdout, done.stderr
    assert not log.exists()
