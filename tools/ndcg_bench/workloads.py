"""The registry of workloads. Each one is declared in one place: its sizes per mode, the data it
needs, how it is measured and checked, and its targets. `REGISTRY` lists them in the order they run
and are reported; `distributed` (in distributed.py) runs only when asked for.

A workload's `run(session, metas, size)` adds one or more workload records to the session; its
`targets(session, targets)` adds target lines (report.TargetList) for the records it made, each with a
headline figure (what a fresh process pays: the process, i.e. import + first call, where a user's script
runs one job; the first call where the figure is per call: arrays, training, scaling's time per query)
and a warm one (the best call). `startup` and `trec` are in processes.py (whole processes).
"""
from dataclasses import dataclass
from typing import Callable, Optional

from . import comparisons, distributed, metric_objects, processes, sparse_matrices
from .checks import FLOAT32_TOLERANCE, compare_numbers, compare_queries, compare_with_peer
from .data import array_files, arrays_spec, trec_files, trec_spec
from .machine import package_version
from .peers import FILE_MEASURES
from .report import find_row, warm_of
from .session import Session



@dataclass(frozen=True)
class Workload:
    "One workload's declaration; `sizes` is keyed by mode: 'only-check', 'quick' or 'full'."
    name: str
    sizes: dict                       # mode -> what `data` and `run` need to know of the size
    data: Callable                    # (size, data_dir) -> {key: (kind, kwargs)} to generate
    run: Callable                     # (session, metas, size) -> None
    targets: Optional[Callable] = None  # (session, targets) -> None
    default: bool = True              # run without --workloads


def repeats_for_lines(session: Session, lines: int, targeted=True) -> int:
    """On runs over 5M lines (unless --repeats says otherwise): 2 calls for the tools a target compares (a first
    and a warm figure), 1 for the others; else the session's repeats."""
    if lines <= 5_000_000 or session.args.repeats:
        return session.repeats
    return 2 if targeted else 1


# --- targets: a headline figure (a fresh process) and a warm one -------------------------------------

def _get(row, key):
    return row.get(key) if row else None


def _ratio(a, b):
    return a / b if a is not None and b else None


BASIS = {"process": "process", "first": "first call", "median": "warm median"}
BASIS_RULE = {"process": "headline: import + first call in a fresh process", "first": "headline: the first call",
              "median": "headline: the median call after the first (imports done, inputs ready)"}


def time_target(targets, name, num, den, limit, kind, rule, basis="process"):
    "num / den on `basis` ('process' = import + first call, 'first', or 'median': the median warm call); warm: num's best / den's best."
    targets.add(name, limit, kind, f"{rule}; {BASIS_RULE[basis]}, warm: the best call",
                head=(_ratio(_get(num, basis), _get(den, basis)), [num, den]),
                warm=(_ratio(warm_of(num), warm_of(den)), [num, den]), basis=BASIS[basis])


def memory_target(targets, name, ours, peer, rule):
    "ours / peer peak RSS after the first call; warm: after all calls."
    targets.add(name, 1, "<=", rule + ", after the first call; warm: after all calls",
                head=(_ratio(_get(ours, "peak_mb"), _get(peer, "peak_mb")), [ours, peer]),
                warm=(_ratio(_get(ours, "peak_all_mb"), _get(peer, "peak_all_mb")), [ours, peer]), basis="peak")


def faster_than_pytrec_eval(targets, prefix, ours, peer, factor=2.0):
    """The two targets on files: `factor` times faster than pytrec_eval (2x on 2M lines, 1.5x on 10M lines
    and 10^6 queries), peak memory no more than pytrec_eval's."""
    time_target(targets, f"{prefix}: ndcg_nb >= {factor:g}x faster than pytrec_eval", peer, ours, factor, ">=",
                "pytrec_eval time / ndcg_nb time")
    memory_target(targets, f"{prefix}: ndcg_nb peak memory <= pytrec_eval's", ours, peer,
                  "ndcg_nb peak RSS / pytrec_eval peak RSS (whole child process)")


def available_file_peers(session: Session) -> list:
    "The peers of the file workloads; ir_measures only where installed (a note says when it is not)."
    peers = ["pytrec_eval", "ranx"]
    if package_version("ir_measures"):
        peers.append("ir_measures")
    else:
        session.notes.append("ir_measures is not installed: left out")
    return peers


# --- files and skewed: TREC files to numbers ----------------------------------------------------------

