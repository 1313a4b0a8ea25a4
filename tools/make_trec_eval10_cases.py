"""Write the small qrels and runs of tests/data/trec_eval10/, on which ndcg_nb must print what trec_eval 10.0 prints.

    python tools/make_trec_eval10_cases.py

Deterministic (every case has its own fixed seed): running it again writes the same bytes. Each case is a pair
NAME.qrels and NAME.run; tests/test_trec_eval10.py builds trec_eval 10.0 from tests/data/trec_eval_src/ and runs it on
them, so no expected output is stored here: the freshly built trec_eval is the oracle.

- doubles: 150 judged queries (and 3 run queries nobody judged) whose scores are distinct as doubles but not as 32-bit
  floats: 1 + k*1e-9, k < 60 (1 + k*1e-10 in the long queries; float32 makes them all 1.0, so a reader of float32
  breaks the ties by docno), some queries at
  1 + k*1e-7 (float32 keeps some apart and merges others), a few exact ties; four queries of 120-140 documents (for
  -M 100); grades 0-3, judged documents the run does not retrieve, queries judged 0 only.
- huge: scores near the ends of the double range, 1e308, 5e307, -1e308, -5e307, +-1.7976931348623157e308, 3.5e38,
  and subnormals, mixed with ordinary scores: finite doubles that are infinite (or 0) as float32.
- missing: judged queries the run lacks (scored 0 by trec_eval -c, an error without it): one with grades 0-3, one
  judged 0 only, one with negative and positive grades; a retrieved query with negative grades, and run queries nobody
  judged. No query is judged below 0 only: trec_eval 10 gives such a query the relevance levels of the query before
  it (stale state in form_res_rels.c), which no other evaluator should copy.
- ties_order: query ids of different lengths (1, 2, 9, 10, 11, 100, x7: trec_eval orders them as strings), docnos of
  different lengths and cases, and many exact ties written differently (0.5, .5, 5e-1, +0.5, 5E-01) that trec_eval
  breaks by docno, descending in byte order.

No case has a query judged below 0 only: trec_eval 10 gives such a query the relevance levels (so the ideal DCG) of the
query evaluated before it, as form_res_rels.c counts levels 0..max_rel and keeps its saved counts when max_rel < 0.
"""
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "trec_eval10"

README = """\
# trec_eval 10.0 cases (generated)

Small qrels and runs on which `ndcg-nb eval QRELS RUN -q [flags] -m MEASURE ...` must print, byte for byte, what
trec_eval 10.0 prints. Written by `tools/make_trec_eval10_cases.py` (deterministic: fixed seeds, run it again to get
the same bytes); ndcg_nb's own data, under the project's licence.

No expected output is stored. `tests/test_trec_eval10.py` builds trec_eval 10.0 from its source
(`tests/data/trec_eval_src/`, usnistgov/trec_eval tag v10.0) once per session and runs it on every `NAME.qrels` /
`NAME.run` pair here (and on trec_eval's own collection in `tests/data/trec_eval/test/`), under no flag, `-c`, `-J`
and `-c -M 100`. Flag sets without `-c` are left out for a qrels with judged queries the run lacks: trec_eval 10 stops
with an error there.

No query here is judged below 0 only: trec_eval 10 gives such a query the relevance levels (so the ideal DCG and
NDCG) of the query evaluated before it (`form_res_rels.c` counts levels `0..max_rel` and leaves its saved counts as
they were when `max_rel < 0`), a value no other evaluator should copy.

| case | what it reaches |
|---|---|
| `doubles` | 150 judged queries with scores 1 + k*1e-9, k < 60, or 1 + k*1e-10 in the long queries (distinct as doubles, all 1.0 as float32), some at 1 + k*1e-7 (partly merged by float32), a few exact ties; 4 queries of 120-140 documents (for `-M 100`); grades 0-3, judged documents not retrieved, queries judged 0 only, 3 run queries nobody judged |
| `huge` | scores 1e308, 5e307, -1e308, -5e307, +-1.7976931348623157e308, 3.5e38 and subnormals (finite doubles that float32 makes infinite or 0) mixed with ordinary scores |
| `missing` | judged queries the run lacks (for `-c`): grades 0-3; judged 0 only; negative and positive grades; a retrieved query with grades -1 to 2; run queries nobody judged |
| `ties_order` | query ids 1, 2, 9, 10, 11, 100, x7 (printed in trec_eval's string order), docnos of different lengths and cases, exact ties written as 0.5, .5, 5e-1, +0.5, 5E-01 |
"""


def _write(name: str, qrels: list, run: list) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    lines = []
    for q, docs in run:                                   # docs: [(docno, score text)], written in the given order
        lines += [f"{q} Q0 {d} {rank} {s} {name}\n" for rank, (d, s) in enumerate(docs, 1)]
    (OUT / f"{name}.run").write_text("".join(lines))


