"""NdcgAccumulator (ndcg_nb.integrations.metric_object): fed batch by batch with queries split across batches, it
equals `ndcg(labels, k, scores=..., qid=...)` on the whole data; halves merged equal one fed all; it pickles; under
`whole_queries` it equals scoring each batch's queries apart; bad input is named."""
import pickle

import numpy as np
import pytest

from ndcg_nb import NdcgAccumulator, ndcg
from ndcg_nb.errors import InputError, UsageError

CASES = [(10, {}), (None, {}), (3, {"gain": "exponential"}), (5, {"ties": "input"}), (5, {"ties": "worst"}),
         (1, {"discount": "log2", "truncation": "cut"})]


def split_queries(seed, n=20_000, queries=1_500):
    "Documents in random query order (every query spread over many batches), graded 0-4, with tied scores."
    rng = np.random.default_rng(seed)
    qid = rng.integers(0, queries, n)
    labels = np.clip(np.round(rng.normal(1, 1.2, n)), 0, 4)
    scores = rng.random(n).round(2)
    return qid, labels, scores


def fed(acc, qid, labels, scores, batches=50, select=lambda i: True):
    for i, batch in enumerate(np.array_split(np.arange(len(qid)), batches)):
        if select(i):
            acc.update(scores[batch], labels[batch], qid[batch])
    return acc


@pytest.mark.parametrize("k,policies", CASES)
def test_fifty_batches_equal_ndcg_on_the_whole_data(k, policies):
    qid, labels, scores = split_queries(1)
    batch_of = np.repeat(np.arange(50), np.diff(np.linspace(0, len(qid), 51).astype(int)))
    spread = [len(np.unique(batch_of[qid == q])) for q in range(20)]
    assert min(spread) > 1                                    # queries really are split across batches
    want = ndcg(labels, k, scores=scores, qid=qid, **policies).mean()
    assert fed(NdcgAccumulator(k, **policies), qid, labels, scores).compute() == pytest.approx(want, abs=1e-12)


def test_several_depths_and_string_ids():
    qid, labels, scores = split_queries(2, n=5_000, queries=300)
    names = np.array([f"q{q}" for q in qid])
    got = fed(NdcgAccumulator([3, 10], name="ndcg"), names, labels, scores).compute()
    for k in (3, 10):
        assert got[f"ndcg@{k}"] == pytest.approx(ndcg(labels, k, scores=scores, qid=qid).mean(), abs=1e-12)


def test_two_halves_merged_equal_one_fed_all():
    qid, labels, scores = split_queries(3)
    for policies in ({}, {"ties": "input"}):
        whole = fed(NdcgAccumulator([5, None], **policies), qid, labels, scores).compute()
        first = fed(NdcgAccumulator([5, None], **policies), qid, labels, scores, select=lambda i: i < 25)
        second = fed(NdcgAccumulator([5, None], **policies), qid, labels, scores, select=lambda i: i >= 25)
        assert first.merge(second).compute() == whole


def test_merge_refuses_another_depth_or_convention():
    acc = NdcgAccumulator(10, preset="torchmetrics")
    with pytest.raises(UsageError, match=r"depths \(5,\) into NDCG at depths \(10,\)"):
        acc.merge(NdcgAccumulator(5, preset="torchmetrics"))
    with pytest.raises(UsageError, match="another convention: it differs in .*zero_grade_sum"):
        acc.merge(NdcgAccumulator(10, preset="torchmetrics:empty_target_action=skip"))
    with pytest.raises(UsageError, match="differs in ties"):
        NdcgAccumulator(10).merge(NdcgAccumulator(10, ties="input"))
    with pytest.raises(UsageError, match="cannot merge a dict"):
        acc.merge({})


def test_pickles_with_its_documents_and_convention():
    qid, labels, scores = split_queries(4, n=3_000, queries=200)
    acc = fed(NdcgAccumulator(5, preset="lightgbm"), qid, labels, scores)
    copy = pickle.loads(pickle.dumps(acc))
    assert copy.compute() == acc.compute()
    assert (copy.documents, copy.convention, len(copy.ids)) == (acc.documents, acc.convention, 1)
    copy.update(scores[:10], labels[:10], qid[:10])           # still usable
    assert copy.documents == acc.documents + 10


