"""The plugin's own tests: ndcg_nb's conformance kit, and values worked by hand."""
import numpy as np
import pytest

from ndcg_nb import ndcg
from ndcg_nb.core import as_batch, score_batch
from ndcg_nb.testing import check_plugin


def test_keeps_the_hook_contracts():
    assert check_plugin("condensed") == []


def test_condensed_list_by_hand():
    # grades [3, 0, 0, 1, 2], the 2nd and 4th unjudged: condensed [3, 0, 2], cut at 2: [3, 0]
    s = score_batch(as_batch([3, 0, 0, 1, 2]), 2, truncation="condensed",
                    context={"judged": np.array([True, False, True, False, True])})
    assert list(s.grades) == [3, 0] and list(s.source) == [0, 2]


def test_page_of_relevant_by_hand():
    # one relevant document retrieved first, k=3: DCG 1; the judged ideal is 1 too, a page of three is 1 + w2 + w3
    w2, w3 = 1 / 1.5849625007211563, 0.5
    assert ndcg([1, 0, 0], 3, normalization="page_of_relevant") == pytest.approx(1 / (1 + w2 + w3), abs=1e-15)
    assert ndcg([2, 2, 2], 3, normalization="page_of_relevant") == 1.0
