"""google-metrax 0.2.4 `metrax.NDCGAtK.from_model_output(predictions, labels, ks)` (`metrax/ranking_metrics.py`),
with jax 0.10 on CPU (float32: jax's default), run in its own venv: `/tmp/venvs/metrax/bin/python -m
tests.conventions_support.run_metrax` from the project root. Each list is a batch of one row; its per-query value is
the metric of that row, the mean the rows' metrics merged (`Metric.merge`: their sum over their count)."""
import jax.numpy as jnp
import metrax
from .training_common import rows, depth, main


def ndcg_at_k(case):
    pq, merged = {}, None
    k = max(depth(case, grades) for _, grades, _, _ in rows(case))   # rank <= k: one k serves every list
    for q, grades, scores, _ in rows(case):
        metric = metrax.NDCGAtK.from_model_output(predictions=jnp.array([scores]), labels=jnp.array([grades]),
                                                  ks=jnp.array([k]))
        pq[q] = float(metric.compute()[0])
        merged = metric if merged is None else merged.merge(metric)
    return pq, float(merged.compute()[0])


variants = {"NDCGAtK": ndcg_at_k}
if __name__ == "__main__":
    import importlib.metadata, jax
    main("metrax", {"version": importlib.metadata.version("google-metrax"), "jax": jax.__version__}, variants)
