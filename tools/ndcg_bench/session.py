"""One benchmark run: its options, the workloads measured so far, notes, and whether anything failed.
`measure` runs one tool on one workload in a child (child.py) and keeps the row; `check` records a
comparison outcome on a row. Progress goes to stderr, the report (report.py) to stdout."""
import os
import sys
import tempfile
import time
from pathlib import Path

from .checks import load_values
from .child import run_child

DEFAULT_REPEATS = {"only-check": 1, "quick": 2, "full": 3}


def note(text):
    "A progress line, on stderr."
    print(text, file=sys.stderr, flush=True)


class Session:
    def __init__(self, args, mode: str):
        self.args = args
        self.mode = mode                        # "only-check", "quick" or "full"
        self.only_check = mode == "only-check"
        self.data_dir = Path(args.data_dir)
        self.values_dir = Path(tempfile.mkdtemp(prefix="ndcg_nb_values_"))
        self.workloads, self.targets, self.notes = [], [], []
        self.repeats = args.repeats or DEFAULT_REPEATS[mode]   # calls per measurement, unless a workload says
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

    def measure(self, workload, label, kind, args, repeats, keep_values=True) -> dict:
        "Time `args['tool']` in a child; the row (with '_values' when kept) is added to the workload."
        note(f"  {workload['name']}: {label} ...")
        values_path = str(self.values_dir / f"{workload['name']}-{label}.npz".replace(" ", "_").replace("/", "_"))
        job = {"job": "measure", "kind": kind, "args": args, "repeats": 1 if self.only_check else repeats,
               "values": values_path if keep_values else None}
        result = run_child(job)
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
