"""One benchmark run: its options, the workloads measured so far, notes, and whether anything failed.
`measure` runs one tool on one workload in a child (child.py) and keeps the row; `check` records a
comparison outcome on a row. Progress goes to stderr, the report (report.py) to stdout."""
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from .checks import load_values
from .child import run_child

DEFAULT_REPEATS = {"only-check": 1, "quick": 2, "full": 3}
FRESH_CHILDREN = {"only-check": 1, "quick": 1, "full": 3}   # children per measurement of a per-call workload


def with_fresh_medians(result: dict, others: list[dict]) -> dict:
    """`result` (the child that kept the values) with the medians of all children's first call, process
    (import + first call) and warm median call (each child's in `median_runs`), the best call of all, the largest peaks, and each child's first call in `first_runs`."""
    runs = [result] + [r for r in others if "first" in r]
    if len(runs) < len(others) + 1:
        return {**result, "error": next(r.get("error", "a child failed") for r in others if "first" not in r)}
    merged = dict(result)
    merged["first_runs"] = [r["first"] for r in runs]
    merged["process_runs"] = [r["process"] for r in runs]
    merged["first"], merged["process"] = statistics.median(merged["first_runs"]), statistics.median(merged["process_runs"])
    merged["import_s"] = statistics.median(r["import_s"] for r in runs)
    merged["median_runs"] = [r["median"] for r in runs]
    merged["median"] = statistics.median(merged["median_runs"])
    merged["best"] = min(r["best"] for r in runs)
    warm = [r["warm"] for r in runs if r.get("warm") is not None]
    merged["warm"] = min(warm) if warm else None
    for key in ("peak_mb", "peak_all_mb"):
        merged[key] = max(r[key] for r in runs)
    return merged


def note(text):
    "A progress line, on stderr."
    print(text, file=sys.stderr, flush=True)


def read_through(args: dict) -> None:
    """Read each input file of a job once, untimed: every tool then starts from the same warm page cache (else the
    first tool measured on a file evicted since it was written pays for the disk, and the others do not)."""
    for value in args.values():
        if isinstance(value, str) and os.path.isfile(value):
            with open(value, "rb") as f:
                while f.read(1 << 24):
                    pass


class Session:
    def __init__(self, args, mode: str):
        self.args = args
        self.mode = mode                        # "only-check", "quick" or "full"
        self.only_check = mode == "only-check"
        self.data_dir = Path(args.data_dir)
        self.values_dir = Path(tempfile.mkdtemp(prefix="ndcg_nb_values_"))
        self.workloads, self.targets, self.notes = [], [], []
        self.repeats = args.repeats or DEFAULT_REPEATS[mode]   # calls per measurement, unless a workload says
        self.fresh = FRESH_CHILDREN[mode]
        self.file_peers = []
        self.machine = None
        self.baseline_import_mb = None
        self.ndcg_nb_from_checkout = None       # set by the startup workload
        self._imported = None
        self.failed = False

    def add_workload(self, workload: dict) -> dict:
        "Keep a new workload record (its rows are added by `measure`), in the order of the report."
        self.workloads.append(workload)
        return workload

    def measure(self, workload, label, kind, args, repeats, keep_values=True, fresh=1) -> dict:
        """Time `args['tool']` in a child; the row (with '_values' when kept) is added to the workload.
        `fresh` > 1: that many children, one after another; the row's first call and process are their medians."""
        note(f"  {workload['name']}: {label} ...")
        read_through(args)
        values_path = str(self.values_dir / f"{workload['name']}-{label}.npz".replace(" ", "_").replace("/", "_"))
        job = {"job": "measure", "kind": kind, "args": args, "repeats": 1 if self.only_check else repeats,
               "values": values_path if keep_values else None}
        result = run_child(job)
        if fresh > 1 and not self.only_check and "first" in result:
            result = with_fresh_medians(result, [run_child({**job, "values": None}) for _ in range(fresh - 1)])
        row = {"tool": args["tool"], "label": label, **{k: v for k, v in result.items() if k != "values"}}
        if "values" in result:
            row["_values"] = load_values(result["values"])
            os.unlink(result["values"])
        self._note_row(row)
        workload["rows"].append(row)
        return row

    def _note_row(self, row):
        if "error" in row:
            self.failed = True
            note("    failed: " + "\n    ".join(row["error"].splitlines()[-4:]))
        elif "skipped" in row:
            note(f"    skipped: {row['skipped']}")
        else:
            note(f"    import {row['import_s']:.3f} s, load {row['load_s']:.3f} s, first {row['first']:.3f} s, "
                 f"best {row['best']:.3f} s, peak {row['peak_mb']:.0f} MB")

    def ndcg_nb_import(self) -> dict:
        "A child that only imports ndcg_nb (once per run): {'peak_mb', 'file'}; also the baseline import peak."
        if self._imported is None:
            self._imported = run_child({"job": "import"})
            self.baseline_import_mb = self._imported.get("peak_mb")
        return self._imported

    def check(self, row, outcome):
        "Keep a comparison outcome on the row; values that differ fail the run."
        row["check"] = outcome
        if not outcome["ok"]:
            self.failed = True
            note(f"    VALUES DIFFER: {outcome['detail']}")

    def generate(self, plan: dict) -> dict:
        "Generate (or find) the planned data in a child; {key: description}."
        note(f"data in {self.data_dir} (generated once, then reused)")
        started = time.perf_counter()
        out = run_child({"job": "generate", "plan": plan}, timeout=3600)
        if "error" in out:
            raise SystemExit(f"data generation failed:\n{out['error']}")
        note(f"  ready in {time.perf_counter() - started:.1f} s")
        return out
