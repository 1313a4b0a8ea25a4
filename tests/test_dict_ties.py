"""A dict run with many tied lines: from `MANY_TEXT_TIES` tied lines on, the document ids (Python `str`) are made Arrow
text and sorted by Arrow for trec_eval's tie rule, below by Python's sort. Either way the values must be trec_eval's
(through pytrec_eval) and those of the same run read from TREC files, whose ids are ordered by integer codes from
the join's sort: two paths that share no code with the Arrow text."""
import numpy as np
import pytest

import ndcg_nb.engine.judgments as judgments
from ndcg_nb import evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = ["ndcg", "ndcg_cut.10"]


def tied_case(n_queries: int, seed: int = 0):
    "Qrels and a dict run whose every line ties another: two score values per query; ids of several scripts and lengths."
    rng = np.random.default_rng(seed)
    spellings = ["d{}", "D{}", "é{}", "doc-{}-x", "中{}", "z{}"]
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [spellings[i % len(spellings)].format(int(n)) for i, n in enumerate(rng.permutation(500)[:100])]
        run[f"q{q}"] = dict(zip(docs, (1.0 + rng.integers(0, 2, len(docs))).tolist()))
        judged = docs[:60] + [f"unretrieved{i}" for i in range(5)]
        qrels[f"q{q}"] = dict(zip(judged, rng.integers(0, 4, len(judged)).tolist()))
    return qrels, run


def per_query(evaluation) -> dict:
    table = evaluation.per_query
    return {(q, m): v for q, m, v in zip(table["query"], table["measure"], table["value"])}


def write_trec(qrels: dict, run: dict, folder) -> tuple:
    qrels_path, run_path = folder / "tied.qrels", folder / "tied.run"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()),
                          encoding="utf-8")
    run_path.write_text("".join(f"{q} Q0 {d} {r} {s!r} tag\n" for q, docs in run.items()
                                for r, (d, s) in enumerate(docs.items())), encoding="utf-8")
    return qrels_path, run_path


@pytest.mark.parametrize("n_queries", [1_400, 30])     # 140,000 tied lines (Arrow's sort) and 3,000 (Python's)
def test_many_tied_dict_lines_are_ordered_as_trec_eval_orders_them(n_queries, tmp_path, monkeypatch):
    qrels, run = tied_case(n_queries)
    built, original = [], judgments.text_as_arrow

    def counted(texts):
        built.append(len(texts))
        return original(texts)
    monkeypatch.setattr(judgments, "text_as_arrow", counted)
    ours = per_query(evaluate(qrels, run, MEASURES, preset="trec_eval", progress=False))
    if n_queries * 100 >= judgments.MANY_TEXT_TIES:
        assert len(built) == 1 and built[0] >= judgments.MANY_TEXT_TIES      # Arrow's sort was taken
    else:
        assert built == []                                                  # Python's
    trec = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    assert len(ours) == 2 * n_queries
    for (query, measure), value in ours.items():
        assert value == pytest.approx(trec[query][measure], abs=1e-12)
    from_files = per_query(evaluate(*write_trec(qrels, run, tmp_path), MEASURES, progress=False))
    assert from_files == ours
    ascending = per_query(evaluate(qrels, run, MEASURES, preset="trec_eval", ties="docno_ascending", progress=False))
    ascending_files = per_query(evaluate(*write_trec(qrels, run, tmp_path), MEASURES, ties="docno_ascending",
                                         progress=False))
    assert ascending == ascending_files
    assert ascending != ours                              # the two directions order these ties differently
