"""The report: ratios of each row to its reference row, targets (MET, MISSED, INVALID, NOT MEASURED,
SKIPPED), the printed text (a table per workload, or the value checks alone with --only-check), the
closing notes, and the JSON file written by --json (read by nbs/82_performance.ipynb).

Every target has two statuses: the headline one, on what a user pays in a fresh process (`basis` says
which figure: the process = import + first call, the first call alone, a whole process's wall or peak),
and the warm one, on the best call in one process (or the peak after all calls); "n/a" where a target
is about fresh processes only (start-up)."""
import json
from pathlib import Path

from .checks import TOLERANCE

PRIVATE_PATH_KEYS = ("run", "qrels", "tie_free", "labels", "scores", "untied", "sizes")
# ratio key -> the row's figure it divides (row / reference row)
RATIOS = (("process_ratio", "process"), ("first_ratio", "first"), ("time_ratio", "best"), ("memory_ratio", "peak_mb"))


def find_row(workload, label):
    "The workload's row with this label, or None."
    for row in workload["rows"]:
        if row["label"] == label:
            return row
    return None


def valid_rows(*rows):
    "Every row was measured and its values, where checked, agree."
    return all(r is not None and "best" in r and r.get("check", {"ok": True})["ok"] for r in rows)


def warm_of(row):
    "A row's warm time: the best of its calls in one process; None after a single call (or for a whole process)."
    return row["best"] if row and len(row.get("times", ())) > 1 else None


def _judge(figure, rows, limit, kind):
    "(status, figure) of one figure of a target."
    if not valid_rows(*rows):
        status = "NOT MEASURED" if any(r is None or "best" not in r for r in rows) else "INVALID (values differ)"
        return status, None
    if figure is None:
        return "NOT MEASURED", None
    met = figure >= limit if kind == ">=" else (figure <= limit if kind == "<=" else figure < limit)
    return ("MET" if met else "MISSED"), figure


class TargetList(list):
    """The target lines of a run, as dicts: target, status and ratio (the headline figure, on `basis`),
    warm_status and warm_ratio, limit, comparison and rule."""

    def add(self, name, limit, kind, rule, head, warm=None, basis="process"):
        """`head` and `warm`: (figure, rows); the target is met when `figure kind limit` holds; not judged when a
        row is missing or its values differ. `warm` None: the target has no warm figure (n/a)."""
        status, ratio = _judge(*head, limit, kind)
        warm_status, warm_ratio = _judge(*warm, limit, kind) if warm is not None else ("n/a", None)
        self.append({"target": name, "status": status, "ratio": ratio, "basis": basis, "warm_status": warm_status,
                     "warm_ratio": warm_ratio, "limit": limit, "comparison": kind, "rule": rule})

    def skipped(self, name, reason):
        self.append({"target": name, "status": "SKIPPED", "ratio": None, "warm_status": "SKIPPED", "warm_ratio": None,
                     "limit": None, "rule": reason})


def add_ratios(workload):
    "process, first, warm (best) time and memory of each row relative to its reference row (row / reference)."
    for row in workload["rows"]:
        ref = find_row(workload, row.get("reference", "")) if row.get("reference") else None
        if ref is None and row.get("reference_best"):
            row["time_ratio"] = row["best"] / row["reference_best"] if "best" in row else None
            continue
        if ref is None or "best" not in row or "best" not in ref:
            continue
        for key, figure in RATIOS:
            if row.get(figure) is not None and ref.get(figure):
                row[key] = row[figure] / ref[figure]


def closing_notes(session) -> list:
    "The notes after the report: the import baseline, ranx's threads, the tolerances."
    notes = []
    if session.baseline_import_mb:
        notes.append(f"`python -c 'import ndcg_nb'` alone peaks at {session.baseline_import_mb:.0f} MB")
    if any(r.get("tool") == "ranx" for w in session.workloads for r in w["rows"]):
        notes.append("ranx runs its metrics with numba in parallel threads; the other tools use one core. "
                     "ranx's 'first' includes numba compiling its code (or loading it from numba's disk cache)")
    notes.append("values are compared to 1e-12, except pytrec_eval and ir_measures (1e-9): trec_eval keeps "
                 "run scores as float32, where distinct scores can tie (not in this data: scores < 90, 4 decimals); "
                 "ranx orders tied scores by an unstable sort, so it is compared on the queries without tied "
                 "scores, the others on every query")
    return notes


# --- text ---------------------------------------------------------------------------------------------

def _last_line(text):
    return text.strip().splitlines()[-1] if text else text


def _fmt(x, spec, missing="-"):
    return missing if x is None else format(x, spec)


def _header(session) -> list:
    m = session.machine
    return [f"ndcg_nb benchmark ({session.mode}), {m['date']}",
            f"{m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM; Python {m['python']}, "
            + ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v),
            f"load average at start {m['load_average_at_start']}, at end {m.get('load_average_at_end')}",
            "times in seconds. Each row is a fresh child process: import = the tool's imports, timed first; "
            "load = reading its inputs; process = import + first call (what a user pays; the interpreter's own "
            "start-up is the startup workload's `python -c pass`); first = the first call; best = the fastest "
            "call (warm). Whole-process rows (startup, trec): process = median wall of N fresh processes, "
            "first = the first of them, best = the fastest",
            "peak = high-water RSS in MB incl. interpreter, imports and inputs, after the first call (base = "
            "before it); ratios = row / reference row (> 1: the reference is faster / smaller): process "
            "(headline), first, warm (best), memory"]


