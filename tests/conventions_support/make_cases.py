"""Generate tests/data/conventions/cases.json: the shared cases for issue 19.

Each case: {"name", "description", "qrels": {qid: {doc: grade}}, "run": {qid: {doc: score}}, "k": int|None}.
Query ids are digit strings (gdeval refuses non-numeric topics). Dict insertion order is the
"file order" of the run (the order in which a tool reading a run file would see the lines).
"""
import json
import pathlib
import random

cases = []


def add(name, description, qrels, run, k=None):
    cases.append({"name": name, "description": description, "qrels": qrels, "run": run, "k": k})


def ranked(grades, prefix="d", scores=None):
    """qrels and run for one query: doc i has grade grades[i] and score scores[i] (default: descending)."""
    docs = [f"{prefix}{i:02d}" for i in range(len(grades))]
    if scores is None:
        scores = [float(len(grades) - i) for i in range(len(grades))]
    return dict(zip(docs, grades)), dict(zip(docs, scores))


q, r = ranked([3, 2, 3, 0, 1, 2])
add("basic", "graded 0-3, distinct scores, full depth", {"1": q}, {"1": r})
q, r = ranked([0, 2, 3, 0, 1, 2, 0, 3])
add("basic_cut", "graded, distinct scores, k=5 (ideal longer than k)", {"1": q}, {"1": r}, 5)
q, r = ranked([1, 0, 3, 0, 2], scores=[5, 4, 3, 3, 1])
add("tie2_at_cut", "two documents tied across the cut-off k=3 (grades 3 and 0)", {"1": q}, {"1": r}, 3)
q, r = ranked([3, 0, 0, 1], scores=[1, 1, 1, 0.5])
add("tie3_issue_example", "the issue's sklearn example: y_true [3,0,0,1], y_score [1,1,1,0.5]", {"1": q}, {"1": r})
q, r = ranked([3, 0, 0, 1, 2], scores=[1, 1, 1, 1, 0.5])
add("tie4_then_one", "4 tied docs then one lower (np.argsort is not stable here)", {"1": q}, {"1": r})
q, r = ranked([0, 2, 1, 0, 3], scores=[1, 1, 1, 1, 0.5])
add("tie4_argsort_unstable", "4 tied docs whose order under np.argsort (AVX-512 build: [4,0,2,1,3]) differs from the stable one", {"1": q}, {"1": r})
q, r = ranked([2, 0, 2, 1, 0, 3, 1], scores=[9, 5, 5, 5, 5, 5, 1])
add("tie5_mid_cut", "5 tied documents at ranks 2-6, cut k=4 inside the tie", {"1": q}, {"1": r}, 4)
rng = random.Random(19)
g10 = [rng.choice([0, 0, 1, 2, 3]) for _ in range(10)]
q, r = ranked(g10, scores=[2.0] * 10)
add("tie10_all", "10 documents all tied, graded", {"1": q}, {"1": r})
g20 = [rng.choice([0, 0, 0, 1, 2, 3]) for _ in range(24)]
q, r = ranked(g20, scores=[3.0, 3.0] + [2.0] * 20 + [1.0, 0.5])
add("tie20_cut", "20 tied documents at ranks 3-22, k=10 (cut inside the tie)", {"1": q}, {"1": r}, 10)
g40 = [rng.choice([0, 0, 0, 1, 1, 2, 4]) for _ in range(40)]
q, r = ranked(g40, scores=[1.0] * 40)
add("tie40_all", "40 documents all tied, graded 0-4, full depth", {"1": q}, {"1": r})
q, r = ranked(g40, scores=[1.0] * 40)
add("tie40_cut", "40 documents all tied, k=20", {"1": q}, {"1": r}, 20)
q, r = ranked([1, 0, 1, 0, 0, 1], scores=[0.3] * 6)
add("tie6_binary", "6 tied documents, binary grades", {"1": q}, {"1": r})
q, r = ranked([-1, 1], scores=[2, 1])
add("negative_issue_example", "the issue's example: grades [-1, 1] ranked by scores [2, 1]", {"1": q}, {"1": r})
q, r = ranked([2, -2, 1, 0, -1, 3])
add("negative_mixed", "negative grades among positive ones, full depth", {"1": q}, {"1": r})
q, r = ranked([-1, 1, -2, 2, 0], scores=[5, 4, 3, 2, 1])
add("negative_cut", "negative grades, k=3", {"1": q}, {"1": r}, 3)
q, r = ranked([-1, -2, 0])
add("all_negative", "no positive grade: negatives and a zero (IDCG <= 0)", {"1": q}, {"1": r})
q, r = ranked([1.7, 0.5, 2.3, 0, 1.2])
add("float_grades", "float grades (1.7 is 1 for truncating tools)", {"1": q}, {"1": r})
q, r = ranked([0.5, 1.5, 2.5, 0.4], scores=[1, 1, 0.5, 0.5])
add("float_grades_ties", "float grades (x.5: round vs truncate) with ties", {"1": q}, {"1": r})
q, r = ranked([10, 7, 4, 0, 12, 1])
add("high_grades", "grades up to 12 (gdeval allows <= 4)", {"1": q}, {"1": r})
q, r = ranked([35, 1, 31, 0])
add("very_high_grades", "grades 31 and 35 (2**g overflows 32-bit ints; XGBoost caps at 31)", {"1": q}, {"1": r})
q, r = ranked([2, 0, 1])
add("k_larger_than_list", "3 retrieved documents, k=10", {"1": q}, {"1": r}, 10)
add("k_larger_ideal_longer", "3 retrieved, 6 judged relevant, k=10: ideal from qrels is longer than the list",
    {"1": {"d00": 2, "d01": 0, "d02": 1, "x1": 3, "x2": 1, "x3": 2}}, {"1": {"d00": 3.0, "d01": 2.0, "d02": 1.0}}, 10)
