"""Generate tests/data/conventions/cases_more.json: cases for rules the 37 census cases do not reach (documents whose
id is their query's id, queries whose every document a tool ignores, users without test rows, a grade between 0 and
1 under a binarization at 1, a judged query without predictions). Only the tools these rules concern are run on them
(results_<tool>_more.json, and the census files of tools added with them), so adding a case here asks no other tool
to run again. Same layout as cases.json; query ids are digit strings."""
import json
import pathlib

cases = []


def add(name, description, qrels, run, k=None):
    cases.append({"name": name, "description": description, "qrels": qrels, "run": run, "k": k})


IDENTICAL_QRELS = {"1": {"d1": 1, "d2": 2}, "2": {"d3": 1, "2": 1}, "3": {"d4": 1}}
IDENTICAL_RUN = {"1": {"1": 5.0, "2": 4.5, "d1": 4.0, "d2": 3.0, "d5": 2.0},   # retrieves itself first, and query 2's id
                 "2": {"d3": 2.0, "2": 1.0, "d6": 0.5},                       # itself judged relevant, second
                 "3": {"3": 9.0}}                                             # nothing but itself
add("identical_ids", "documents named as their query (BEIR's ignore_identical_ids), k=3", IDENTICAL_QRELS, IDENTICAL_RUN, 3)
add("identical_ids_full", "the same, full depth", IDENTICAL_QRELS, IDENTICAL_RUN)

IGNORED_QRELS = {"1": {"a": 2, "b": 0, "c": 1}, "2": {"x": 1}, "4": {"e": 0}}
IGNORED_RUN = {"1": {"a": 0.9, "u1": 0.8, "c": 0.7, "b": 0.1},
               "2": {"u2": 0.5, "u3": 0.4},          # judged query, no judged document retrieved: every row ignored
               "3": {"u4": 1.0, "u5": 0.5},          # no judgment at all: every row ignored
               "4": {"e": 0.3, "u6": 0.2}}           # one judged document, grade 0: an empty target
add("all_ignored_queries", "queries whose every document is unjudged (torchmetrics' ignore_index), full depth",
    IGNORED_QRELS, IGNORED_RUN)
add("all_ignored_queries_cut", "the same, k=2", IGNORED_QRELS, IGNORED_RUN, 2)

add("user_without_test_rows", "a user of the run with no row in the test data (RecBole), full depth",
    {"1": {"i1": 1, "i2": 1}}, {"1": {"i1": 0.9, "i3": 0.8, "i2": 0.7}, "2": {"i1": 0.5, "i2": 0.4}})
add("half_grade", "a grade of 0.5, relevant at a binarization above 0, not at one at 1 (Spark's labels), k=3",
    {"1": {"a": 0.5, "b": 1, "c": 2, "d": 0}}, {"1": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6}}, 3)
add("judged_query_without_predictions", "a judged query absent from the run and a run query without judgments, "
    "full depth", {"1": {"a": 1, "b": 2}, "2": {"c": 1}}, {"1": {"b": 0.9, "a": 0.5, "z": 0.1}, "3": {"y": 1.0}})

if __name__ == "__main__":
    path = pathlib.Path(__file__).resolve().parent.parent / "data" / "conventions" / "cases_more.json"
    path.write_text(json.dumps(cases, indent=1) + "\n")
    print("wrote", path, len(cases), "cases")