FILES_TITLE = "TREC files to numbers: ndcg + ndcg_cut.10, trec_eval conventions"


def _measure_cut_depths(session, workload, files, ours, repeats, fresh=1):
    "ndcg_nb's `ndcg_cut` (nine depths) against `ndcg_cut.10` alone, both checked against the first row."
    one = session.measure(workload, "ndcg_nb ndcg_cut.10 alone", "files",
                          {"tool": "ndcg_nb", **files, "measures": ["ndcg_cut.10"]}, repeats, fresh=fresh)
    one["reference"] = "ndcg_nb"
    row = session.measure(workload, "ndcg_nb ndcg_cut (9 depths)", "files",
                          {"tool": "ndcg_nb", **files, "measures": ["ndcg_cut"]}, repeats, fresh=fresh)
    row["reference"] = "ndcg_nb ndcg_cut.10 alone"
    for extra in (one, row):
        if "_values" in extra and "_values" in ours:
            session.check(extra, compare_queries(ours["_values"], extra["_values"], ["ndcg_cut_10"]))


def measure_files(session, name, title, meta, repeats, peers, cut_all=False, other_repeats=None, fresh=1) -> dict:
    """ndcg_nb.evaluate on a run and qrels, then each peer on the same files, values checked per query;
    peers no target compares (ranx, ir_measures) are called `other_repeats` times if given. `fresh`: children
    per row of ndcg_nb and pytrec_eval, whose headline figures are then medians (the targets read them)."""
    workload = session.add_workload({"name": name, "kind": "files", "title": title, "data": meta, "rows": [],
                                     "measures": FILE_MEASURES, "reference": "ndcg_nb"})
    files = trec_files(meta)
    ours = session.measure(workload, "ndcg_nb", "files", {"tool": "ndcg_nb", **files}, repeats, fresh=fresh)
    if cut_all:
        _measure_cut_depths(session, workload, files, ours, repeats, fresh)
    for peer in peers:
        calls = repeats if peer == "pytrec_eval" or other_repeats is None else other_repeats
        row = session.measure(workload, peer, "files", {"tool": peer, **files}, calls,
                              fresh=fresh if peer == "pytrec_eval" else 1)
        row["reference"] = "ndcg_nb"
        if "_values" in row and "_values" in ours:
            session.check(row, compare_with_peer(ours["_values"], row["_values"], peer, meta["tie_free"]))
    return workload


FLOOR_LABELS = {"stack": "floor: numpy+pyarrow", "parse": "floor: + pyarrow parse",
                "sort": "floor: + one sort of both"}


def _measure_floor(session, workload, files, repeats):
    """What ndcg_nb's libraries alone cost on these files (imports, pyarrow's parse, one sort of both files' lines),
    beside the budget a ratio target leaves: the lower bound of any ndcg_nb built on this stack."""
    rows = {tool: session.measure(workload, label, "floor", {"tool": tool, **files}, repeats, keep_values=False)
            for tool, label in FLOOR_LABELS.items()}
    for row in rows.values():
        row["reference"] = "pytrec_eval"
    peer = find_row(workload, "pytrec_eval")
    floor = _get(rows["sort"], "process")
    if floor is not None and _get(peer, "process"):
        workload.setdefault("lines", []).append(
            f"the stack's floor (import numpy and pyarrow; pyarrow reads both files; one sort of their lines by query "
            f"and document): {floor:.2f} s in a fresh process, before any ranking or NDCG; 2x faster than "
            f"pytrec_eval's process ({peer['process']:.2f} s) leaves {peer['process'] / 2:.2f} s")


def files_data(size, data_dir):
    return {f"files-{q}x{d}": trec_spec(data_dir, f"trec-{q}x{d}", q, d, seed=1) for q, d in size}


def short_data(size, data_dir):
    q, d = size
    return {"short": trec_spec(data_dir, f"trec-short-{q}x{d}", q, d, seed=6, short=True)}


def short_targets(session, targets):
    for w in session.workloads:
        if w["name"].startswith("short-"):
            faster_than_pytrec_eval(targets, f"files {w['data']['run_lines']:,} lines, short ids", find_row(w, "ndcg_nb"),
                                    find_row(w, "pytrec_eval"))