q, r = ranked([0, 0, 0, 0])
add("idcg_zero", "every judged document has grade 0 (IDCG 0)", {"1": q}, {"1": r})
add("idcg_zero_unjudged_only", "judged query whose retrieved documents are all unjudged and whose qrels hold only 0s",
    {"1": {"z1": 0, "z2": 0}}, {"1": {"u1": 3.0, "u2": 2.0, "u3": 1.0}})
add("unjudged_interleaved", "unjudged documents interleaved with judged ones",
    {"1": {"a": 2, "b": 0, "c": 1, "d": 3}}, {"1": {"a": 6.0, "u1": 5.0, "b": 4.0, "u2": 3.0, "c": 2.0, "d": 1.0}})
add("relevant_not_retrieved", "relevant documents in the qrels that the run did not retrieve, k=5",
    {"1": {"a": 1, "b": 3, "c": 2, "m1": 3, "m2": 2}}, {"1": {"a": 3.0, "b": 2.0, "c": 1.0, "u": 0.5}}, 5)
add("judged_query_missing_from_run", "query 2 is judged but absent from the run",
    {"1": {"a": 1, "b": 2}, "2": {"c": 1, "d": 0}}, {"1": {"a": 2.0, "b": 1.0}})
add("run_query_missing_from_qrels", "query 3 is in the run but has no judgments",
    {"1": {"a": 1, "b": 2}}, {"1": {"a": 2.0, "b": 1.0}, "3": {"e": 1.0, "f": 0.5}})
add("both_missing_queries", "query 2 judged-only, query 3 run-only, query 1 in both; k=2",
    {"1": {"a": 1, "b": 2, "c": 0}, "2": {"c": 1}}, {"1": {"a": 2.0, "b": 1.0, "c": 0.5}, "3": {"e": 1.0}}, 2)
add("docid_byte_order", "tied documents whose ids sort differently by bytes than in file order (uppercase, lowercase, digits, underscore, non-ASCII)",
    {"1": {"b": 0, "B": 2, "_x": 1, "Z9": 0, "é": 3, "a": 1}},
    {"1": {"b": 1.0, "B": 1.0, "_x": 1.0, "Z9": 1.0, "é": 1.0, "a": 1.0}})
add("docid_numeric_strings", "tied numeric-looking ids '10','9','100','09' (string order differs from number order)",
    {"1": {"10": 2, "9": 0, "100": 1, "09": 3}}, {"1": {"10": 0.5, "9": 0.5, "100": 0.5, "09": 0.5}})
add("docid_ties_at_cut", "ties broken by doc id decide what enters k=2",
    {"1": {"doc-B": 3, "doc-a": 0, "doc-A": 1}}, {"1": {"doc-a": 1.0, "doc-B": 1.0, "doc-A": 1.0}}, 2)
add("float32_ties", "scores equal in float32 but not in float64 (1+1e-9 vs 1)",
    {"1": {"a": 0, "b": 2, "c": 1}}, {"1": {"a": 1.000000001, "b": 1.0, "c": 0.5}})
add("negative_scores", "negative and zero scores, distinct",
    {"1": {"a": 1, "b": 0, "c": 2}}, {"1": {"a": -0.5, "b": 0.0, "c": -2.0}})
add("single_doc", "one retrieved document, grade 1", {"1": {"a": 1, "b": 2}}, {"1": {"a": 1.0}})
add("multi_query", "three queries with different sizes, k=3",
    {"1": {"a": 3, "b": 0, "c": 1}, "2": {"d": 1, "e": 1, "f": 0, "g": 2}, "3": {"h": 0, "i": 1}},
    {"1": {"a": 0.9, "b": 0.8, "c": 0.7}, "2": {"f": 3.0, "d": 2.0, "e": 2.0, "g": 1.0}, "3": {"i": 5.0, "h": 4.0}}, 3)
add("zero_vs_unjudged", "a document judged 0 next to unjudged ones (matters with judged_only / drop)",
    {"1": {"a": 0, "b": 1, "c": 2}}, {"1": {"a": 4.0, "u": 3.0, "b": 2.0, "c": 1.0}})

if __name__ == "__main__":
    with open(pathlib.Path(__file__).resolve().parent.parent / "data" / "conventions" / "cases.json", "w") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
    print(len(cases), "cases")