def _size(w) -> str:
    data = w.get("data", {})
    if w["kind"] in ("files", "dicts", "trec"):
        return (f"{data['queries']:,} queries, {data['run_lines']:,} run lines, {data['qrels_lines']:,} qrels lines, "
                f"{data['queries_with_ties']:,} queries with tied scores")
    if w["kind"] == "arrays":
        return f"{data['rows']:,} x {data['cols']}"
    if w["kind"] == "groups":
        return f"{data['uniform']['values']:,} and {data['ragged']['values']:,} values"
    return ""


def _check_lines(w) -> list:
    "--only-check: each row's check (or 'reference'), then the workload's own lines."
    out = []
    for row in w["rows"]:
        status = (_last_line(row.get("error")) or row.get("skipped")
                  or (row["check"]["detail"] if "check" in row else "reference"))
        flag = "" if "check" not in row else (row["check"].get("flag", "values agree: ") if row["check"]["ok"]
                                              else "VALUES DIFFER: ")
        out.append(f"   {row['label']:<45} {flag}{status}")
    out.extend("   " + line for line in w.get("lines", []) if not line.startswith("Dask: peak"))
    return out


def _timing_row(row) -> str:
    if "best" not in row:
        return f"   {row['label']:<44}{'FAILED: ' + _last_line(row['error']) if 'error' in row else 'skipped: ' + row['skipped']}"
    check = row["check"]["detail"] if "check" in row else ""
    if "check" in row and not row["check"]["ok"]:
        check = "INVALID: " + check
    times = "".join(f"{_fmt(row.get(k), '.3f'):>8}" for k in ("import_s", "load_s", "process", "first", "best"))
    ratios = "".join(f"{_fmt(row.get(k), '.2f'):>8}" for k, _ in RATIOS)
    return (f"   {row['label']:<44}{times}{_fmt(row.get('base_mb'), '.0f'):>6}{row['peak_mb']:>6.0f}  "
            f"{row.get('reference', ''):<30}{ratios}  {check}")


def _scaling_lines(w) -> list:
    out = [f"   {'queries':>10}{'run lines':>12}   us/query: {'ndcg_nb process':>16}{'first':>9}{'warm':>9}"
           f"{'pytrec_eval process':>21}{'first':>9}{'warm':>9}"]
    for p in w["points"]:
        figures = "".join(f"{_fmt(p.get(f'{tool}_{key}us_per_query'), '.2f'):>{width}}"
                          for tool in ("ndcg_nb", "pytrec_eval")
                          for key, width in (("process_", 16 if tool == "ndcg_nb" else 21), ("first_", 9), ("", 9)))
        out.append(f"   {p['queries']:>10,}{p['lines']:>12,}{'':13}{figures}")
    return out


def _timing_lines(session, w) -> list:
    "A table of the rows (times, memory, ratios, checks), then what the workload adds."
    out = [f"   {'':<44}{'import':>8}{'load':>8}{'process':>8}{'first':>8}{'best':>8}{'base':>6}{'peak':>6}  "
           f"{'reference':<30}{'process':>8}{'first':>8}{'warm':>8}{'memory':>8}  values"]
    out.extend(_timing_row(row) for row in w["rows"])
    if w["name"] == "skewed" and session.baseline_import_mb:
        out.append(f"   (for scale: `python -c 'import ndcg_nb'` alone peaks at {session.baseline_import_mb:.0f} MB)")
    if w["kind"] == "scaling":
        out.extend(_scaling_lines(w))
    out.extend("   " + line for line in w.get("lines", []))
    return out


def _workload_lines(session, w) -> list:
    add_ratios(w)
    size = _size(w)
    out = ["", f"== {w['name']}: {w['title']}" + (f" ({size})" if size else "")]
    if w.get("skipped"):
        return out + [f"   SKIPPED: {w['skipped']}"]
    return out + (_check_lines(w) if session.only_check else _timing_lines(session, w))


def _target_line(t) -> str:
    figures = []
    if t["ratio"] is not None:
        figures.append(f"{t['basis']} {t['ratio']:.2f}")
    if t.get("warm_ratio") is not None:
        figures.append(f"warm {t['warm_ratio']:.2f}")
    limit = f"limit {t['comparison']} {t['limit']}: " if t.get("comparison") else ""
    return (f"   {t['status']:<13}{t.get('warm_status', ''):<13}{t['target']} ("
            + "; ".join(figures + [limit + t["rule"]]) + ")")


def report_text(session) -> str:
    "The printed report of the whole run."
    out = _header(session)
    for w in session.workloads:
        out.extend(_workload_lines(session, w))
    if session.targets:
        out += ["", "== targets: status on the headline figure (what a fresh process pays: `basis`), then warm "
                "(the best call in one process)", f"   {'headline':<13}{'warm':<13}target"]
        out.extend(_target_line(t) for t in session.targets)
    out.extend(f"note: {note}" for note in session.notes)
    return "\n".join(out)


# --- JSON ---------------------------------------------------------------------------------------------

def portable(data):
    "A data description without the paths of this machine's cached files."
    if isinstance(data, dict):
        return {k: portable(v) for k, v in data.items() if k not in PRIVATE_PATH_KEYS}
    return data


def write_json(session, text: str, path):
    "Every result, the machine and the printed report, as read by nbs/82_performance.ipynb."
    payload = {"mode": session.mode, "machine": session.machine, "tolerance": TOLERANCE, "notes": session.notes,
               "baseline_import_ndcg_nb_mb": session.baseline_import_mb,
               "ndcg_nb_from_checkout": session.ndcg_nb_from_checkout,
               "workloads": [{**w, "data": portable(w.get("data", {})),
                              "rows": [{k: v for k, v in r.items() if not k.startswith("_")} for r in w["rows"]]}
                             for w in session.workloads],
               "targets": session.targets, "report": text}
    Path(path).write_text(json.dumps(payload, indent=1) + "\n")
