"""How each tool is set up and called in a child process, one function per (input kind, tool).

`IMPORTS` says what a user's script imports to use each tool; the child times those imports first, in
its fresh process (`import_s`). A setup function then takes the job's arguments and returns
`(call, values)`: `call()` is the timed function, `values(result)` turns its result into arrays to
compare (None: nothing to compare), or `(reason, None)` when the tool cannot run that workload. Setup
(loading arrays, building dicts) is timed apart from the calls (`load_s`). Values are
{measure: (queries, values)} per query, or {name: array}.

numpy is imported inside the functions that use it, not here: the child imports this module before it
times the tool's import, and pytrec_eval's process should not carry numpy (or its import time) for us.
"""
FILE_MEASURES = ["ndcg", "ndcg_cut.10"]
OUR_NAMES = {"ndcg": "ndcg", "ndcg_cut.10": "ndcg_cut_10"}   # trec_eval's measure names as ndcg_nb reports them


def values_from_nested(nested: dict, names: dict) -> dict:
    "{query: {measure: value}} as {our_measure: (queries, values)}."
    import numpy as np
    out = {}
    for theirs, ours in names.items():
        queries = [q for q, row in nested.items() if theirs in row]
        out[ours] = (np.array(queries, dtype=str), np.array([nested[q][theirs] for q in queries], dtype=float))
    return out


def ndcg_nb_values(result) -> dict:
    "ndcg_nb's per-query frame as {measure: (queries, values)}."
    frame = result.per_query
    return {m: (frame["query"][frame.measure == m].to_numpy(str), frame["value"][frame.measure == m].to_numpy(float))
            for m in frame.measure.unique()}


def pytrec_eval_values(measures):
    return lambda result: values_from_nested(result, {OUR_NAMES[m]: OUR_NAMES[m] for m in measures})


# --- TREC files to numbers ----------------------------------------------------------------------------

def files_ndcg_nb(qrels, run, measures):
    from ndcg_nb import evaluate
    return lambda: evaluate(qrels, run, measures, preset="trec_eval", progress=False), ndcg_nb_values


def files_pytrec_eval(qrels, run, measures):
    import pytrec_eval

    def call():
        with open(qrels) as f:
            parsed_qrels = pytrec_eval.parse_qrel(f)
        with open(run) as f:
            parsed_run = pytrec_eval.parse_run(f)
        return pytrec_eval.RelevanceEvaluator(parsed_qrels, set(measures)).evaluate(parsed_run)
    return call, pytrec_eval_values(measures)


RANX_NAMES = {"ndcg": "ndcg", "ndcg_cut.10": "ndcg@10"}


def ranx_values(measures):
    "ranx keeps its per-query scores on the Run it evaluated."
    import numpy as np
    def values(ranx_run):
        return {OUR_NAMES[m]: (np.array(list(ranx_run.scores[RANX_NAMES[m]]), dtype=str),
                               np.array(list(ranx_run.scores[RANX_NAMES[m]].values()), dtype=float)) for m in measures}
    return values


def files_ranx(qrels, run, measures):
    import ranx

    def call():
        ranx_run = ranx.Run.from_file(run, kind="trec")
        ranx.evaluate(ranx.Qrels.from_file(qrels, kind="trec"), ranx_run, [RANX_NAMES[m] for m in measures],
                      make_comparable=True)
        return ranx_run
    return call, ranx_values(measures)


def files_ir_measures(qrels, run, measures):
    import ir_measures
    theirs = {"ndcg": ir_measures.nDCG, "ndcg_cut.10": ir_measures.nDCG @ 10}
    back = {str(theirs[m]): OUR_NAMES[m] for m in measures}

    def call():
        return list(ir_measures.iter_calc([theirs[m] for m in measures], ir_measures.read_trec_qrels(qrels),
                                          ir_measures.read_trec_run(run)))

    def values(result):
        nested = {}
        for metric in result:
            nested.setdefault(metric.query_id, {})[back[str(metric.measure)]] = metric.value
        return values_from_nested(nested, {n: n for n in back.values()})
    return call, values


FILES = {"ndcg_nb": files_ndcg_nb, "pytrec_eval": files_pytrec_eval, "ranx": files_ranx,
         "ir_measures": files_ir_measures}


