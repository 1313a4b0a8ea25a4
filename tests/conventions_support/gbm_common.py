"""Data model shared by the learning-to-rank libraries: one group per RUN query (in run order), rows = the
retrieved documents in run order, label = qrels grade (unjudged 0), score = run score. A judged query absent from
the run cannot be represented (it is simply not a group); a run query without qrels is a group of 0 labels."""
import numpy as np

def groups(case):
    labels, scores, sizes, qids = [], [], [], []
    for q, docs in case["run"].items():
        qids.append(q)
        sizes.append(len(docs))
        for d, s in docs.items():
            labels.append(case["qrels"].get(q, {}).get(d, 0))
            scores.append(s)
    return np.array(labels, dtype=float), np.array(scores, dtype=float), sizes, qids
