"""alpha-nDCG (ndcg_nb.integrations.alpha_ndcg) against TREC's ndeval as pyndeval packages it: the census values, stored
pyndeval values for random subtopic qrels (tests/data/alpha_ndcg/random_cases.json) and, where pyndeval is
installed, pyndeval itself on fresh random data; past pyndeval's depth limit of 20, a direct implementation of
the definition. pyndeval computes in C doubles, so agreement is asked to 1e-12 (it is in fact exact)."""
import json
import math
import random
import sys
from pathlib import Path

import pandas as pd
import pytest

from ndcg_nb.integrations.alpha_ndcg import alpha_ndcg, as_subtopic_qrels, read_subtopic_qrels
from ndcg_nb.errors import InputError, UsageError
from ndcg_nb.engine.runs import TrecFormatError

DATA = Path(__file__).parent / "data"
HERE = DATA / "alpha_ndcg"
sys.path.insert(0, str(HERE))
from make_expected import ALPHAS, DEPTHS, LEVELS, pyndeval_values, random_case  # noqa: E402

TOLERANCE = 1e-12


def _frames(case):
    qrels = pd.DataFrame(case["qrels"], columns=["query", "subtopic", "doc", "relevance"])
    return qrels, pd.DataFrame(case["run"], columns=["query", "doc", "score"])


def _assert_agrees(got: dict, want: dict, what: str):
    assert list(got) == list(want), f"{what}: scored queries {list(got)} != {list(want)}"
    worst = max((abs(got[q] - want[q]) for q in want), default=0.0)
    assert worst <= TOLERANCE, f"{what}: max |diff| {worst}"


def _census_cases():
    cases = json.loads((DATA / "conventions" / "cases.json").read_text())
    return [(case, {q: {"1": docs} for q, docs in case["qrels"].items()}) for case in cases]


def test_census_values():
    "The census's pyndeval 0.0.8 values (one subtopic per query, alpha 0.5 and 0) on all 37 shared cases."
    stored = json.loads((DATA / "conventions" / "results_pyndeval.json").read_text())["cases"]
    for case, qrels in _census_cases():
        for alpha, variant in ((0.5, "alpha-nDCG_alpha0.5"), (0.0, "alpha-nDCG_alpha0")):
            result = alpha_ndcg(qrels, case["run"], k=min(case["k"] or 20, 20), alpha=alpha)
            want = stored[case["name"]][variant]
            _assert_agrees(result.per_query, want["per_query"], f"{case['name']} {variant}")
            assert abs(result.mean - want["mean"]) <= TOLERANCE


def test_random_stored_pyndeval_values():
    "Six random multi-subtopic cases, 5 depths x 5 alphas x 2 relevance levels, against stored pyndeval values."
    stored = json.loads((HERE / "random_cases.json").read_text())
    for case in stored["cases"]:
        qrels, run = _frames(case)
        for key, want in case["pyndeval"].items():
            k, alpha, level = (part.split("=")[1] for part in key.split(","))
            got = alpha_ndcg(qrels, run, k=int(k), alpha=float(alpha), relevance_level=int(level)).per_query
            _assert_agrees(got, want, f"seed {case['seed']} {key}")


def test_census_cases_live_pyndeval():
    "pyndeval itself on the census cases at more alphas and depths than the census ran."
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval (the dev extra) is not installed")
    for case, qrels in _census_cases():
        pairs = [(q, "1", d, int(g)) for q, docs in case["qrels"].items() for d, g in docs.items()]
        run = [(q, d, float(s)) for q, docs in case["run"].items() for d, s in docs.items()]
        for alpha in (0.0, 0.3, 0.5, 1.0):
            measures = [f"alpha-nDCG@{k}" for k in (1, 3, 10, 20)]
            result = pyndeval.RelevanceEvaluator(pairs, measures, alpha=alpha).evaluate(run)
            for k in (1, 3, 10, 20):
                want = {q: r[f"alpha-nDCG@{k}"] for q, r in result.items()}
                got = alpha_ndcg(qrels, case["run"], k=k, alpha=alpha).per_query
                _assert_agrees(got, want, f"{case['name']} k={k} alpha={alpha}")


@pytest.mark.parametrize("seed", range(100, 112))
def test_random_live_pyndeval(seed):
    "pyndeval itself on fresh random subtopic qrels and runs."
    pytest.importorskip("pyndeval", reason="pyndeval (the dev extra) is not installed")
    case = random_case(seed)
    qrels, run = _frames(case)
    for key, want in pyndeval_values(case).items():
        k, alpha, level = (part.split("=")[1] for part in key.split(","))
        got = alpha_ndcg(qrels, run, k=int(k), alpha=float(alpha), relevance_level=int(level)).per_query
        _assert_agrees(got, want, f"seed {seed} {key}")