def test_keeps_compact_columns_and_resets():
    qid, labels, scores = split_queries(5, n=1_000)
    acc = fed(NdcgAccumulator(10), qid, labels, scores, batches=4)
    assert {c.dtype for c in acc.labels} == {np.dtype(np.uint8)}        # whole grades 0-4: one byte each
    assert {c.dtype for c in acc.scores} == {np.dtype(float)}
    assert acc.reset().documents == 0
    with pytest.raises(UsageError, match="no documents to score"):
        acc.compute()


def test_whole_queries_keep_per_query_values_only():
    qid, labels, scores = split_queries(6, n=6_000, queries=400)
    lists, apart = NdcgAccumulator([5, None], whole_queries=True), NdcgAccumulator([5, None])
    for i, batch in enumerate(np.array_split(np.arange(len(qid)), 12)):
        lists.update(scores[batch], labels[batch], qid[batch])           # ids reused from batch to batch
        apart.update(scores[batch], labels[batch], qid[batch] + 10_000 * i)
    assert lists.documents == 0                                          # no document kept, only per-query values
    assert sum(len(names) for names, _ in lists.queries) == len(np.unique(np.concatenate(apart.ids)))
    for name, value in apart.compute().items():
        assert lists.compute()[name] == pytest.approx(value, abs=1e-12)


def test_query_rules_and_aggregation_of_the_preset():
    # one query with grades summing to 0: torchmetrics scores it 0 ('neg'), 1 ('pos'), or leaves it out ('skip')
    preds, target, ids = np.array([0.2, 0.9, 0.4, 0.3]), np.array([1, 0, 0, 0]), np.array([0, 0, 1, 1])
    first = 1 / np.log2(3)
    for action, want in (("neg", first / 2), ("pos", (first + 1) / 2), ("skip", first)):
        acc = NdcgAccumulator(3, preset=f"torchmetrics:empty_target_action={action}").update(preds, target, ids)
        assert acc.compute() == pytest.approx(want, abs=1e-7)
    with pytest.raises(InputError, match="grades sum to 0"):
        NdcgAccumulator(3, preset="torchmetrics:empty_target_action=error").update(preds, target, ids).compute()
    assert NdcgAccumulator(3, preset="torchmetrics:aggregation=max").update(preds, target, ids).compute() == pytest.approx(first, abs=1e-7)


def test_bad_input_is_named():
    with pytest.raises(InputError, match=r"one shape, got \(3,\), \(3,\), \(2,\)"):
        NdcgAccumulator(10).update([1, 2, 3], [0, 1, 0], [1, 1])
    with pytest.raises(InputError, match=r"preds has inf at document 2 \(query 8\)"):
        NdcgAccumulator(10).update([1, 2, np.inf], [0, 1, 0], [7, 7, 8]).compute()
    with pytest.raises(InputError, match="indexes must be query ids"):
        NdcgAccumulator(10).update([1, 2], [0, 1], [0.5, 0.5]).compute()
    with pytest.raises(UsageError, match="depth k must be a positive integer"):
        NdcgAccumulator(0)


def test_depths_keep_their_names_on_very_uneven_queries():
    # one long query beside many short ones: the groups are scored by the engine, not from one score matrix
    rng = np.random.default_rng(7)
    sizes = np.r_[rng.integers(1, 3, 300), 2_000]
    qid = np.repeat(np.arange(len(sizes)), sizes)
    labels, scores = rng.integers(0, 3, len(qid)), rng.random(len(qid))
    got = NdcgAccumulator([5, None], name="ndcg").update(scores, labels, qid).compute()
    assert got["ndcg@5"] == pytest.approx(ndcg(labels, 5, scores=scores, qid=qid).mean(), abs=1e-12)
    assert got["ndcg"] == pytest.approx(ndcg(labels, None, scores=scores, qid=qid).mean(), abs=1e-12)
