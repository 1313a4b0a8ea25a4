"""Condensed lists and full pages for ndcg_nb: a plugin that asks the engine for context.

- truncation ``condensed``: the ranked list without its unjudged documents (Sakai, SIGIR 2007),
  then cut at k. It declares the context argument ``judged`` and returns ``source``, since it
  drops documents from inside a list.
- normalization ``page_of_relevant``: the larger of the usual ideal DCG and the DCG of k
  documents of grade 1, so that a query with fewer than k relevant judged documents still
  expects a full page of relevant results.
- measures ``ndcg_condensed`` (``truncation=condensed``) and ``ndcg_page``
  (``normalization=page_of_relevant``).
"""
import numpy as np

from ndcg_nb import hookimpl

__version__ = "0.1.0"


def condensed(grades, lengths, k, *, judged):
    "Drop the unjudged documents of each list (all are kept where judgments are unknown), then cut at `k`."
    keep = np.ones(len(grades), dtype=bool) if judged is None else np.asarray(judged, dtype=bool)
    list_of = np.repeat(np.arange(len(lengths)), lengths)
    kept_lengths = np.bincount(list_of[keep], minlength=len(lengths))
    positions = np.flatnonzero(keep)
    starts = np.cumsum(kept_lengths) - kept_lengths
    rank = np.arange(len(positions)) - np.repeat(starts, kept_lengths)
    depth = len(grades) if k is None else k
    within = rank < depth
    return grades[positions][within], np.minimum(kept_lengths, depth), positions[within]


def page_of_relevant(dcg, *, ideal_dcg, k, dcg_of):
    "From 0 to the larger of the ideal DCG and the DCG of `k` documents of grade 1."
    if k is None:
        return np.zeros(len(dcg)), ideal_dcg
    n = len(dcg)
    page = dcg_of(np.ones(n * k), np.full(n, k))
    return np.zeros(n), np.maximum(ideal_dcg, page)


@hookimpl
def register_truncations(register):
    register("condensed", condensed, "drop unjudged documents, then cut at k (Sakai 2007)")


@hookimpl
def register_normalizations(register):
    register("page_of_relevant", page_of_relevant, "DCG / max(ideal DCG, DCG of k documents of grade 1)")


@hookimpl
def register_measures(register):
    register("ndcg_condensed", lambda k: {"truncation": "condensed"}, "NDCG of the condensed list: ndcg_condensed@K")
    register("ndcg_page", lambda k: {"normalization": "page_of_relevant"}, "NDCG against a full page: ndcg_page@K")