def run_short(session, metas, size):
    "A run of short document ids unique to their query, about 20% of scores tied at two decimals."
    meta = metas["short"]
    title = "TREC files to numbers, short document ids unique to their query, scores of two decimals (20% tied)"
    measure_files(session, f"short-{size[0]}x{size[1]}", title, meta, repeats_for_lines(session, meta["run_lines"]),
                  session.file_peers, other_repeats=repeats_for_lines(session, meta["run_lines"], targeted=False),
                  fresh=session.fresh)


def run_files(session, metas, size):
    for i, (q, d) in enumerate(size):
        meta = metas[f"files-{q}x{d}"]
        workload = measure_files(session, f"files-{q}x{d}", FILES_TITLE, meta,
                                 repeats_for_lines(session, meta["run_lines"]), session.file_peers, cut_all=(i == 0),
                                 other_repeats=repeats_for_lines(session, meta["run_lines"], targeted=False),
                                 fresh=session.fresh if meta["run_lines"] <= 5_000_000 else 1)
        if i == 0 and not session.only_check:
            _measure_floor(session, workload, trec_files(meta), repeats_for_lines(session, meta["run_lines"]))


def files_targets(session, targets):
    for w in session.workloads:
        if w["kind"] != "files" or not w["name"].startswith("files-"):
            continue
        size = f"{w['data']['run_lines']:,} lines"
        factor = 2.0 if w["data"]["run_lines"] <= 5_000_000 else 1.5
        faster_than_pytrec_eval(targets, f"files {size}", find_row(w, "ndcg_nb"), find_row(w, "pytrec_eval"), factor)
        cut, one = find_row(w, "ndcg_nb ndcg_cut (9 depths)"), find_row(w, "ndcg_nb ndcg_cut.10 alone")
        if cut:
            time_target(targets, f"files {size}: ndcg_cut (9 depths) within 1.3x of ndcg_cut.10", cut, one, 1.3, "<=",
                        "ndcg_nb time for ['ndcg_cut'] / for ['ndcg_cut.10'] (the same import)",
                        basis="first")


def skewed_data(size, data_dir):
    q, d, b = size
    return {"skewed": trec_spec(data_dir, f"trec-skewed-{q}x{d}-{b}", q, d, seed=2, big_depth=b)}


def run_skewed(session, metas, size):
    "One long query among short ones, against pytrec_eval; and the peak of a process that only imports ndcg_nb."
    title = ("one query of 50,000 documents among 10-document queries" if not session.only_check
             else "one long query among short ones")
    measure_files(session, "skewed", title, metas["skewed"], session.repeats, ["pytrec_eval"], fresh=session.fresh)
    session.ndcg_nb_import()


def skewed_targets(session, targets):
    w = next((w for w in session.workloads if w["name"] == "skewed"), None)
    if w:
        ours, peer = find_row(w, "ndcg_nb"), find_row(w, "pytrec_eval")
        targets.add("skewed: ndcg_nb peak memory < 300 MB", 300, "<",
                    "peak RSS of the ndcg_nb child, in MB (not a ratio); warm: after all calls",
                    head=(_get(ours, "peak_mb"), [ours]), warm=(_get(ours, "peak_all_mb"), [ours]), basis="peak")
        time_target(targets, "skewed: ndcg_nb time <= pytrec_eval's", ours, peer, 1, "<=",
                    "ndcg_nb time / pytrec_eval time")


# --- arrays: 2-D label and score arrays, and 1-D arrays with group_sizes ------------------------------

def _skip_workload(workload, row) -> bool:
    "When ndcg_nb cannot run the workload at all, the workload is reported as skipped, without rows."
    if "skipped" not in row:
        return False
    workload["skipped"] = row["skipped"]
    workload["rows"].clear()
    return True


def _measure_sklearn(session, workload, files, average, given, repeats, sklearn_repeats):
    "scikit-learn's ndcg_score, ties averaged and ignore_ties=True, each checked against ndcg_nb's mean."
    sk_avg = session.measure(workload, "scikit-learn ndcg_score", "arrays",
                             {"tool": "sklearn", "ties": "average", **files}, sklearn_repeats, fresh=session.fresh)
    sk_avg["reference"] = "ndcg_nb ties=average"
    if "_values" in sk_avg and "_values" in average:
        session.check(sk_avg, compare_numbers(average["_values"]["mean"], sk_avg["_values"]["mean"],
                                              "mean NDCG@10, tied scores"))
    sk_input = session.measure(workload, "scikit-learn ndcg_score ignore_ties=True", "arrays",
                               {"tool": "sklearn", "ties": "input", **files}, repeats, fresh=session.fresh)
    sk_input["reference"] = "ndcg_nb ties=input"
    if "_values" in sk_input and "_values" in given:
        session.check(sk_input, compare_numbers(given["_values"]["mean_untied"], sk_input["_values"]["mean_untied"],
                                                "mean NDCG@10 on tie-free scores"))


