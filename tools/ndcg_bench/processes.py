"""Whole processes, as a user starts them: the wall time and peak RSS of a command, each run in a fresh
process, several times; and the two workloads measured that way:

  startup  `python -c pass` (the interpreter alone), `python -c "import ndcg_nb"`, `ndcg-nb --version`,
           `ndcg-nb --help` and `python -c "import pytrec_eval"`: median wall of N fresh processes.
  trec     a TREC-sized run (250 queries x 1,000 documents, 163,377 qrels lines): the command line
           `ndcg-nb eval <qrels> <run> -m ndcg -m ndcg_cut.10` against a Python process that runs
           pytrec_eval's parse_qrel/parse_run + RelevanceEvaluator and against trec_eval's C binary when
           one is on PATH; then ndcg_nb.evaluate and pytrec_eval in the usual measuring child (import,
           first call, warm) on the same files.

How a command is measured: a small spawner (`python -S -E`, about 10 MB) starts it with posix_spawn and
waits for it with wait4, `runs` times; the wall is from spawn to exit, the peak is the command's
ru_maxrss. The spawner has to be small because Linux starts a process's ru_maxrss at the high-water mark
of the process it was exec'd from (so a child of the benchmark itself would report at least the
benchmark's RSS); every process measured here is larger than the spawner. Commands run in a temporary
directory (nothing there to import), stdin from /dev/null, stdout and stderr to files.

The console script is the `ndcg-nb` next to `sys.executable` (settings.ini: `ndcg-nb=ndcg_nb.__main__:run`;
not a pyenv shim, whose own start-up would be counted); without it, `python -c` calling that entry point.
"""
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from . import ROOT
from .checks import FLOAT32_TOLERANCE, TOLERANCE, compare_queries, compare_with_peer
from .data import trec_files, trec_spec
from .peers import FILE_MEASURES
from .report import find_row, warm_of
from .session import note

SPAWNER = r"""
import json, os, sys, time
spec = json.loads(sys.argv[1])
out = []
for _ in range(spec["runs"]):
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, spec["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
               (os.POSIX_SPAWN_OPEN, 2, spec["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
    start = time.perf_counter()
    pid = os.posix_spawn(spec["argv"][0], spec["argv"], os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    out.append({"wall": time.perf_counter() - start, "peak_kb": usage.ru_maxrss,
                "exit": os.waitstatus_to_exitcode(status)})
    if out[-1]["exit"]:
        break
with open("/proc/self/status") as status:
    own = next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), None)
print(json.dumps({"runs": out, "spawner_kb": own}))
"""


# --- one command, N fresh processes -------------------------------------------------------------------

def run_command(argv, runs, workdir: Path, name: str, timeout=1800) -> dict:
    """`argv` (argv[0] an absolute path) run `runs` times by the spawner: walls, peak, and the last run's
    output file; or {"error": ...} when a run exits non-zero (then it stops)."""
    stdout, stderr = workdir / f"{name}.out", workdir / f"{name}.err"
    spec = {"argv": [str(a) for a in argv], "runs": runs, "stdout": str(stdout), "stderr": str(stderr)}
    done = subprocess.run([sys.executable, "-S", "-E", "-c", SPAWNER, json.dumps(spec)], capture_output=True,
                          text=True, timeout=timeout, cwd=workdir)
    if done.returncode:
        return {"error": "\n".join(done.stderr.strip().splitlines()[-12:]) or f"spawner exit {done.returncode}"}
    answer = json.loads(done.stdout)
    last = answer["runs"][-1]
    if last["exit"]:
        tail = stderr.read_text(errors="replace").strip().splitlines()[-12:]
        return {"error": f"exit status {last['exit']}: " + "\n".join(tail)}
    walls = [r["wall"] for r in answer["runs"]]
    return {"process_runs": walls, "process": statistics.median(walls), "median": statistics.median(walls),
            "first": walls[0], "best": min(walls), "peak_mb": max(r["peak_kb"] for r in answer["runs"]) / 1024,
            "spawner_mb": answer["spawner_kb"] / 1024 if answer["spawner_kb"] else None, "_stdout": stdout}


def measure_command(session, workload, label, tool, argv, shown, runs) -> dict:
    "A row of N fresh processes of `argv` (`shown`: the command as printed, without this machine's paths)."
    note(f"  {workload['name']}: {label} ...")
    name = f"{workload['name']}-{len(workload['rows'])}"
    row = {"tool": tool, "label": label, "how": "whole process", "command": shown, "runs": runs,
           **run_command(argv, runs, session.values_dir, name)}
    if "error" in row:
        session.failed = True
        note("    failed: " + "\n    ".join(row["error"].splitlines()[-4:]))
    else:
        note(f"    median {row['process']:.3f} s of {runs}, first {row['first']:.3f} s, best {row['best']:.3f} s, "
             f"peak {row['peak_mb']:.0f} MB")
    workload["rows"].append(row)
    return row


