"""Keras-RS 0.4.0 `keras_rs.metrics.NDCG(k)` (`keras_rs/src/metrics/ndcg.py`, `ranking_metric.py`,
`ranking_metrics_utils.py`) on Keras 3 with the JAX backend (float32, Keras' floatx), run in its own venv:
`/tmp/venvs/keras_rs/bin/python -m tests.conventions_support.run_keras_rs` from the project root. Each list alone
gives its per-query value; the mean is one `update_state` of the case's lists padded to one length (the padding masked
with `y_true={"labels", "mask"}`), with the case's query weights as list-wise `sample_weight` in the `_weighted`
variants. Tied scores are shuffled at random by Keras-RS (`sort_by_scores`), whatever `shuffle_ties` says."""
import os
os.environ.setdefault("KERAS_BACKEND", "jax")
import numpy as np
import keras_rs
from .training_common import rows, main


def _batch(lists):
    width = max(len(grades) for _, grades, _, _ in lists)
    labels, scores, mask = (np.zeros((len(lists), width)) for _ in range(3))
    for i, (_, grades, s, _) in enumerate(lists):
        labels[i, :len(grades)], scores[i, :len(s)], mask[i, :len(s)] = grades, s, 1
    weights = np.array([w for *_, w in lists])
    return {"labels": labels, "mask": mask.astype(bool)}, scores, weights


def variant(weighted=False, **options):
    def fn(case):
        lists = list(rows(case))
        pq = {}
        for one in lists:
            metric = keras_rs.metrics.NDCG(k=case["k"], **options)
            metric.update_state(*_batch([one])[:2])
            pq[one[0]] = float(metric.result())
        metric = keras_rs.metrics.NDCG(k=case["k"], **options)
        y_true, y_pred, weights = _batch(lists)
        metric.update_state(y_true, y_pred, sample_weight=weights if weighted else None)
        return pq, float(metric.result())
    return fn


variants = {"NDCG": variant(), "NDCG_no_shuffle_seed0": variant(shuffle_ties=False, seed=0),
            "NDCG_weighted": variant(weighted=True)}
if __name__ == "__main__":
    import keras, jax
    main("keras_rs", {"version": keras_rs.__version__, "keras": keras.__version__, "backend": keras.backend.backend(),
                      "jax": jax.__version__}, variants)
