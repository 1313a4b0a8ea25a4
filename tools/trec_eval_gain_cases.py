"""Record trec_eval 10's values for its NDCG family with gain tables, as test data.

    python tools/trec_eval_gain_cases.py /path/to/trec_eval/source [commit]

Builds trec_eval from its source (usnistgov/trec_eval, tag v10.0) with only its print format changed from
`%6.4f` to `%.17g` (as the shared conformance data was made), in a copy under a temporary folder; writes the
small qrels and run of `tests/data/trec_eval/gains/` (made here, seeded, to reach every rule of the gain
tables: levels 0 to 4, judgments below 0, a query with only non-relevant judgments, tied scores, a run query
nobody judged); and runs every case below on them and on trec_eval's
own test collection, writing `tests/data/trec_eval/expected_gains_more.json`. tests/test_trec_gains.py reads
it; nothing here runs in the tests.
"""
import datetime
import itertools
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "trec_eval"
KINDS = ("ndcg", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg")
TABLES = (None, "0=1,1=4", "-1=-2,1=1", "0=0.5,1=1", "1=1.5,2=1", "2=0,3=0.5", "-2=5", "4=0.9,3=0.2,1=3",
          "1=-1", "3=1,3=5", "+1=2", "5=3", "-1=1", "1=0,2=0,3=0,4=0")
FLAGS = ((), ("-c",), ("-J",), ("-M5",))
FILES = (("test/qrels.test", "test/results.test"), ("test/qrels.rel_level", "test/results.test"),
         ("gains/gains.qrels", "gains/gains.run"))


def build(source: Path) -> Path:
    "trec_eval built from `source` in a temporary copy, printing every value with 17 significant digits."
    work = Path(tempfile.mkdtemp()) / "trec_eval"
    shutil.copytree(source, work, ignore=shutil.ignore_patterns(".git"))
    for name in ("meas_print_single.c", "meas_print_final.c"):
        path = work / name
        path.write_text(path.read_text().replace("%6.4f", "%.17g"))
    subprocess.run(["make", "-s"], cwd=work, check=True, capture_output=True)
    return work / "trec_eval"


def write_gains_files(folder: Path, seed: int = 7) -> None:
    """Eight judged queries and their run: levels 0 to 4, judgments below 0, tied scores; q7 judged 0 only; and q9,
    in the run only. (A judged query missing from the run is an error to trec_eval 10 without `-c`.)"""
    deal = random.Random(seed)
    qrels, run = [], []
    for q in range(1, 9):
        docs = list(dict.fromkeys(f"d{deal.randrange(40):02d}" for _ in range(25)))
        levels = [0] if q == 7 else [-1, 0, 0, 1, 1, 2, 3, 4]
        judged = deal.sample(docs, k=min(len(docs), 12)) + [f"x{q}{i}" for i in range(3)]
        qrels += [f"q{q} 0 {d} {deal.choice(levels)}" for d in judged]
        run += [f"q{q} Q0 {d} 0 {deal.choice([0.5, 0.25, 1.0, round(deal.random(), 2)])} r" for d in docs]
    run += ["q9 Q0 d01 0 1.0 r", "q9 Q0 d02 0 0.5 r"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "gains.qrels").write_text("\n".join(sorted(qrels)) + "\n")
    (folder / "gains.run").write_text("\n".join(run) + "\n")


def run_case(trec_eval: Path, qrels: str, run: str, measure: str, flags: tuple) -> dict:
    "{measure name: {query or 'all': value as printed}} of one trec_eval call."
    done = subprocess.run([str(trec_eval), "-q", *flags, "-m", measure, qrels, run], capture_output=True, text=True,
                          cwd=DATA, check=True)
    values = {}
    for line in done.stdout.splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        values.setdefault(name, {})[query] = value
    return values


def main(source: str, commit: str = "") -> None:
    trec_eval = build(Path(source))
    write_gains_files(DATA / "gains")
    commit = commit or subprocess.run(["git", "-C", source, "rev-parse", "HEAD"], capture_output=True,
                                      text=True).stdout.strip()
    cases = []
    for (qrels, run), kind, table, flags in itertools.product(FILES, KINDS, TABLES, FLAGS):
        measure = kind if table is None else f"{kind}.{table}"
        command = " ".join(["trec_eval", "-q", *flags, "-m", measure, qrels, run])
        cases.append({"command": command, "qrels": qrels, "run": run, "flags": list(flags), "measure": measure,
                      "trec_eval_10_full_precision": run_case(trec_eval, qrels, run, measure, flags)})
    out = {"source": f"trec_eval 10.0 (usnistgov/trec_eval, commit {commit or 'unknown'}) built from source with "
                     "%.17g in place of %6.4f, nothing else changed; run by tools/trec_eval_gain_cases.py on "
                     f"{datetime.date.today().isoformat()}", "cases": cases}
    lines = ",\n".join(json.dumps(case, separators=(",", ":")) for case in cases)      # one case a line
    (DATA / "expected_gains_more.json").write_text(f'{{"source": {json.dumps(out["source"])},\n "cases": [\n{lines}\n]}}\n')
    print(f"{len(cases)} cases written to {DATA / 'expected_gains_more.json'}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