def setup_files(tool, qrels, run, measures=FILE_MEASURES, **_):
    if tool not in FILES:
        raise ValueError(tool)
    return FILES[tool](qrels, run, measures)


# --- {query: {doc: score}} dicts ----------------------------------------------------------------------

def setup_dicts(tool, qrels, run, **_):
    "Each tool from dicts that pytrec_eval's parsers build outside the timing; values as for the files."
    import pytrec_eval
    with open(qrels) as f:
        qrels_dict = {q: dict(d) for q, d in pytrec_eval.parse_qrel(f).items()}
    with open(run) as f:
        run_dict = {q: dict(d) for q, d in pytrec_eval.parse_run(f).items()}
    if tool == "ndcg_nb":
        from ndcg_nb import evaluate
        return (lambda: evaluate(qrels_dict, run_dict, FILE_MEASURES, preset="trec_eval", progress=False),
                ndcg_nb_values)
    if tool == "pytrec_eval":
        return (lambda: pytrec_eval.RelevanceEvaluator(qrels_dict, set(FILE_MEASURES)).evaluate(run_dict),
                pytrec_eval_values(FILE_MEASURES))
    if tool == "ranx":
        import ranx

        def call():
            ranx_run = ranx.Run(run_dict)
            ranx.evaluate(ranx.Qrels(qrels_dict), ranx_run, ["ndcg", "ndcg@10"], make_comparable=True)
            return ranx_run
        return call, ranx_values(FILE_MEASURES)
    raise ValueError(tool)


# --- a held evaluator: 100 tied runs against one evaluator, and one query from a fresh evaluator ---------

HELD_MEASURES = ["ndcg", "ndcg_cut.10"]
TIED_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)   # few distinct values, each exact in float32 (trec_eval's scores)


def _tied_runs(run_dict: dict, n_runs: int) -> list:
    """`n_runs` runs of the same documents, each document scored one of `TIED_SCORES` at random, so that most of a
    query's documents tie and the tie rule (trec_eval's: document id, descending) orders them; run i is drawn by
    Python's `random.Random(i)`, so both tools get the very same dicts."""
    import random
    runs = []
    for i in range(n_runs):
        deal = random.Random(i)
        runs.append({query: {doc: deal.choice(TIED_SCORES) for doc in docs} for query, docs in run_dict.items()})
    return runs


def _first_query(qrels_dict: dict, run_dict: dict) -> tuple:
    "The qrels and run of the run's first query that is judged: one query, as a caller scoring one ranking has."
    query = next(q for q in run_dict if q in qrels_dict)
    return {query: qrels_dict[query]}, {query: run_dict[query]}


def _run_means(per_run: list) -> dict:
    "{'means_<measure>': each run's mean}, from each run's {measure: mean}."
    import numpy as np
    return {f"means_{OUR_NAMES[m]}": np.array([means[OUR_NAMES[m]] for means in per_run]) for m in HELD_MEASURES}


def _held_ndcg_nb(qrels_dict, run_dict, mode, n_runs):
    from ndcg_nb import Evaluator, evaluate
    if mode == "one_query":
        one_qrels, one_run = _first_query(qrels_dict, run_dict)
        return (lambda: evaluate(one_qrels, one_run, HELD_MEASURES, preset="trec_eval", progress=False)), ndcg_nb_values
    runs = _tied_runs(run_dict, n_runs)
    held = Evaluator(qrels_dict, HELD_MEASURES, preset="trec_eval")     # made once, outside the timing

    def values(results):
        return {**ndcg_nb_values(results[-1]),
                **_run_means([{OUR_NAMES[m]: r.value(m) for m in HELD_MEASURES} for r in results])}
    return (lambda: [held.evaluate(run, progress=False) for run in runs]), values