def measure_arrays(session, name, meta, repeats, sklearn_repeats) -> dict:
    "ndcg_nb.ndcg on 2-D arrays (ties averaged, in input order) vs scikit-learn and one argpartition pass."
    workload = session.add_workload({"name": name, "kind": "arrays", "title": "NDCG@10 of 2-D label and score arrays",
                                     "rows": [], "data": {"rows": meta["rows"], "cols": meta["cols"],
                                                          "values": meta["values"]}})
    files = array_files(meta)
    average = session.measure(workload, "ndcg_nb ties=average", "arrays",
                              {"tool": "ndcg_nb", "ties": "average", **files}, repeats, fresh=session.fresh)
    if _skip_workload(workload, average):
        return workload
    given = session.measure(workload, "ndcg_nb ties=input", "arrays", {"tool": "ndcg_nb", "ties": "input", **files},
                            repeats, fresh=session.fresh)
    given["reference"] = "ndcg_nb ties=average"
    _measure_sklearn(session, workload, files, average, given, repeats, sklearn_repeats)
    if not session.only_check:  # nothing to check: timing only
        arg = session.measure(workload, "np.argpartition(-scores, 10, axis=1)", "arrays",
                              {"tool": "argpartition", **files}, repeats, keep_values=False, fresh=session.fresh)
        arg["reference"] = "ndcg_nb ties=input"
    return workload


def measure_groups(session, uniform_meta, ragged_meta, twod_row=None) -> dict:
    "ndcg_nb.ndcg on 1-D arrays with group_sizes: equal groups vs the 2-D call, ragged ones vs scikit-learn."
    workload = session.add_workload({
        "name": "groups", "kind": "groups",
        "title": "NDCG@10 of 1-D arrays with group_sizes (LightGBM style), ties averaged", "rows": [],
        "data": {"uniform": {k: uniform_meta[k] for k in ("rows", "cols", "values")},
                 "ragged": {k: ragged_meta[k] for k in ("rows", "values")}}})
    flat = session.measure(workload, "ndcg_nb 1-D, group_sizes (all equal)", "arrays",
                           {"tool": "ndcg_nb", "ties": "average", "layout": "flat", **array_files(uniform_meta)},
                           session.repeats)
    if _skip_workload(workload, flat):
        return workload
    if twod_row is not None and "_values" in twod_row and "_values" in flat:
        flat["reference"] = twod_row["label"] + " (2-D)"
        flat["reference_best"] = twod_row.get("best")
        session.check(flat, compare_numbers(twod_row["_values"]["per_row"], flat["_values"]["per_row"],
                                            "per group vs the 2-D call"))
    ragged = session.measure(workload, "ndcg_nb 1-D, group_sizes (2 to 38)", "arrays",
                             {"tool": "ndcg_nb", "ties": "average", "layout": "ragged", **array_files(ragged_meta)},
                             session.repeats)
    if "_values" in ragged:
        session.check(ragged, compare_numbers(ragged["_values"]["per_row"][:300],
                                              ragged["_values"]["sklearn_first_groups"],
                                              "first 300 groups vs scikit-learn, one group at a time"))
    return workload


def arrays_data(size, data_dir):
    (r, c) = size["groups"]
    plan = {f"arrays-{r2}x{c2}": arrays_spec(data_dir, f"arrays-{r2}x{c2}", r2, c2, seed=4)
            for r2, c2 in size["arrays"] + [size["groups"]]}
    plan["ragged"] = arrays_spec(data_dir, f"ragged-{r}x{c}", r, c, seed=5, ragged=True)
    return plan


def run_arrays(session, metas, size):
    "Each 2-D size, then the 1-D workload on the 2-D data of the groups size and on ragged groups."
    twod = None
    for r, c in size["arrays"]:
        sklearn_repeats = 2 if r * c > 10_000_000 and not session.args.repeats else session.repeats   # first + warm
        w = measure_arrays(session, f"arrays-{r}x{c}", metas[f"arrays-{r}x{c}"], session.repeats, sklearn_repeats)
        if (r, c) == size["groups"]:
            twod = find_row(w, "ndcg_nb ties=average")
    r, c = size["groups"]
    measure_groups(session, metas[f"arrays-{r}x{c}"], metas["ragged"], twod)


