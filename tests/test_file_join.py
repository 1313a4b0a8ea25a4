"""Two TREC files joined by one sort (ndcg_nb.engine.file_join) against the general path (read together into frames,
matched through one dictionary of document ids): the same per-query values, bit for bit, on trec_eval's test
collection and on generated files built to stress the sort (ids shared by queries, ids that sort differently as
text and as numbers, non-ASCII ids, tied scores, queries on one side only, files not grouped by query, gzip);
and the same errors and duplicates rules where the general path must read the files. The sort cut in two halves,
one per core (`sorted_halves`), is held to the same values, forced on files of any size."""
import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ndcg_nb.engine.evaluator import Evaluator
from ndcg_nb.engine import file_join
from ndcg_nb.engine.file_join import match_files, query_halves, sorted_halves, sorted_pairs
from ndcg_nb.engine.judgments import Judgments
from ndcg_nb.engine.plan import Plan
from ndcg_nb.engine.runs import as_qrels_and_run
from ndcg_nb.errors import InputError
from ndcg_nb.evaluation import evaluate

TEST = Path(__file__).resolve().parent / "data" / "trec_eval" / "test"
MEASURES = ["ndcg", "ndcg_cut.5", "ndcg_cut.10", "ndcg_cut.100", "Rndcg", "ndcg_rel"]
CONVENTIONS = [{}, {"missing_queries": "zero"}, {"unjudged": "drop"}, {"max_docs": 10}, {"ties": "input"},
               {"ties": "docno_ascending"}, {"preset": "ir_measures"}, {"preset": "sklearn"}, {"preset": "ranx"}]


def by_the_general_path(qrels, run, measures, **options):
    "What `evaluate` gave before the sort: both files read together into frames, matched by one dictionary of ids."
    preset = options.pop("preset", "trec_eval")
    qrels_frame, run_frame = as_qrels_and_run(qrels, run)
    return Evaluator.of(Plan.make(measures, preset, **options), Judgments.of(qrels_frame)).evaluate(run_frame)


def assert_same(qrels, run, **options):
    measures = MEASURES if "preset" not in options else MEASURES[:4]   # Rndcg and ndcg_rel are trec_eval's alone
    assert match_files(qrels, run) is not None, "the sort path should take these files"
    ours, general = evaluate(qrels, run, measures, **options), by_the_general_path(qrels, run, measures, **options)
    pd.testing.assert_frame_equal(ours.per_query, general.per_query, check_exact=True)
    pd.testing.assert_frame_equal(ours.aggregate, general.aggregate, check_exact=True)
    assert ours.notes == general.notes and ours.run_tag == general.run_tag


@pytest.mark.parametrize("qrels, run", [("qrels.test", "results.test"), ("qrels.rel_level", "results.test"),
                                        ("qrels.comment.test", "results.comment.test"), ("qrels.test", "results.trunc"),
                                        ("qrels-302.test", "results.test")])
@pytest.mark.parametrize("options", CONVENTIONS, ids=str)
def test_trec_eval_collection(qrels, run, options):
    assert_same(TEST / qrels, TEST / run, **options)


