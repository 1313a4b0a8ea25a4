"""Time ndcg_nb against its peers on the same synthetic data, in one run, and report ratios.

Usage:
  python tools/benchmark.py                      # every workload, full sizes (about 25 minutes on 2 cores)
  python tools/benchmark.py --quick              # small sizes, a CI-like smoke run (about 3 minutes)
  python tools/benchmark.py --only-check         # tiny data, values compared, nothing timed (seconds)
  python tools/benchmark.py --json nbs/benchmark_results.json   # also write every result as JSON
  python tools/benchmark.py --workloads files,arrays            # a subset
  python tools/benchmark.py --prepare                           # only generate the data (cached)
  python tools/benchmark.py --workloads distributed --json nbs/benchmark_distributed.json   # Dask, bounded memory
  python tools/benchmark.py --workloads held --json nbs/benchmark_held.json   # held evaluator, one query (a minute)

Workloads:
  startup  fresh-process wall time (median of 7; --quick 5) and peak RSS of `python -c pass` (the
           interpreter alone), `python -c "import ndcg_nb"`, `ndcg-nb --version`, `ndcg-nb --help` (the
           console script settings.ini declares, ndcg_nb.__main__:run) and `python -c "import pytrec_eval"`.
           Targets: `import ndcg_nb` < 0.35 s, `--version` and `--help` < 0.2 s.
  trec     a TREC-sized run, 250 queries x 1,000 documents (250,000 run lines, 163,377 qrels lines:
           data.py's generator judges ~65% of the retrieved documents plus ~4 more per query),
           in whole processes (median wall of 5; --quick 3; peak RSS): the command line
           `ndcg-nb eval <qrels> <run> -m ndcg -m ndcg_cut.10` (trec_eval preset, its default) vs a
           Python process running pytrec_eval's parse_qrel/parse_run + RelevanceEvaluator (and printing
           the per-query values as JSON) vs trec_eval's C binary when `trec_eval` is on PATH (pytrec_eval
           bundles none; otherwise the row is reported as skipped). Values: the command line's per-query
           values come from one more, untimed run with `-q --format csv` (full precision) and are compared
           with pytrec_eval's per query (1e-9); the timed runs print trec_eval's 4-decimal means, checked
           against them to the rounding. Then ndcg_nb.evaluate and pytrec_eval in measuring children on the
           same files, for the warm figures.
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
  dicts    ndcg_nb.evaluate from {query: {doc: score}} dicts vs pytrec_eval and ranx.
  held     100 runs of 200 queries x 50 documents whose scores take 5 values (most documents tie, so
           trec_eval's tie rule, document id descending, orders them), `ndcg` and `ndcg_cut.10`, scored
           by a held ndcg_nb.Evaluator vs pytrec_eval's held RelevanceEvaluator, each made once before
           the timing (median of 5 calls after the first; 3 children in a full run); and a one-query
           ndcg_nb.evaluate (dicts, 50 documents) vs a fresh pytrec_eval evaluator built and run in each
           call (median of 999 calls after the first). Values compared per query and per run's mean.
  training one call of an NDCG@10 eval metric per boosting round, 10,000 groups of 50 documents:
           ndcg_nb.integrations.training.lightgbm_ndcg(10) (as LightGBM's feval calls it) vs LightGBM's own ndcg@10
           (Booster.eval_train on the same scores); "first" includes preparing the groups once.
  metric_objects  NDCG@10 accumulated over a validation loop: 1,000,000 documents in 50,000 queries fed in 200
           batches (queries split across batches), update + compute, ndcg_nb's NdcgTorchMetric and NdcgAccumulator
           under the `torchmetrics` preset vs torchmetrics' RetrievalNormalizedDCG(top_k=10); values to 1e-6.
  sparse_matrices  NDCG@10 of 100,000 users x 50,000 items (0.1% density) with the training items masked:
           ndcg_nb.evaluate_matrices(preset="recpack") vs RecPack's NDCGK, RecPack in the interpreter
           NDCG_BENCH_RECPACK_PYTHON names (it pins NumPy 1); per-user values to 1e-12.
  comparisons  twelve runs of 250 queries compared pair by pair (t, randomization, Tukey HSD, randomised Tukey
           HSD with 10,000 shuffles) in a fresh process; target under 10 s.
  distributed  (not in the default set; ask for it) in-memory evaluate vs ndcg_nb.integrations.distributed.evaluate on a Dask
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
  * ndcg_nb's modules are byte-compiled before anything is timed, as installing a wheel leaves
    them; a checkout edited since its last import would otherwise be compiled again in every
    child where PYTHONDONTWRITEBYTECODE is set (as on the machine these figures come from).
  * Every measurement runs in a fresh child process (`python -m ndcg_bench.child`, one JSON job
    on stdin). The child first imports what a user's script imports for that tool (peers.IMPORTS,
    e.g. `from ndcg_nb import evaluate`), timed: "import"; it has loaded nothing heavy before (no
    numpy). Then it loads the inputs (arrays, dicts, LightGBM datasets), timed: "load"; then it calls
    the timed function `repeats` times. "first" is the first call in that fresh process (lazy
    imports, numba compiling or loading its cache included: the cold number); "best" is the
    fastest of all calls (warm); "process" = import + first call: what a user's script pays
    (the interpreter's own start-up, the same for every tool, is the startup workload's
    `python -c pass`). The startup and trec workloads measure whole processes instead (processes.py):
    "process" is then the median wall of N fresh processes, "first" the first of them, "best" the
    fastest, "peak" their largest ru_maxrss, read by a small spawner.
  * A call that takes about a second or less is at the mercy of whatever else the machine does
    for that second, so in a full run the per-call workloads (arrays, training), the held, dicts and
    skewed workloads and the 2-million-line files measure ndcg_nb and pytrec_eval (and each
    per-call tool) in 3 fresh children, one after another: "first" and "process" are then the
    medians of the 3, "best" the fastest call of all, "peak" the largest; `first_runs` in the JSON
    keeps each one. Values come from the first child. Before each measurement its input files
    are read once, untimed, so that every tool starts from the same warm page cache.
  * Each row has four ratios to its reference row: process (the headline), first, warm (best) and
    memory. Each target has two statuses: the headline one on what a fresh process pays (the
    process where a script runs one job: files, skewed, dicts, scaling's ratios, trec, startup; the
    first call where the figure is per call: arrays and groups, training, and scaling's time per
    query, whose import is the same at every size), and the warm one on the best calls (memory:
    the peak after all calls; "n/a" for start-up, which is only fresh processes). Inputs over 5M
    lines, and scikit-learn on 20M values, get 2 calls so that a warm figure exists.
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
  * Targets print one line each: the headline status, the warm status (MET, MISSED, INVALID, NOT
    MEASURED, or n/a), the target, and both figures. Each workload declares its own (`targets` in
    workloads.py, processes.py): ratios to pytrec_eval, scikit-learn, LightGBM or one argpartition
    pass, peak memory against pytrec_eval's, time per query across sizes, start-up times. Nothing here is asserted in the unit tests;
    tests/test_benchmark.py only runs --only-check so this script cannot rot.

Code (tools/ndcg_bench/, one job per module; tools/benchmark.py only calls cli.main):
  cli.py          the command line: options, which workloads, the order of a run, exit status
                  (__main__.py: the same as `python -m ndcg_bench` from tools/)
  data.py         synthetic TREC files and label/score arrays, generated once into --data-dir
  machine.py      this machine (CPU, RAM, versions, git commit) and a process's peak RSS
  child.py        the one child-process protocol: a JSON job on stdin, one marked JSON line out
  peers.py        what a user imports for each tool, and how it is set up and called in a child
                  (ndcg_nb, pytrec_eval, ranx, ir_measures, scikit-learn, LightGBM, np.argpartition)
  session.py      one benchmark run: measuring a tool in a child, keeping rows, checks and failures
  checks.py       comparing values between tools, and the tolerances
  workloads.py    the registry: each workload's sizes, data, measurements, checks and targets
  processes.py    whole processes (a small spawner: wall and peak RSS of N fresh runs of a command), and
                  the startup and trec workloads measured that way
  distributed.py  the distributed workload (Dask vs in memory, bounded memory), both sides
  report.py       ratios, the printed table, targets (headline and warm status), notes and the JSON
                  file (read by nbs/82_performance.ipynb)
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent   # the checkout: ndcg_nb/, nbs/, tools/
TOOLS = ROOT / "tools"