def _judge(deal: random.Random, q: str, retrieved: list, grades=(0, 0, 1, 1, 2, 3), extra: int = 3) -> list:
    "Judgments of about 60% of `retrieved` and of up to `extra` documents the run does not retrieve."
    judged = [(q, d, deal.choice(grades)) for d in retrieved if deal.random() < 0.6]
    judged += [(q, f"{q}-unret{i}", deal.choice([1, 2, 3])) for i in range(deal.randint(0, extra))]
    return judged


def doubles() -> None:
    deal = random.Random(1001)
    qrels, run = [], []
    for n in range(1, 154):
        q = f"q{n:03d}"
        size = deal.randint(120, 140) if n in (7, 50, 99, 140) else deal.randint(5, 30)
        docs = [f"D{deal.randrange(10**6):06d}" for _ in range(size)]
        docs = list(dict.fromkeys(docs))
        if n % 10 == 0:                                   # float32 keeps some of these apart
            step, top = 1e-7, 10 * len(docs)
        else:                                             # within half a float32 step of 1: all 1.0 as float32
            step, top = (1e-9, 59) if len(docs) < 59 else (1e-10, 590)
        ks = deal.sample(range(1, top + 1), len(docs))
        if n % 25 == 0:                                   # a few exact ties among the doubles
            ks[1:4] = [ks[0]] * 3
        scores = [repr(1 + k * step) for k in ks]
        run.append((q, list(zip(docs, scores))))
        if n > 150:                                       # q151-q153: in the run only
            continue
        if n % 30 == 0:                                   # judged, none relevant
            qrels += [(q, d, 0) for d in docs[:5]]
        else:
            qrels += _judge(deal, q, docs)
    _write("doubles", sorted(qrels), run)


HUGE = ["1e308", "5e307", "-1e308", "-5e307", "1.7976931348623157e308", "-1.7976931348623157e308", "3.5e38",
        "-3.5e38", "1e-310", "-1e-310", "4.9e-324"]


def huge() -> None:
    deal = random.Random(1002)
    qrels, run = [], []
    for n in range(1, 31):
        q = f"h{n:02d}"
        docs = [f"doc{deal.randrange(1000):03d}" for _ in range(deal.randint(10, 25))]
        docs = list(dict.fromkeys(docs))
        share = 1.0 if n % 10 == 0 else 0.4               # every 10th query: extreme scores only
        scores = [deal.choice(HUGE) if deal.random() < share else repr(round(deal.uniform(-20, 20), 6)) for _ in docs]
        run.append((q, list(zip(docs, scores))))
        qrels += _judge(deal, q, docs)
    _write("huge", sorted(qrels), run)


def missing() -> None:
    deal = random.Random(1003)
    qrels, run = [], []
    for n in range(1, 9):                                 # m1-m6 retrieved; m7, m8 in the run only
        q = f"m{n}"
        docs = list(dict.fromkeys(f"d{deal.randrange(200):03d}" for _ in range(deal.randint(8, 20))))
        run.append((q, [(d, repr(round(deal.uniform(0, 1), 4))) for d in docs]))
        if n <= 6:
            grades = (-1, 0, 1, 2) if n == 3 else (0, 0, 1, 1, 2, 3)
            qrels += _judge(deal, q, docs, grades)
    # No query is judged below 0 only: trec_eval 10 then keeps the previous query's relevance levels (form_res_rels.c
    # counts levels 0..max_rel, and max_rel < 0 leaves its saved counts as they were), so its values are not defined.
    lacking = {"m9": (0, 1, 2, 3), "m10": (0,), "m11": (-2, -1, 0, 1, 2)}
    for q, grades in lacking.items():                     # judged, not in the run
        qrels += [(q, f"d{i:03d}", grades[i % len(grades)]) for i in range(deal.randint(4, 9))]
    _write("missing", sorted(qrels), run)


TIE_SCORES = ["0.5", ".5", "5e-1", "+0.5", "5E-01", "1", "1.0", "0.25", "0"]
TIE_DOCS = ["d1", "d10", "d9", "D2", "d1a", "doc-3", "Doc3", "d01", "e", "E", "d_5", "d-5", "zz", "a"]


def ties_order() -> None:
    deal = random.Random(1004)
    qrels, run = [], []
    for q in ["1", "2", "9", "10", "11", "100", "x7"]:
        docs = deal.sample(TIE_DOCS, deal.randint(6, len(TIE_DOCS)))
        run.append((q, [(d, deal.choice(TIE_SCORES)) for d in docs]))
        qrels += _judge(deal, q, docs, extra=2)
    _write("ties_order", sorted(qrels), run)


def main() -> None:
    for case in (doubles, huge, missing, ties_order):
        case()
    (OUT / "README.md").write_text(README)
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"wrote {len(list(OUT.iterdir()))} files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    main()
