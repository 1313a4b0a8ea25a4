"""Writes random_cases.json: random subtopic qrels and runs (fixed seeds) with the alpha-nDCG@k that pyndeval
0.0.8 (seanmacavaney/pyndeval, TREC's ndeval 4.5 inside) gives for them at several depths, alphas and relevance
levels. Run from this directory with pyndeval installed: `python make_expected.py`."""
import json
import random

import pyndeval

DEPTHS = (1, 2, 5, 10, 20)
ALPHAS = (0.0, 0.1, 0.5, 0.9, 1.0)
LEVELS = (1, 2)
DOCS = ["d1", "d2", "d10", "d11", "D3", "doc-4", "doc_5", "a", "b", "z", "0", "00", "9", "10", "dé", "dz", "x1", "x2",
        "x3", "x4", "y1", "y2", "y3", "y4", "w"]


def random_case(seed: int) -> dict:
    "Subtopic qrels ([query, subtopic, doc, grade]) and a run ([query, doc, score]) with ties and unjudged docs."
    rng = random.Random(seed)
    qrels, run = [], []
    for query in rng.sample(["1", "2", "3", "10", "q5", "q6", "7"], 5):
        subtopics = rng.sample(["1", "2", "3", "4", "5", "6"], rng.randint(1, 6))
        for subtopic in subtopics:
            for doc in rng.sample(DOCS, rng.randint(1, 12)):
                qrels.append([query, subtopic, doc, rng.choice([0, 0, 1, 1, 2, 3])])
    rng.shuffle(qrels)
    judged = sorted({q for q, *_ in qrels})
    for query in judged[:-1] + ["99"]:   # one judged query not in the run, one run query not judged
        for doc in rng.sample(DOCS, rng.randint(1, len(DOCS))):
            run.append([query, doc, float(rng.choice([1, 2, 3, 3, 3, 4, 5, 0.5, -1]))])
    return {"seed": seed, "qrels": qrels, "run": run}


def pyndeval_values(case: dict) -> dict:
    "pyndeval's per-query alpha-nDCG@k for every depth, alpha and relevance level, keyed 'k=..,alpha=..,level=..'."
    qrels = [tuple(row) for row in case["qrels"]]
    run = [tuple(row) for row in case["run"]]
    values = {}
    for level in LEVELS:
        for alpha in ALPHAS:
            measures = [f"alpha-nDCG@{k}" for k in DEPTHS]
            result = pyndeval.RelevanceEvaluator(qrels, measures, relevance_level=level, alpha=alpha).evaluate(run)
            for k in DEPTHS:
                values[f"k={k},alpha={alpha},level={level}"] = {q: r[f"alpha-nDCG@{k}"] for q, r in result.items()}
    return values


if __name__ == "__main__":
    cases = [random_case(seed) for seed in range(6)]
    for case in cases:
        case["pyndeval"] = pyndeval_values(case)
    with open("random_cases.json", "w") as f:
        json.dump({"tool": "pyndeval", "version": "0.0.8", "cases": cases}, f, indent=0)
        f.write("\n")
