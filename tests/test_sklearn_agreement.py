"""ndcg_nb against scikit-learn's ndcg_score: linear gain, log2 discount, no ties."""
import numpy as np
import pytest
from sklearn.metrics import ndcg_score

from ndcg_nb import ndcg, ndcg_dataset


def _ranked_case(rng, n_lists, length, max_grade, real=False):
    grades = rng.uniform(0, max_grade, (n_lists, length)) if real else rng.integers(0, max_grade + 1, (n_lists, length))
    scores = np.broadcast_to(np.arange(length, 0, -1, dtype=float), (n_lists, length))  # strictly decreasing: no ties
    return grades.astype(float), np.array(scores)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_per_list_agrees_with_sklearn(seed, k):
    rng = np.random.default_rng(seed)
    grades, scores = _ranked_case(rng, n_lists=25, length=int(rng.integers(2, 40)), max_grade=4, real=seed % 2 == 1)
    ours = ndcg(grades, k)
    theirs = np.array([ndcg_score(grades[i:i + 1], scores[i:i + 1], k=k) for i in range(len(grades))])
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ndcg_dataset(grades, k).value, ndcg_score(grades, scores, k=k), rtol=0, atol=1e-12)


def test_shuffled_scores_agree_with_sklearn():
    """sklearn orders by score; we receive grades already in that order."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(2, 30))
        true = rng.integers(0, 5, n).astype(float)
        score = rng.permutation(n).astype(float)
        ranked = true[np.argsort(-score, kind="stable")]
        assert abs(ndcg(ranked) - ndcg_score(true[None], score[None])) <= 1e-12


def test_all_zero_lists_score_zero_like_sklearn():
    grades = np.array([[0.0, 0, 0], [1, 0, 2]])
    scores = np.array([[3.0, 2, 1], [3, 2, 1]])
    np.testing.assert_allclose(ndcg(grades), [ndcg_score(grades[:1], scores[:1]), ndcg_score(grades[1:], scores[1:])],
                               atol=1e-12)