def output_of(row) -> str:
    "What the last run of a process row printed ('' when it failed)."
    return row["_stdout"].read_text() if "_stdout" in row else ""


def console_script():
    """The console script as a user runs it: (argv prefix, description). settings.ini's console_scripts names
    it and its entry point; the script installed next to this interpreter, else `python -c` calling the entry point."""
    entry = "ndcg-nb=ndcg_nb.__main__:run"
    settings = ROOT / "settings.ini"
    if settings.exists():
        for line in settings.read_text().splitlines():
            if line.replace(" ", "").startswith("console_scripts="):
                entry = line.split("=", 1)[1].split()[0].strip()
    name, target = entry.split("=", 1)
    module, function = target.split(":")
    script = Path(sys.executable).parent / name
    if script.exists():
        return [str(script)], f"the console script {name} ({target})"
    return ([sys.executable, "-c", f"import sys; from {module} import {function}; sys.exit({function}())"],
            f"python -c calling {target} (no {name} script next to the interpreter)")


# --- startup: what `import` and the command line cost before any work ---------------------------------

def _startup_commands():
    python = sys.executable
    cli, _ = console_script()
    return [("python -c pass (the interpreter alone)", "python", [python, "-c", "pass"], "python -c pass"),
            ("python -c 'import ndcg_nb'", "ndcg_nb", [python, "-c", "import ndcg_nb"], "python -c 'import ndcg_nb'"),
            ("ndcg-nb --version", "ndcg_nb", cli + ["--version"], "ndcg-nb --version"),
            ("ndcg-nb --help", "ndcg_nb", cli + ["--help"], "ndcg-nb --help"),
            ("python -c 'import pytrec_eval'", "pytrec_eval", [python, "-c", "import pytrec_eval"],
             "python -c 'import pytrec_eval'")]


def _check_startup(session, row):
    "Each command ran; --version prints the name and version, --help a usage line."
    if "error" in row:
        return
    text = output_of(row)
    if row["command"].endswith("--version"):
        ok, what = text.startswith("ndcg-nb "), f"prints {text.strip()!r}"
    elif row["command"].endswith("--help"):
        ok, what = text.startswith("usage:"), "prints the usage"
    else:
        ok, what = True, "exit status 0"
    session.check(row, {"ok": ok, "flag": "ran: ", "detail": what if ok else f"unexpected output: {text[:80]!r}"})


def run_startup(session, metas, runs):
    "Each start-up command in `runs` fresh processes; where ndcg_nb is imported from."
    w = session.add_workload({"name": "startup", "kind": "startup", "rows": [], "lines": [], "runs": runs,
                              "title": f"fresh-process wall time, median of {runs} runs each (process = median, "
                                       "first = the first run, best = the fastest)"})
    for label, tool, argv, shown in _startup_commands():
        _check_startup(session, measure_command(session, w, label, tool, argv, shown, runs))
    rows = {r["command"]: r for r in w["rows"]}
    rows["python -c 'import ndcg_nb'"]["reference"] = rows["python -c 'import pytrec_eval'"]["label"]
    bare = rows["python -c pass"].get("process")
    if bare is not None and not session.only_check:
        w["lines"].append("above the interpreter alone: " + ", ".join(
            f"{r['command']} {r['process'] - bare:+.3f} s" for r in w["rows"] if "process" in r
            and r is not rows["python -c pass"]))
    w["lines"].append(f"ndcg-nb is {console_script()[1]}")
    imported = session.ndcg_nb_import()
    if imported.get("file"):
        inside = Path(imported["file"]).resolve().is_relative_to(ROOT)
        session.ndcg_nb_from_checkout = inside
        w["lines"].append("ndcg_nb is imported from this checkout" if inside else
                          f"WARNING: ndcg_nb is imported from {imported['file']}, not from this checkout")


def startup_targets(session, targets):
    w = next((w for w in session.workloads if w["name"] == "startup"), None)
    if not w:
        return
    rows = {r["command"]: r for r in w["rows"]}
    for command, limit in (("python -c 'import ndcg_nb'", 0.35), ("ndcg-nb --version", 0.2), ("ndcg-nb --help", 0.2)):
        row = rows.get(command)
        shown = "`import ndcg_nb`" if "import" in command else f"`{command}`"
        targets.add(f"startup: {shown} < {limit} s", limit, "<",
                    f"median wall of {w['runs']} fresh processes, in s (not a ratio); warm: not applicable",
                    head=(row.get("process") if row else None, [row]), warm=None, basis="process wall")


