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
  * Every measurement runs in a fresh child process (`python -m ndcg_bench.child`, one JSON job
    on stdin), which imports the tool, loads array inputs, then calls the timed function `repeats`
    times. "first" is the first call in
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

Code (tools/ndcg_bench/, one job per module; tools/benchmark.py only calls cli.main):
  cli.py          the command line: options, which workloads, the order of a run, exit status
                  (__main__.py: the same as `python -m ndcg_bench` from tools/)
  data.py         synthetic TREC files and label/score arrays, generated once into --data-dir
  machine.py      this machine (CPU, RAM, versions, git commit) and a process's peak RSS
  child.py        the one child-process protocol: a JSON job on stdin, one marked JSON line out
  peers.py        how each tool is set up and called in a child (ndcg_nb, pytrec_eval, ranx,
                  ir_measures, scikit-learn, LightGBM, np.argpartition)
  session.py      one benchmark run: measuring a tool in a child, keeping rows, checks and failures
  checks.py       comparing values between tools, and the tolerances
  workloads.py    the registry: each workload's sizes, data, measurements, checks and targets
  distributed.py  the distributed workload (Dask vs in memory, bounded memory), both sides
  report.py       ratios, the printed table, targets MET/MISSED, notes and the JSON file
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent   # the checkout: ndcg_nb/, nbs/, tools/
TOOLS = ROOT / "tools"
