"""The report: ratios of each row to its reference row, targets (MET, MISSED, INVALID, NOT MEASURED,
SKIPPED), the printed text (a table per workload, or the value checks alone with --only-check), the
closing notes, and the JSON file written by --json (read by nbs/13_performance.ipynb)."""
import json
from pathlib import Path

from .checks import TOLERANCE

PRIVATE_PATH_KEYS = ("run", "qrels", "tie_free", "labels", "scores", "untied", "sizes")


def find_row(workload, label):
    "The workload's row with this label, or None."
    for row in workload["rows"]:
        if row["label"] == label:
            return row
    return None


def valid_rows(*rows):
    "Every row was measured and its values, where checked, agree."
    return all(r is not None and "best" in r and r.get("check", {"ok": True})["ok"] for r in rows)


class TargetList(list):
    "The target lines of a run, as dicts with status, ratio, limit, comparison and rule."

    def add(self, name, ratio, limit, kind, rows, explanation):
        "A target is met when `ratio kind limit` holds; not judged when a row is missing or its values differ."
        if not valid_rows(*rows):
            status = ("NOT MEASURED" if any(r is None or "best" not in r for r in rows)
                      else "INVALID (values differ)")
            self.append({"target": name, "status": status, "ratio": None, "limit": limit, "rule": explanation})
            return
        met = ratio >= limit if kind == ">=" else (ratio <= limit if kind == "<=" else ratio < limit)
        self.append({"target": name, "status": "MET" if met else "MISSED", "ratio": ratio, "limit": limit,
                     "comparison": kind, "rule": explanation})

    def skipped(self, name, reason):
        self.append({"target": name, "status": "SKIPPED", "ratio": None, "limit": None, "rule": reason})


def add_ratios(workload):
    "time and memory of each row relative to its reference row (peer / reference)."
    for row in workload["rows"]:
        ref = find_row(workload, row.get("reference", "")) if row.get("reference") else None
        if ref is None and row.get("reference_best"):
            row["time_ratio"] = row["best"] / row["reference_best"] if "best" in row else None
            continue
        if ref is None or "best" not in row or "best" not in ref:
            continue
        row["time_ratio"] = row["best"] / ref["best"]
        row["first_ratio"] = row["first"] / ref["first"]
        row["memory_ratio"] = row["peak_mb"] / ref["peak_mb"]


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
            "times in seconds (first call in a fresh process / best of the calls); peak = the child's own "
            "high-water RSS in MB incl. interpreter, imports and inputs (base = before the first call); "
            "ratios = row / reference row (> 1: the reference is faster / smaller)"]


def _size(w) -> str:
    data = w.get("data", {})
    if w["kind"] in ("files", "dicts"):
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
        flag = "" if "check" not in row else ("values agree: " if row["check"]["ok"] else "VALUES DIFFER: ")
        out.append(f"   {row['label']:<45} {flag}{status}")
    out.extend("   " + line for line in w.get("lines", []) if not line.startswith("Dask: peak"))
    return out


def _timing_row(row) -> str:
    if "best" not in row:
        return f"   {row['label']:<45}{'FAILED: ' + _last_line(row['error']) if 'error' in row else 'skipped: ' + row['skipped']}"
    check = row["check"]["detail"] if "check" in row else ""
    if "check" in row and not row["check"]["ok"]:
        check = "INVALID: " + check
    return (f"   {row['label']:<45}{row['first']:>9.3f}{row['best']:>9.3f}{row['base_mb']:>7.0f}{row['peak_mb']:>7.0f}  "
            f"{row.get('reference', ''):<26}{_fmt(row.get('time_ratio'), '6.2f'):>7}{_fmt(row.get('first_ratio'), '6.2f'):>7}"
            f"{_fmt(row.get('memory_ratio'), '6.2f'):>7}  {check}")


def _timing_lines(session, w) -> list:
    "A table of the rows (times, memory, ratios, checks), then what the workload adds."
    out = [f"   {'':<45}{'first':>9}{'best':>9}{'base':>7}{'peak':>7}  {'reference':<26}{'time':>7}"
           f"{'first':>7}{'memory':>7}  values"]
    out.extend(_timing_row(row) for row in w["rows"])
    if w["name"] == "skewed" and session.baseline_import_mb:
        out.append(f"   (for scale: `python -c 'import ndcg_nb'` alone peaks at {session.baseline_import_mb:.0f} MB)")
    if w["kind"] == "scaling":
        out.append(f"   {'queries':>10}{'run lines':>12}{'ndcg_nb us/query':>18}{'pytrec_eval us/query':>22}")
        for p in w["points"]:
            out.append(f"   {p['queries']:>10,}{p['lines']:>12,}{_fmt(p.get('ndcg_nb_us_per_query'), '18.2f'):>18}"
                       f"{_fmt(p.get('pytrec_eval_us_per_query'), '22.2f'):>22}")
    out.extend("   " + line for line in w.get("lines", []))
    return out


def _workload_lines(session, w) -> list:
    add_ratios(w)
    size = _size(w)
    out = ["", f"== {w['name']}: {w['title']}" + (f" ({size})" if size else "")]
    if w.get("skipped"):
        return out + [f"   SKIPPED: {w['skipped']}"]
    return out + (_check_lines(w) if session.only_check else _timing_lines(session, w))


def report_text(session) -> str:
    "The printed report of the whole run."
    out = _header(session)
    for w in session.workloads:
        out.extend(_workload_lines(session, w))
    if session.targets:
        out += ["", "== targets"]
        for t in session.targets:
            ratio = "" if t["ratio"] is None else f" ({t['ratio']:.2f}, limit {t['comparison']} {t['limit']}: {t['rule']})"
            out.append(f"   {t['status']:<7} {t['target']}{ratio}")
    out.extend(f"note: {note}" for note in session.notes)
    return "\n".join(out)


# --- JSON ---------------------------------------------------------------------------------------------

def portable(data):
    "A data description without the paths of this machine's cached files."
    if isinstance(data, dict):
        return {k: portable(v) for k, v in data.items() if k not in PRIVATE_PATH_KEYS}
    return data


def write_json(session, text: str, path):
    "Every result, the machine and the printed report, as read by nbs/13_performance.ipynb."
    payload = {"mode": session.mode, "machine": session.machine, "tolerance": TOLERANCE, "notes": session.notes,
               "baseline_import_ndcg_nb_mb": session.baseline_import_mb,
               "workloads": [{**w, "data": portable(w.get("data", {})),
                              "rows": [{k: v for k, v in r.items() if not k.startswith("_")} for r in w["rows"]]}
                             for w in session.workloads],
               "targets": session.targets, "report": text}
    Path(path).write_text(json.dumps(payload, indent=1) + "\n")