def _reference(qrels_rows, run_rows, k, alpha, level):
    "alpha-nDCG@k straight from the definition (powers, log2), ndeval's tie rules, for any depth."
    judged = {}
    for query, subtopic, doc, grade in qrels_rows:
        judged.setdefault(query, {}).setdefault(doc, set())
        if grade >= level:
            judged[query][doc].add(subtopic)

    def dcg(ranking, covers):
        seen, total = {}, 0.0
        for rank, doc in enumerate(ranking[:k], 1):
            total += sum((1 - alpha) ** seen.get(s, 0) for s in covers.get(doc, ())) / math.log2(rank + 1)
            for s in covers.get(doc, ()):
                seen[s] = seen.get(s, 0) + 1
        return total

    def ideal(covers):
        seen, left, order = {}, sorted(covers), []
        while left and len(order) < k:
            gain = {d: sum((1 - alpha) ** seen.get(s, 0) for s in covers[d]) for d in left}
            best = max(left, key=lambda d: (round(gain[d], 12), d))   # largest gain, then largest doc id
            order.append(best)
            left.remove(best)
            for s in covers[best]:
                seen[s] = seen.get(s, 0) + 1
        return order

    ranked = {}
    for query, doc, score in run_rows:
        ranked.setdefault(query, []).append((-score, doc))
    values = {}
    for query, pairs in ranked.items():
        if query in judged:
            covers = judged[query]
            run_dcg = dcg([d for _, d in sorted(pairs)], covers)
            values[query] = run_dcg / dcg(ideal(covers), covers) if run_dcg else 0.0
    return values


@pytest.mark.parametrize("k", [1, 7, 20, 25, 60])
@pytest.mark.parametrize("alpha", [0.0, 0.2, 0.5, 1.0])
def test_any_depth_against_definition(k, alpha):
    "Past 20 (where pyndeval stops) and below it, against the definition written out directly."
    for seed in range(3):
        rng = random.Random(seed)
        docs = [f"d{i}" for i in range(80)]
        qrels = [[q, s, d, rng.choice([0, 1, 1, 2])] for q in ("1", "2") for s in ("a", "b", "c")
                 for d in rng.sample(docs, 30)]
        run = [[q, d, float(rng.randint(0, 15))] for q in ("1", "2", "3") for d in rng.sample(docs, 70)]
        got = alpha_ndcg(pd.DataFrame(qrels, columns=["query", "subtopic", "doc", "relevance"]),
                         pd.DataFrame(run, columns=["query", "doc", "score"]), k=k, alpha=alpha).per_query
        _assert_agrees(got, _reference(qrels, run, k, alpha, 1), f"seed {seed} k={k} alpha={alpha}")


def test_trec_files():
    "The hand-made TREC files: values worked by hand, the same as from the parsed rows, and as pyndeval gives."
    result = alpha_ndcg(HERE / "diversity.qrels", HERE / "diversity.run")
    log3 = math.log2(3)
    hand = {"51": (1 + 1 / log3 + 1 / math.log2(5)) / (2 + 0.5 / log3 + 0.25), "52": (1 / log3 + 0.75) / (2 + 0.5 / log3)}
    _assert_agrees(result.per_query, hand, "by hand")
    assert result.mean == pytest.approx((hand["51"] + hand["52"]) / 2, abs=1e-15)
    assert (result.k, result.alpha, result.relevance_level) == (20, 0.5, 1)
    rows = [line.split() for line in (HERE / "diversity.qrels").read_text().splitlines()]
    qrels = [(q, s, d, int(g)) for q, s, d, g in rows]
    run = [(f[0], f[2], float(f[4])) for f in map(str.split, (HERE / "diversity.run").read_text().splitlines())]
    assert read_subtopic_qrels(HERE / "diversity.qrels")["relevance"].tolist() == [g for *_, g in qrels]
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval (the dev extra) is not installed")
    want = {q: r["alpha-nDCG@20"] for q, r in pyndeval.ndeval(qrels, run, ["alpha-nDCG@20"]).items()}
    _assert_agrees(result.per_query, want, "pyndeval on the files")


def test_bad_input(tmp_path):
    "Errors name the file and line (or the argument) and the problem."
    path = tmp_path / "bad.qrels"
    path.write_text("1 1 a 1\n1 1 b\n")
    with pytest.raises(TrecFormatError, match=r"bad.qrels, line 2: expected 4 fields .* found 3: '1 1 b'"):
        alpha_ndcg(path, {"1": {"a": 1.0}})
    path.write_text("1 1 a 1\n1 1 a 1\n")
    with pytest.raises(TrecFormatError, match=r"'a' is judged 2 times for subtopic '1' of query '1' \(lines 1, 2\)"):
        read_subtopic_qrels(path)
    path.write_text("1 1 a yes\n")
    with pytest.raises(TrecFormatError, match="line 1: relevance 'yes' is not a finite number"):
        read_subtopic_qrels(path)
    with pytest.raises(TrecFormatError, match="no column 'subtopic'"):
        as_subtopic_qrels(pd.DataFrame({"query": [1], "doc": ["a"], "relevance": [1]}))
    with pytest.raises(TypeError, match="got builtins.list"):
        as_subtopic_qrels([("1", "1", "a", 1)])
    qrels = {"1": {"s": {"a": 1}}}
    for settings, message in (({"k": 0}, "k must be a positive integer"), ({"k": 2.5}, "k must be"),
                              ({"alpha": -0.1}, "alpha must be a number from 0 to 1"),
                              ({"relevance_level": float("inf")}, "relevance_level must be a finite number")):
        with pytest.raises(UsageError, match=message):
            alpha_ndcg(qrels, {"1": {"a": 1.0}}, **settings)
    with pytest.raises(InputError, match="no query of the run has subtopic qrels"):
        alpha_ndcg(qrels, {"2": {"a": 1.0}})