def _array_targets(targets, name, w):
    "Per-call targets: headline on the first call in a fresh process (numpy's own pass has no import), warm on the best."
    avg, inp = find_row(w, "ndcg_nb ties=average"), find_row(w, "ndcg_nb ties=input")
    sk_avg, sk_inp = find_row(w, "scikit-learn ndcg_score"), find_row(w, "scikit-learn ndcg_score ignore_ties=True")
    arg = find_row(w, "np.argpartition(-scores, 10, axis=1)")
    time_target(targets, f"{name}: ties averaged >= 3x faster than scikit-learn's ndcg_score", sk_avg, avg, 3, ">=",
                "ndcg_score time / ndcg_nb ties='average' time", basis="first")
    time_target(targets, f"{name}: ties in input order >= 3x faster than ndcg_score(ignore_ties=True)", sk_inp, inp,
                3, ">=", "ndcg_score(ignore_ties=True) time / ndcg_nb ties='input' time", basis="first")
    time_target(targets, f"{name}: ties averaged within 1.5x of ties in input order", avg, inp, 1.5, "<=",
                "ndcg_nb ties='average' / ties='input'", basis="first")
    time_target(targets, f"{name}: ties in input order within 2x of one argpartition pass", inp, arg, 2, "<=",
                "ndcg_nb ties='input' / np.argpartition(-scores, 10, axis=1)", basis="first")
    time_target(targets, f"{name}: ndcg(labels, 10, scores=...) within 3x of one argpartition pass", avg, arg, 3,
                "<=", "ndcg_nb.ndcg with its default ties='average' / np.argpartition(-scores, 10, axis=1)",
                basis="first")


def _per_value(row, key, values):
    "A row's time (`key`: first or best) per value, or None."
    return row[key] / values if row and row.get(key) is not None and values else None


def _groups_target(targets, w):
    "Ragged groups at most 3x the time per value of equal ones (first call; warm: the best calls)."
    flat, ragged = find_row(w, "ndcg_nb 1-D, group_sizes (all equal)"), find_row(w, "ndcg_nb 1-D, group_sizes (2 to 38)")
    n_flat, n_ragged = w["data"]["uniform"]["values"], w["data"]["ragged"]["values"]
    ratio = lambda key: _ratio(_per_value(ragged, key, n_ragged), _per_value(flat, key, n_flat))
    targets.add("groups: ragged groups (2 to 38) within 3x the time per value of equal groups", 3, "<=",
                "ndcg_nb's time per value on ragged groups / on equal groups; headline: the first call, warm: the best",
                head=(ratio("first"), [ragged, flat]), warm=(ratio("best"), [ragged, flat]), basis="first call")


def arrays_targets(session, targets):
    for w in session.workloads:
        if w["kind"] == "groups" and not w.get("skipped"):
            _groups_target(targets, w)
        if w["kind"] != "arrays":
            continue
        if w.get("skipped"):
            targets.skipped(f"{w['name']}: every array target", w["skipped"])
        else:
            _array_targets(targets, w["name"], w)


# --- scaling: time per query from 10^3 to 10^6 queries ------------------------------------------------

def scaling_data(size, data_dir):
    return {f"scaling-{q}": trec_spec(data_dir, f"trec-{q}x10", q, 10, seed=3) for q in size}


def _scaling_repeats(session, n):
    if session.args.repeats:
        return session.repeats
    return 2 if n >= 1_000_000 else (5 if n <= 10_000 else session.repeats)   # 2: a first and a warm figure


def _scaling_point(meta, ours, peer) -> dict:
    "Times per query of both tools at one size: warm (best; the keys the performance page plots), first call, process."
    n = meta["queries"]
    point = {"queries": n, "lines": meta["run_lines"]}
    for key, row in (("ndcg_nb", ours), ("pytrec_eval", peer)):
        if "best" in row:
            point[f"{key}_s"] = row["best"]
            point[f"{key}_us_per_query"] = row["best"] / n * 1e6
            point[f"{key}_first_us_per_query"] = row["first"] / n * 1e6
            point[f"{key}_process_us_per_query"] = row["process"] / n * 1e6
    return point