def _held_pytrec_eval(qrels_dict, run_dict, mode, n_runs):
    import pytrec_eval
    per_query = pytrec_eval_values(HELD_MEASURES)
    if mode == "one_query":
        one_qrels, one_run = _first_query(qrels_dict, run_dict)
        return (lambda: pytrec_eval.RelevanceEvaluator(one_qrels, set(HELD_MEASURES)).evaluate(one_run)), per_query
    runs = _tied_runs(run_dict, n_runs)
    held = pytrec_eval.RelevanceEvaluator(qrels_dict, set(HELD_MEASURES))     # made once, outside the timing

    def values(results):
        names = [OUR_NAMES[m] for m in HELD_MEASURES]
        means = [{n: sum(row[n] for row in result.values()) / len(result) for n in names} for result in results]
        return {**per_query(results[-1]), **_run_means(means)}
    return (lambda: [held.evaluate(run) for run in runs]), values


def setup_held(tool, qrels, run, mode="runs", n_runs=100, **_):
    """`mode="runs"`: `n_runs` runs of tied scores (`_tied_runs`) scored by one evaluator made before the timing,
    ndcg_nb's `Evaluator` vs pytrec_eval's `RelevanceEvaluator`. `mode="one_query"`: `evaluate` on the run's first
    judged query vs a fresh pytrec_eval evaluator, built and run in each call. Dicts from pytrec_eval's parsers,
    made outside the timing; values: the (last) run per query, and each run's means."""
    import pytrec_eval
    with open(qrels) as f:
        qrels_dict = {q: dict(d) for q, d in pytrec_eval.parse_qrel(f).items()}
    with open(run) as f:
        run_dict = {q: dict(d) for q, d in pytrec_eval.parse_run(f).items()}
    held = {"ndcg_nb": _held_ndcg_nb, "pytrec_eval": _held_pytrec_eval}
    if tool not in held:
        raise ValueError(tool)
    return held[tool](qrels_dict, run_dict, mode, n_runs)


# --- label and score arrays ---------------------------------------------------------------------------

def _ndcg_with_scores():
    "ndcg_nb.ndcg, and which of the keywords the array workloads need it lacks."
    import inspect

    from ndcg_nb import ndcg
    missing = {"scores", "ties", "group_sizes"} - set(inspect.signature(ndcg).parameters)
    return ndcg, missing


def _sklearn_one_group_at_a_time(label_array, score_array, size_array, groups=300):
    "scikit-learn's ndcg_score@10 of the first `groups` groups of 1-D arrays, one call per group."
    import numpy as np
    from sklearn.metrics import ndcg_score
    ends = np.cumsum(size_array[:groups])
    return np.array([ndcg_score(label_array[e - s:e][None], score_array[e - s:e][None], k=10)
                     for s, e in zip(size_array[:groups], ends)])


def arrays_ndcg_nb(label_array, score_array, size_array, untied, ties, layout):
    import numpy as np
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
            out["sklearn_first_groups"] = _sklearn_one_group_at_a_time(label_array, score_array, size_array)
        return out
    return call, values


def arrays_sklearn(label_array, score_array, untied, ties):
    import numpy as np
    from sklearn.metrics import ndcg_score
    ignore = ties == "input"
    call = lambda: ndcg_score(label_array, score_array, k=10, ignore_ties=ignore)

    def values(result):
        out = {"mean": np.array([float(result)])}
        if ignore:
            out["mean_untied"] = np.array([float(ndcg_score(label_array, np.load(untied), k=10, ignore_ties=True))])
        return out
    return call, values


def setup_arrays(tool, labels, scores, untied, sizes, ties=None, layout="2d", **_):
    import numpy as np
    label_array, score_array = np.load(labels), np.load(scores)
    size_array = np.load(sizes)
    if tool == "ndcg_nb":
        return arrays_ndcg_nb(label_array, score_array, size_array, untied, ties, layout)
    if tool == "sklearn":
        return arrays_sklearn(label_array, score_array, untied, ties)
    if tool == "argpartition":
        return (lambda: np.argpartition(-score_array, 10, axis=1)), None
    raise ValueError(tool)


# --- a boosting round's eval metric -------------------------------------------------------------------