# --- trec: a TREC-sized run, whole processes ----------------------------------------------------------

PYTREC_EVAL_SCRIPT = """import json, sys
import pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
json.dump(pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.10"}).evaluate(run), sys.stdout)
"""
CLI_MEASURES = ["-m", "ndcg", "-m", "ndcg_cut.10"]
PRINTED_DECIMALS = 4     # trec_eval's text output, and `ndcg-nb eval`'s default (trec) format


def trec_data(size, data_dir):
    q, d, _ = size
    return {"trec": trec_spec(data_dir, f"trecsized-{q}x{d}", q, d, seed=8)}


def _per_query_from_nested(nested: dict) -> dict:
    "{query: {measure: value}} (pytrec_eval's JSON) as {measure: (queries, values)}, sorted by query."
    import numpy as np
    out = {}
    for measure in ("ndcg", "ndcg_cut_10"):
        queries = np.array(sorted(nested), dtype=str)
        out[measure] = (queries, np.array([nested[q][measure] for q in queries], dtype=float))
    return out


def _per_query_from_csv(text: str) -> dict:
    "`ndcg-nb eval -q --format csv` as {measure: (queries, values)}, sorted by query (the 'all' rows left out)."
    import csv
    import io

    import numpy as np
    nested = {}
    for record in csv.DictReader(io.StringIO(text)):
        if record["query"] != "all":
            nested.setdefault(record["measure"], {})[record["query"]] = float(record["value"])
    out = {}
    for measure, values in nested.items():
        queries = np.array(sorted(values), dtype=str)
        out[measure] = (queries, np.array([values[q] for q in queries], dtype=float))
    return out


def _printed_means(text: str) -> dict:
    "The 'all' lines of trec_eval's three-column output: {measure: mean}."
    means = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            means[parts[0]] = float(parts[2])
    return means


def _check_means(session, row, reference: dict, who: str):
    "A row's printed means (4 decimals) against the mean of the reference's per-query values."
    printed = _printed_means(output_of(row))
    missing = [m for m in reference if m not in printed]
    if missing:
        session.check(row, {"ok": False, "detail": f"no printed mean for {', '.join(missing)}"})
        return
    worst = max(abs(printed[m] - float(reference[m][1].mean())) for m in reference)
    limit = 0.5 * 10 ** -PRINTED_DECIMALS + FLOAT32_TOLERANCE
    session.check(row, {"ok": worst <= limit, "max_abs_diff": worst, "compared": len(reference), "tolerance": limit,
                        "detail": f"printed means ({PRINTED_DECIMALS} decimals) vs the mean of {who}'s per-query "
                                  f"values: max |diff| {worst:.1e} (<= {limit:.1e}: rounding)"})


def _cli_per_query(cli, files) -> dict:
    "The command line's per-query values, full precision (`-q --format csv`, one untimed run): values or error."
    done = subprocess.run(cli + ["eval", files["qrels"], files["run"], *CLI_MEASURES, "-q", "--format", "csv"],
                          capture_output=True, text=True, timeout=600)
    if done.returncode:
        return {"error": "\n".join(done.stderr.strip().splitlines()[-8:])}
    return {"values": _per_query_from_csv(done.stdout)}


def _process_rows(session, w, files, runs) -> dict:
    "The command line, pytrec_eval's Python process and trec_eval's binary, each in `runs` fresh processes."
    cli, _ = console_script()
    rows = {"cli": measure_command(session, w, "ndcg-nb eval (command line)", "ndcg_nb",
                                   cli + ["eval", files["qrels"], files["run"], *CLI_MEASURES],
                                   "ndcg-nb eval <qrels> <run> -m ndcg -m ndcg_cut.10", runs)}
    rows["pytrec_eval"] = measure_command(
        session, w, "pytrec_eval (python process)", "pytrec_eval",
        [sys.executable, "-c", PYTREC_EVAL_SCRIPT, files["qrels"], files["run"]],
        "python -c '<parse_qrel, parse_run, RelevanceEvaluator({ndcg, ndcg_cut.10}), json.dump>' <qrels> <run>", runs)
    binary = shutil.which("trec_eval")
    if binary:
        rows["trec_eval"] = measure_command(session, w, "trec_eval (C binary)", "trec_eval",
                                            [binary, *CLI_MEASURES, files["qrels"], files["run"]],
                                            "trec_eval -m ndcg -m ndcg_cut.10 <qrels> <run>", runs)
    else:
        w["rows"].append({"tool": "trec_eval", "label": "trec_eval (C binary)",
                          "skipped": "no trec_eval on PATH (pytrec_eval bundles none): row left out"})
        session.notes.append("trec: no trec_eval binary on PATH (pytrec_eval bundles none), so no trec_eval row")
    for key in ("pytrec_eval", "trec_eval"):
        if key in rows:
            rows[key]["reference"] = rows["cli"]["label"]
    return rows