def generated(tmp_path, seed: int, shuffle: bool = False, compress: bool = False) -> tuple[Path, Path]:
    """Qrels and a run whose ids trip a careless sort: numeric-looking query ids (`10` before `9` as text), documents
    shared by queries, non-ASCII and mixed-case ids, scores tied within a query, judged queries missing from the run
    and run queries nobody judged, lines in file order or shuffled."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(40)] + ["Zeta", "zeta", "é", "ß-1", "d-07", "D07"]
    qrels_lines, run_lines = [], []
    for query in [str(q) for q in range(1, 13)] + ["q-é"]:
        judged = rng.choice(len(docs), size=int(rng.integers(1, 20)), replace=False)
        if query != "12":                                    # 12: judged only
            qrels_lines += [f"{query} 0 {docs[d]} {int(rng.integers(-1, 4))}" for d in judged]
        if query != "11":                                    # 11: judged, not in the run
            ranked = rng.choice(len(docs), size=int(rng.integers(1, 30)), replace=False)
            scores = np.round(rng.normal(size=len(ranked)), 1)  # ties at one decimal
            run_lines += [f"{query} Q0 {docs[d]} {r} {s} tag{seed}" for r, (d, s) in enumerate(zip(ranked, scores))]
    if shuffle:
        qrels_lines, run_lines = list(rng.permutation(qrels_lines)), list(rng.permutation(run_lines))
    paths = []
    for name, lines in (("q", qrels_lines), ("r", run_lines)):
        text = ("\n".join(lines) + "\n").encode()
        path = tmp_path / f"{name}{seed}{'.gz' if compress else ''}"
        path.write_bytes(gzip.compress(text) if compress else text)
        paths.append(path)
    return tuple(paths)


@pytest.mark.parametrize("seed, shuffle, compress", [(s, s % 2 == 1, s % 3 == 0) for s in range(12)])
def test_generated_files(tmp_path, seed, shuffle, compress):
    qrels, run = generated(tmp_path, seed, shuffle, compress)
    for options in CONVENTIONS:
        assert_same(qrels, run, **options)


def write(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    return tmp_path / name


def test_duplicates_are_the_general_paths(tmp_path):
    "A document judged twice: the qrels' duplicates rule, or the general path's error naming the lines."
    qrels = write(tmp_path, "q", "1 0 a 1\n1 0 b 2\n1 0 a 3\n")
    run = write(tmp_path, "r", "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    assert match_files(qrels, run) is None
    with pytest.raises(InputError, match=r"document 'a' appears 2 times for query '1' \(lines 1, 3\)"):
        evaluate(qrels, run)
    for rule in ("first", "last", "max"):
        assert evaluate(qrels, run, qrels_duplicates=rule).per_query.equals(
            Evaluator(qrels, qrels_duplicates=rule).evaluate(run).per_query)
    run_twice = write(tmp_path, "r2", "1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    with pytest.raises(InputError, match=r"document 'a' appears 2 times for query '1' \(lines 1, 2\)"):
        evaluate(write(tmp_path, "q2", "1 0 a 1\n"), run_twice)


def test_values_the_general_path_names(tmp_path):
    qrels = write(tmp_path, "q", "1 0 a 1\n")
    with pytest.raises(InputError, match="line 2: score 'nan' is not a finite number"):
        evaluate(qrels, write(tmp_path, "r", "1 Q0 a 1 2.0 t\n1 Q0 b 2 nan t\n"))


def test_no_common_query(tmp_path):
    qrels, run = write(tmp_path, "q", "1 0 a 1\n"), write(tmp_path, "r", "2 Q0 a 1 2.0 t\n")
    with pytest.raises(InputError, match="no query of the run is in the qrels"):
        evaluate(qrels, run)
    qrels_frame, run_frame = as_qrels_and_run(qrels, run)
    general = Evaluator.of(Plan.make(["ndcg"]), Judgments.of(qrels_frame)).evaluate(run_frame, no_common_query="score")
    assert evaluate(qrels, run, no_common_query="score").per_query.equals(general.per_query)


@pytest.fixture
def cut_in_halves(monkeypatch):
    "The join's sort cut in two whatever the files' size and the machine's cores; the cuts made, listed."
    cuts = []
    monkeypatch.setattr(file_join, "SPLIT_SORT_FROM", 0)
    monkeypatch.setattr(file_join, "cores_available", lambda: 2)
    monkeypatch.setattr(file_join, "sorted_halves", lambda *args: cuts.append(args[-1]) or sorted_halves(*args))
    return cuts


@pytest.mark.parametrize("qrels, run, cut", [("qrels.test", "results.test", True),
                                             ("qrels.rel_level", "results.test", True),
                                             ("qrels.comment.test", "results.comment.test", False),
                                             ("qrels.test", "results.trunc", False)])
@pytest.mark.parametrize("options", CONVENTIONS, ids=str)
def test_halves_on_trec_eval_collection(cut_in_halves, qrels, run, cut, options):
    "Cut where both files list the queries in one order, each query's lines together; the same values either way."
    assert_same(TEST / qrels, TEST / run, **options)
    assert bool(cut_in_halves) == cut   # the comment files list their queries in different orders; trunc mixes them


@pytest.mark.parametrize("seed, shuffle", [(s, s % 2 == 1) for s in range(8)])
def test_halves_on_generated_files(tmp_path, cut_in_halves, seed, shuffle):
    qrels, run = generated(tmp_path, seed, shuffle)
    for options in CONVENTIONS:
        assert_same(qrels, run, **options)
    assert bool(cut_in_halves) != shuffle, "cut where each file lists a query's lines together, not where shuffled"


def grouped_codes(rng, n_queries: int, same_order: bool) -> tuple[np.ndarray, int, list, list]:
    """Query codes of a qrels file and a run that list each query's lines together, the run's queries (some of the
    judged ones) in the qrels' order or in one of their own; and their documents' ids."""
    qrels_queries = rng.permutation(n_queries)
    run_queries = qrels_queries[np.sort(rng.choice(n_queries, size=max(1, n_queries - 2), replace=False))]
    run_queries = run_queries if same_order else rng.permutation(run_queries)
    qrels = np.repeat(qrels_queries, rng.integers(1, 6, n_queries))
    run = np.repeat(run_queries, rng.integers(1, 6, len(run_queries)))
    qrels_docs = [f"d{int(d)}" for d in rng.integers(0, 8, len(qrels))]
    run_docs = [f"d{int(d)}" for d in rng.integers(0, 8, len(run))]
    return np.concatenate([qrels, run]), len(qrels), qrels_docs, run_docs


@pytest.mark.parametrize("seed", range(40))
def test_halves_order_each_query_as_the_single_sort(seed):
    "Halves and the single sort: each query's lines in the same order, the same pairs; where a cut exists."
    rng = np.random.default_rng(seed)
    codes, n_qrels, qrels_docs, run_docs = grouped_codes(rng, int(rng.integers(2, 9)), same_order=seed % 4 != 0)
    qrels_doc, run_doc = pa.chunked_array([pa.array(qrels_docs)]), pa.chunked_array([pa.array(run_docs)])
    cut = query_halves(codes, n_qrels)
    whole, whole_same = sorted_pairs(codes, qrels_doc, run_doc)
    if cut is None:
        assert seed % 4 == 0, "files that list their queries in one order can be cut"
        return
    first = np.isin(codes, np.concatenate([codes[:cut[0]], codes[n_qrels:n_qrels + cut[1]]]))
    assert not (first[:n_qrels][cut[0]:].any() or first[n_qrels:][cut[1]:].any()), "a query on both sides"
    order, same = sorted_halves(codes, qrels_doc, run_doc, cut)
    assert sorted(order.tolist()) == list(range(len(codes)))
    by_query = np.argsort(codes[order], kind="stable")        # the single sort's queries come in code order
    assert order[by_query].tolist() == whole.tolist()
    pairs = lambda order, same: {(int(a), int(b)) for a, b in zip(order[:-1][same], order[1:][same])}
    assert pairs(order, same) == pairs(whole, whole_same)