def setup_training(tool, labels, scores, untied, sizes, tied=False, **_):
    "One round's eval-metric call on fixed scores: ours as LightGBM's feval calls it, or LightGBM's own ndcg@10."
    import numpy as np
    import lightgbm
    label_array, size_array = np.load(labels).ravel().astype(float), np.load(sizes)
    score_array = np.load(scores if tied else untied).ravel()
    features = np.zeros((len(label_array), 1))
    if tool == "ndcg_nb":
        from ndcg_nb.integrations.training import lightgbm_ndcg
        metric, data = lightgbm_ndcg(10), lightgbm.Dataset(features, label=label_array, group=size_array).construct()
        return (lambda: metric(score_array, data)), (lambda result: {"mean": np.array([result[0][1]])})
    if tool == "lightgbm":
        data = lightgbm.Dataset(features, label=label_array, group=size_array, init_score=score_array)
        booster = lightgbm.Booster(params={"objective": "lambdarank", "metric": "ndcg", "eval_at": [10],
                                           "verbose": -1}, train_set=data)
        return booster.eval_train, (lambda result: {"mean": np.array([result[0][2]])})
    raise ValueError(tool)


# --- the floor of ndcg_nb's stack: what numpy + pyarrow cost before any NDCG is computed ----------------

def _arrow_fields(path, names, value, value_type):
    "The query, doc and `value` fields of a TREC file, read as ndcg_nb reads a regular one (pyarrow's threaded reader)."
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    wanted = {"query": pa.string(), "doc": pa.string(), value: value_type}
    return pa_csv.read_csv(path, read_options=pa_csv.ReadOptions(column_names=names),
                           parse_options=pa_csv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False,
                                                             double_quote=False),
                           convert_options=pa_csv.ConvertOptions(column_types=wanted, include_columns=list(wanted)))


def setup_floor(tool, qrels, run, **_):
    """Stages of the files path done by the libraries alone, no ndcg_nb: `stack` the imports only, `parse` both
    files read by pyarrow, `sort` that and one Arrow sort of the lines of both by query and document id (the sort
    ndcg_nb's join of two files makes; the files path imports no pandas)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def parse():
        return (_arrow_fields(qrels, ["query", "iter", "doc", "relevance"], "relevance", pa.string()),
                _arrow_fields(run, ["query", "q0", "doc", "rank", "score", "tag"], "score", pa.float64()))

    def sort():
        judged, ranked = parse()
        both = pa.table({name: pa.chunked_array(judged[name].chunks + ranked[name].chunks) for name in ("query", "doc")})
        return pc.sort_indices(both, sort_keys=[("query", "ascending"), ("doc", "ascending")])

    calls = {"stack": lambda: None, "parse": parse, "sort": sort}
    if tool not in calls:
        raise ValueError(tool)
    return calls[tool], None


FLOOR_TOOLS = ("stack", "parse", "sort")
_STACK = [("numpy", None), ("pyarrow.csv", None), ("pyarrow.compute", None)]


# --- what a user's script imports: (module, attribute or None), timed in the child before the setup ----

_FILE_IMPORTS = {"ndcg_nb": [("ndcg_nb", "evaluate")], "pytrec_eval": [("pytrec_eval", None)],
                 "ranx": [("ranx", None)], "ir_measures": [("ir_measures", None)]}
IMPORTS = {
    "files": _FILE_IMPORTS,
    "dicts": _FILE_IMPORTS,
    "held": {"ndcg_nb": [("ndcg_nb", "Evaluator"), ("ndcg_nb", "evaluate")], "pytrec_eval": [("pytrec_eval", None)]},
    "arrays": {"ndcg_nb": [("ndcg_nb", "ndcg")], "sklearn": [("sklearn.metrics", "ndcg_score")],
               "argpartition": [("numpy", None)]},
    # both sides of a training loop import LightGBM; ours adds the metric
    "training": {"ndcg_nb": [("lightgbm", None), ("ndcg_nb.integrations.training", "lightgbm_ndcg")],
                 "lightgbm": [("lightgbm", None)]},
    # ndcg_nb's own stack, without ndcg_nb
    "floor": {tool: _STACK for tool in FLOOR_TOOLS},
}


def tool_imports(kind, tool) -> list:
    "The imports a user's script makes to call `tool` on inputs of `kind`."
    return IMPORTS[kind][tool]


SETUPS = {"files": setup_files, "dicts": setup_dicts, "held": setup_held, "arrays": setup_arrays,
          "training": setup_training,
          "floor": setup_floor}