def run_scaling(session, metas, size):
    "ndcg_nb and pytrec_eval on runs of 10 documents per query, more and more queries."
    if not size:
        return
    workload = session.add_workload({"name": "scaling", "kind": "scaling", "rows": [], "points": [],
                                     "title": "files to numbers, 10 documents per query"})
    for meta in (metas[f"scaling-{q}"] for q in size):
        n, files = meta["queries"], trec_files(meta)
        ours = session.measure(workload, f"ndcg_nb {n:,} queries", "files", {"tool": "ndcg_nb", **files},
                               _scaling_repeats(session, n))
        peer = session.measure(workload, f"pytrec_eval {n:,} queries", "files", {"tool": "pytrec_eval", **files},
                               _scaling_repeats(session, n))
        peer["reference"] = f"ndcg_nb {n:,} queries"
        if "_values" in ours and "_values" in peer:
            session.check(peer, compare_queries(ours["_values"], peer["_values"], ["ndcg", "ndcg_cut_10"],
                                                tolerance=FLOAT32_TOLERANCE))
        workload["points"].append(_scaling_point(meta, ours, peer))


def _growth(points, key):
    "The largest ratio of a time per query to the smallest at any fewer queries (1: flat or falling), or None."
    values = [p.get(key) for p in sorted(points, key=lambda p: p["queries"])]
    if len(values) < 2 or any(v is None for v in values):
        return None
    return max(values[j] / min(values[:j]) for j in range(1, len(values)))


def scaling_targets(session, targets):
    w = next((w for w in session.workloads if w["name"] == "scaling"), None)
    if not (w and w["points"]):
        return
    sizes = sorted(p["queries"] for p in w["points"])
    smallest, largest = sizes[0], sizes[-1]
    faster_than_pytrec_eval(targets, f"scaling {largest:,} queries", find_row(w, f"ndcg_nb {largest:,} queries"),
                            find_row(w, f"pytrec_eval {largest:,} queries"), 1.5)
    rows = [find_row(w, f"ndcg_nb {n:,} queries") for n in sizes]
    targets.add(f"scaling: time per query within 1.5x from {smallest:,} to {largest:,} queries", 1.5, "<=",
                "the largest ratio of ndcg_nb's time per query at a size to its smallest at fewer queries "
                "(a fixed cost that weighs on small sizes only is not growth); headline: the first call (the "
                "import, the same at every size, left out), warm: the best call",
                head=(_growth(w["points"], "ndcg_nb_first_us_per_query"), rows),
                warm=(_growth(w["points"], "ndcg_nb_us_per_query"), rows), basis="first call")


# --- training: one eval-metric call per boosting round ------------------------------------------------

def training_data(size, data_dir):
    rows, cols = size
    return {"training": arrays_spec(data_dir, f"training-{rows}x{cols}", rows, cols, seed=7)}


def run_training(session, metas, size):
    "Per-round eval-metric cost: ndcg_nb's LightGBM metric vs LightGBM's own ndcg@10, on the same scores."
    meta = metas["training"]
    repeats = session.args.repeats or (1 if session.only_check else 10)
    w = session.add_workload({"name": "training", "kind": "training", "title": f"NDCG@10 eval metric per boosting "
                              f"round, {meta['rows']:,} groups x {meta['cols']} documents", "data": meta, "rows": []})
    files = array_files(meta)
    ours = session.measure(w, "ndcg_nb lightgbm_ndcg(10)", "training", {"tool": "ndcg_nb", **files}, repeats,
                           fresh=session.fresh)
    theirs = session.measure(w, "LightGBM ndcg@10 (eval_train)", "training", {"tool": "lightgbm", **files}, repeats,
                             fresh=session.fresh)
    theirs["reference"] = ours["label"]
    if not session.only_check:   # timing only: nothing to compare
        tied = session.measure(w, "ndcg_nb, scores with ties", "training", {"tool": "ndcg_nb", "tied": True, **files},
                               repeats, fresh=session.fresh)
        tied["reference"] = ours["label"]
    if "_values" in ours and "_values" in theirs:
        session.check(theirs, compare_numbers(ours["_values"]["mean"], theirs["_values"]["mean"], "mean NDCG@10"))


