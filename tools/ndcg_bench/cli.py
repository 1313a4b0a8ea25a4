"""The command line of `python tools/benchmark.py` (or `python -m ndcg_bench` from tools/): options,
which workloads run, the order of a run (data, measurements, targets, report, JSON) and the exit status
(1 when anything failed or values differ)."""
import argparse
import sys
import tempfile
from pathlib import Path

from . import __doc__ as USAGE
from .machine import byte_compile_ndcg_nb, describe_machine, load_average
from .report import TargetList, closing_notes, report_text, write_json
from .session import Session
from .workloads import BY_NAME, REGISTRY, available_file_peers


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (a CI-like check, under 2 minutes)")
    parser.add_argument("--only-check", action="store_true", help="tiny data, one call per tool, values compared only")
    parser.add_argument("--json", metavar="PATH", help="write every result and the machine description to PATH")
    parser.add_argument("--data-dir", default=str(Path(tempfile.gettempdir()) / "ndcg_nb_benchmark"),
                        help="where generated data is cached (default: %(default)s)")
    parser.add_argument("--workloads", default=",".join(w.name for w in REGISTRY if w.default),
                        help="comma-separated subset of " + ",".join(w.name for w in REGISTRY))
    parser.add_argument("--prepare", action="store_true", help="only generate (or find) the data, then stop")
    parser.add_argument("--repeats", type=int, help="calls per measurement (default 3; 1 for the largest inputs)")
    args = parser.parse_args(argv)
    args.data_dir = str(Path(args.data_dir).resolve())   # the children run in tools/
    chosen = set(args.workloads.split(","))
    unknown = chosen - set(BY_NAME)
    if unknown:
        parser.error(f"unknown workloads: {', '.join(sorted(unknown))}")
    return args, [w for w in REGISTRY if w.name in chosen]


def mode_of(args) -> str:
    return "only-check" if args.only_check else "quick" if args.quick else "full"


def generate_data(session, chosen) -> dict:
    "Generate (or find) the data every chosen workload declares, in one child; --prepare lists it."
    plan = {}
    for workload in chosen:
        plan.update(workload.data(workload.sizes[session.mode], session.data_dir))
    metas = session.generate(plan)
    if session.args.prepare:
        for key, meta in metas.items():
            print(f"{key}: " + ", ".join(f"{k}={v}" for k, v in meta.items() if not isinstance(v, str)))
    return metas


def finish(session, chosen):
    "Targets (not with --only-check), notes, the report, the JSON file; the exit status."
    session.machine["load_average_at_end"] = load_average()
    if not session.only_check:
        session.targets = TargetList()
        for workload in chosen:
            if workload.targets:
                workload.targets(session, session.targets)
    session.notes.extend(closing_notes(session))
    text = report_text(session)
    print(text)
    if session.args.json:
        write_json(session, text, session.args.json)
    if session.only_check and not session.failed:
        print("\nall values agree")
    sys.exit(1 if session.failed else 0)


def main(argv=None):
    args, chosen = parse_args(argv)
    session = Session(args, mode_of(args))
    session.machine = describe_machine()
    compiled = byte_compile_ndcg_nb()
    if compiled:
        session.notes.append(compiled)
    metas = generate_data(session, chosen)
    if args.prepare:
        return
    session.file_peers = available_file_peers(session)
    for workload in chosen:
        workload.run(session, metas, workload.sizes[session.mode])
    finish(session, chosen)
