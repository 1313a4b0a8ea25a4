"""NdcgKerasMetric (ndcg_nb.integrations.keras_metric) on Keras 3's PyTorch backend: inside `model.evaluate` over
padded lists it equals `ndcg` on the model's predictions, padding left out, at several depths and presets."""
import os

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "torch")
pytest.importorskip("torch")
keras = pytest.importorskip("keras")
if keras.backend.backend() != "torch":
    pytest.skip(f"these tests run Keras on PyTorch, not {keras.backend.backend()}", allow_module_level=True)

from ndcg_nb import ndcg
from ndcg_nb.integrations.keras_metric import NdcgKerasMetric


def lists(seed, n=96, width=10, features=4):
    "Lists of `width` documents with graded labels; the rows' last documents are padding (weight 0), 0 to 6 of them."
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, width, features)).astype("float32")
    y = np.clip(np.round(x[..., 0] + rng.normal(scale=0.7, size=(n, width))), 0, 3).astype("float32")
    lengths = rng.integers(width - 6, width + 1, n)
    weight = (np.arange(width)[None] < lengths[:, None]).astype("float32")
    return x, y, weight, lengths


@pytest.mark.parametrize("preset,policies", [(None, {}), ("tf_ranking:mask=true", {"gain": "exponential"}),
                                             ("torchmetrics", {})])
def test_evaluate_equals_ndcg_on_the_predictions(preset, policies):
    x, y, weight, lengths = lists(1)
    model = keras.Sequential([keras.Input((x.shape[1], x.shape[2])), keras.layers.Dense(1),
                              keras.layers.Reshape((x.shape[1],))])
    squared = lambda y_true, y_pred: (y_true - y_pred) ** 2          # one loss per document, as the weights are
    model.compile(loss=squared, weighted_metrics=[NdcgKerasMetric([3, None], name="ndcg", preset=preset, **policies)])
    got = model.evaluate(x, y, sample_weight=weight, batch_size=32, verbose=0, return_dict=True)
    scores = model.predict(x, verbose=0)
    labels = [row[:n] for row, n in zip(y, lengths)]
    ranked = [row[:n] for row, n in zip(scores, lengths)]
    reference = NdcgKerasMetric([3, None], preset=preset, **policies).accumulator      # the same convention
    for name, k in (("ndcg@3", 3), ("ndcg", None)):
        qid = np.repeat(np.arange(len(lengths)), lengths)
        want = reference.score(np.concatenate(ranked), np.concatenate(labels), qid)[f"ndcg_nb{'' if k is None else f'@{k}'}"]
        assert got[name] == pytest.approx(want, abs=1e-9)
    if preset is None:
        assert got["ndcg@3"] == pytest.approx(np.mean(ndcg(labels, 3, scores=ranked)), abs=1e-9)


def test_result_resets_and_needs_lists_of_one_shape():
    metric = NdcgKerasMetric(5)
    assert metric.result() == 0.0
    metric.update_state(np.array([[1.0, 0.0]]), np.array([[0.2, 0.9]]))
    assert metric.result() == pytest.approx(1 / np.log2(3), abs=1e-15)
    metric.reset_state()
    assert metric.result() == 0.0
    with pytest.raises(ValueError, match=r"got \(1, 2\) and \(1, 3\)"):
        metric.update_state(np.zeros((1, 2)), np.zeros((1, 3)))