def _check_process_rows(session, rows, cli_values):
    "pytrec_eval's per-query values vs the command line's (-q --format csv); each printed mean vs its values."
    theirs = {}
    if "error" not in rows["pytrec_eval"]:
        theirs = _per_query_from_nested(json.loads(output_of(rows["pytrec_eval"])))
        if cli_values is not None:
            outcome = compare_queries(cli_values, theirs, ["ndcg", "ndcg_cut_10"], tolerance=FLOAT32_TOLERANCE)
            outcome["detail"] = "vs `ndcg-nb eval -q --format csv`, per query: " + outcome["detail"]
            session.check(rows["pytrec_eval"], outcome)
    if "error" not in rows["cli"] and cli_values is not None:
        _check_means(session, rows["cli"], cli_values, "its own `-q --format csv` run")
    if "trec_eval" in rows and "error" not in rows["trec_eval"] and theirs:
        _check_means(session, rows["trec_eval"], theirs, "pytrec_eval")


def _in_child_rows(session, w, meta, files, cli_values) -> dict:
    "ndcg_nb.evaluate and pytrec_eval in the measuring child (import, first call, warm): the warm figures."
    ours = session.measure(w, "ndcg_nb.evaluate (child)", "files", {"tool": "ndcg_nb", **files},
                           session.repeats)
    if "_values" in ours and cli_values is not None:
        outcome = compare_queries(cli_values, ours["_values"], ["ndcg", "ndcg_cut_10"], tolerance=TOLERANCE)
        outcome["detail"] = "vs the command line's per-query values: " + outcome["detail"]
        session.check(ours, outcome)
    peer = session.measure(w, "pytrec_eval (child)", "files", {"tool": "pytrec_eval", **files},
                           session.repeats)
    peer["reference"] = ours["label"]
    if "_values" in ours and "_values" in peer:
        session.check(peer, compare_with_peer(ours["_values"], peer["_values"], "pytrec_eval", meta["tie_free"]))
    return {"evaluate": ours, "pytrec_eval_child": peer}


def run_trec(session, metas, size):
    "The TREC-sized run: whole processes (command line, pytrec_eval, trec_eval), then the in-child rows."
    _, _, runs = size
    meta = metas["trec"]
    w = session.add_workload({"name": "trec", "kind": "trec", "data": meta, "rows": [], "lines": [], "runs": runs,
                              "measures": FILE_MEASURES, "title": "a TREC-sized run, whole processes: ndcg + "
                              f"ndcg_cut.10, trec_eval conventions (process = median wall of {runs} fresh processes, "
                              "peak = their largest RSS)"})
    files = trec_files(meta)
    cli, _ = console_script()
    checked = _cli_per_query(cli, files)
    if "error" in checked:
        session.failed = True
        w["lines"].append("FAILED: `ndcg-nb eval -q --format csv`: " + checked["error"])
    cli_values = checked.get("values")
    rows = _process_rows(session, w, files, runs)
    _check_process_rows(session, rows, cli_values)
    if not session.only_check:   # (--only-check: the files workload checks the same two tools in a child)
        rows.update(_in_child_rows(session, w, meta, files, cli_values))
    w["lines"].append("values: the command line's per-query values come from one more, untimed run with "
                      "`-q --format csv` (full precision); the timed runs print trec_eval's 4-decimal means, "
                      "checked against them")


def trec_targets(session, targets):
    w = next((w for w in session.workloads if w["name"] == "trec"), None)
    if not w:
        return
    cli, peer = find_row(w, "ndcg-nb eval (command line)"), find_row(w, "pytrec_eval (python process)")
    ours, peer_child = find_row(w, "ndcg_nb.evaluate (child)"), find_row(w, "pytrec_eval (child)")
    d = w["data"]
    name = f"trec {d['queries']:,} x {d['max_depth']:,} ({d['run_lines']:,} run lines, {d['qrels_lines']:,} qrels)"
    get = lambda row, key: row.get(key) if row else None
    ratio = lambda a, b: a / b if a is not None and b else None
    targets.add(f"{name}: `ndcg-nb eval` process wall no slower than pytrec_eval's process", 1, "<=",
                "ndcg-nb eval median wall / pytrec_eval's process median wall; warm: ndcg_nb.evaluate's best "
                "call / pytrec_eval's best call, each in one process",
                head=(ratio(get(cli, "process"), get(peer, "process")), [cli, peer]),
                warm=(ratio(warm_of(ours), warm_of(peer_child)), [ours, peer_child]), basis="process wall")