def training_targets(session, targets):
    w = next((w for w in session.workloads if w["name"] == "training"), None)
    if w:
        ours, theirs = find_row(w, "ndcg_nb lightgbm_ndcg(10)"), find_row(w, "LightGBM ndcg@10 (eval_train)")
        d = w["data"]
        time_target(targets, f"training: metric call no slower than LightGBM's own ndcg@10 ({d['rows']:,} groups x "
                    f"{d['cols']} documents)", ours, theirs, 1, "<=",
                    "ndcg_nb lightgbm_ndcg(10) call / LightGBM's eval_train call (ours' first call prepares the "
                    "groups; LightGBM's are prepared when its Booster is made)", basis="first")


# --- dicts: from {query: {doc: score}} dicts ---------------------------------------------------------

def dicts_data(size, data_dir):
    return files_data([size], data_dir)


def run_dicts(session, metas, size):
    "ndcg_nb.evaluate from dicts vs pytrec_eval and ranx, each tool's own structures built inside the timing."
    meta = metas["files-{}x{}".format(*size)]
    w = session.add_workload({"name": "dicts", "kind": "dicts", "title": "from {query: {doc: score}} dicts "
                              "(each tool's own structures built inside the timing)", "data": meta, "rows": []})
    files = trec_files(meta)
    ours = session.measure(w, "ndcg_nb", "dicts", {"tool": "ndcg_nb", **files}, session.repeats, fresh=session.fresh)
    # (--only-check leaves ranx out here: its values were checked on the files, and each ranx child
    # compiles numba code for seconds)
    for peer in ("pytrec_eval",) if session.only_check else ("pytrec_eval", "ranx"):
        row = session.measure(w, peer, "dicts", {"tool": peer, **files}, session.repeats,
                              fresh=session.fresh if peer == "pytrec_eval" else 1)
        row["reference"] = "ndcg_nb"
        if "_values" in row and "_values" in ours:
            session.check(row, compare_with_peer(ours["_values"], row["_values"], peer, meta["tie_free"]))


def dicts_targets(session, targets):
    w = next((w for w in session.workloads if w["name"] == "dicts"), None)
    if w:
        time_target(targets, "dicts: ndcg_nb at least as fast as pytrec_eval", find_row(w, "pytrec_eval"),
                    find_row(w, "ndcg_nb"), 1, ">=", "pytrec_eval time / ndcg_nb time")


# --- held: 100 tied runs against one held evaluator, and one query from a fresh evaluator -----------------

def held_data(size, data_dir):
    n_queries, depth, _ = size
    return files_data([(n_queries, depth)], data_dir)


def _spread(row) -> str:
    "A row's warm median, and the range of its children's medians where there are several."
    runs = row.get("median_runs", [row["median"]])
    return f"{row['median'] * 1e3:.3g} ms" + (f" ({min(runs) * 1e3:.3g} to {max(runs) * 1e3:.3g})" if len(runs) > 1 else "")


def _held_line(workload, ours, peer):
    "The warm medians, side by side, on the workload's report lines."
    if ours.get("median") and peer.get("median"):
        workload.setdefault("lines", []).append(
            f"warm median per call: ndcg_nb {_spread(ours)}, pytrec_eval {_spread(peer)}: "
            f"ratio {ours['median'] / peer['median']:.2f}")


def _check_held(session, mode, ours, peer):
    "Per query (the last run), then, for the runs, each run's means of both measures; the first that differs is kept."
    if "_values" not in ours or "_values" not in peer:
        return
    outcomes = [compare_queries(ours["_values"], peer["_values"], ["ndcg", "ndcg_cut_10"], tolerance=FLOAT32_TOLERANCE)]
    if mode == "runs":
        outcomes += [compare_numbers(ours["_values"][f"means_{name}"], peer["_values"][f"means_{name}"],
                                     f"each run's mean {name}") for name in ("ndcg", "ndcg_cut_10")]
    failed = [o for o in outcomes if not o["ok"]]
    session.check(peer, failed[0] if failed else {**outcomes[0], "detail": "; ".join(o["detail"] for o in outcomes)})


def run_held(session, metas, size):
    """`n_runs` runs of tied scores, `ndcg` and `ndcg_cut.10`, scored by a held `Evaluator` against pytrec_eval's held
    `RelevanceEvaluator` (each made once, before the timing); and a one-query `evaluate` against a fresh pytrec_eval
    evaluator built and run in each call. Dicts as pytrec_eval's parsers build them, made outside the timing;
    judged on the median call after the first."""
    n_queries, depth, n_runs = size
    meta = metas[f"files-{n_queries}x{depth}"]
    files = trec_files(meta)
    many = session.add_workload({"name": "held runs", "kind": "held", "title": f"{n_runs} runs of {n_queries} queries "
                                 f"x {depth} documents, scores of 5 values (most documents tied), ndcg + ndcg_cut.10, "
                                 "against one evaluator made before the timing", "data": meta, "rows": []})
    one = session.add_workload({"name": "held one query", "kind": "held", "title": f"one query of {depth} documents, "
                                "ndcg + ndcg_cut.10: `evaluate` vs a fresh pytrec_eval evaluator, built and run in "
                                "each call", "data": meta, "rows": []})
    for workload, mode, repeats in ((many, "runs", max(session.repeats, 5)), (one, "one_query", 1000)):
        args = {"mode": mode, "n_runs": n_runs, **files}
        ours = session.measure(workload, "ndcg_nb", "held", {"tool": "ndcg_nb", **args}, repeats, fresh=session.fresh)
        peer = session.measure(workload, "pytrec_eval", "held", {"tool": "pytrec_eval", **args}, repeats,
                               fresh=session.fresh)
        peer["reference"] = "ndcg_nb"
        _check_held(session, mode, ours, peer)
        if not session.only_check:
            _held_line(workload, ours, peer)


def held_targets(session, targets):
    for name, limit, rule in (("held runs", 1, "100 tied runs scored by a held Evaluator no slower than by "
                                               "pytrec_eval's held evaluator"),
                              ("held one query", 10, "a one-query `evaluate` within 10x of a fresh pytrec_eval "
                                                     "evaluator built and run")):
        w = next((w for w in session.workloads if w["name"] == name), None)
        if w:
            time_target(targets, f"{name}: {rule}", find_row(w, "ndcg_nb"), find_row(w, "pytrec_eval"), limit, "<=",
                        "ndcg_nb time / pytrec_eval time", basis="median")


# --- the registry -------------------------------------------------------------------------------------

REGISTRY = [
    Workload("startup", {"only-check": 1, "quick": 5, "full": 7}, lambda size, data_dir: {}, processes.run_startup,
             processes.startup_targets),
    Workload("trec", {"only-check": (30, 100, 1), "quick": (250, 1_000, 3), "full": (250, 1_000, 5)},
             processes.trec_data, processes.run_trec, processes.trec_targets),
    Workload("files", {"only-check": [(300, 30)], "quick": [(2_000, 100)], "full": [(20_000, 100), (100_000, 100)]},
             files_data, run_files, files_targets),
    Workload("short", {"only-check": (300, 30), "quick": (2_000, 100), "full": (20_000, 100)}, short_data, run_short,
             short_targets),
    Workload("skewed", {"only-check": (300, 10, 3000), "quick": (5_000, 10, 50_000), "full": (5_000, 10, 50_000)},
             skewed_data, run_skewed, skewed_targets),
    Workload("arrays", {"only-check": {"arrays": [(500, 20)], "groups": (500, 20)},
                        "quick": {"arrays": [(10_000, 100), (100_000, 20)], "groups": (100_000, 20)},
                        "full": {"arrays": [(100_000, 100), (1_000_000, 20)], "groups": (1_000_000, 20)}},
             arrays_data, run_arrays, arrays_targets),
    Workload("scaling", {"only-check": [], "quick": [1_000, 10_000, 100_000],
                         "full": [1_000, 10_000, 100_000, 1_000_000]}, scaling_data, run_scaling, scaling_targets),
    Workload("training", {"only-check": (200, 50), "quick": (10_000, 50), "full": (10_000, 50)},
             training_data, run_training, training_targets),
    Workload("dicts", {"only-check": (300, 30), "quick": (2_000, 100), "full": (20_000, 100)}, dicts_data, run_dicts,
             dicts_targets),
    Workload("held", {"only-check": (30, 20, 3), "quick": (200, 50, 100), "full": (200, 50, 100)}, held_data, run_held,
             held_targets),
    Workload("distributed", {"only-check": (300, 30), "quick": (20_000, 100), "full": (100_000, 100)},
             distributed.data, distributed.run, default=False),
    Workload("comparisons", *comparisons.PARTS),
    Workload("metric_objects", *metric_objects.PARTS),
    Workload("sparse_matrices", *sparse_matrices.PARTS),
]
BY_NAME = {w.name: w for w in REGISTRY}
