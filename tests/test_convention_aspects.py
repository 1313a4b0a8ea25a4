"""The groupings of convention fields the engine reads are made from the fields' descriptions
(`ndcg_nb.convention.fields_affecting` and `required_values`), so a new field is counted wherever its description
says it matters. Each derived grouping must hold the same fields as the one the engine kept by hand: the fields of a
ranking (`plan.RANKING_FIELDS`), of an ideal's judged pool (`judgments.POOL_FIELDS`), the values trec_eval's own
measures take (`_TREC_FIELDS`) and those pytrec_eval's measures take (`providers._REFUSED`). The hand-kept groupings
are copied below as they were written, and compared with the engine's live ones too wherever the engine still
defines them (once the engine reads the derived ones, that comparison holds trivially and the copies still bind).
"""
import importlib

import pytest

from ndcg_nb.convention import (ASPECTS, FIELDS, POLICY_FIELDS, POOL_FIELDS, PROVIDER_REQUIRES, RANKING_FIELDS,
                                TREC_OUTPUT_REQUIRES, Convention, FieldDescription, fields_affecting, required_values)
from ndcg_nb.errors import UsageError
from ndcg_nb.hookspecs import POLICY_KINDS

# the groupings as the engine kept them by hand
HAND_RANKING = ("ties", "unjudged", "negative", "min_grade", "integer_grades", "float32_scores", "max_docs",
                "judged_grade", "unjudged_grade", "relevance_map", "identical_ids")
HAND_POOL = ("judged_grade", "ideal_grades", "integer_grades", "negative", "min_grade", "ideal_negatives", "relevance_map")
HAND_TREC = {"gain": "linear", "discount": "log2", "normalization": "judged", "truncation": "cut", "negative": "zero",
             "integer_grades": True, "min_grade": None, "judged_grade": None, "unjudged_grade": None,
             "relevance_map": None, "identical_ids": "keep"}
HAND_PROVIDER = {"judged_grade": None, "unjudged_grade": None, "relevance_map": None, "unjudged_queries": "skip",
                 "zero_grade_sum": "score", "no_hits": "score", "identical_ids": "keep"}


def live(name: str, *modules: str):
    "The engine's own grouping `name`, from the first of `modules` that defines it (None if none does any more)."
    for module in modules:
        found = getattr(importlib.import_module(module), name, None)
        if found is not None:
            return found
    return None


def test_every_field_has_a_description_and_an_aspect():
    assert list(FIELDS) == [f for f in Convention.__dataclass_fields__]
    for name, f in FIELDS.items():
        description = f.metadata.get("description")
        assert isinstance(description, FieldDescription), name
        assert description.doc.strip(), name
        assert description.affects and set(description.affects) <= set(ASPECTS), name
        assert set(dict(description.requires)) <= set(description.affects), name


def test_every_aspect_is_affected_by_a_field():
    assert [aspect for aspect in ASPECTS if not fields_affecting(aspect)] == []


def test_the_policy_fields_are_the_policy_kinds():
    assert POLICY_FIELDS == POLICY_KINDS == fields_affecting("policy")


def test_ranking_fields_are_the_hand_kept_ones_in_their_order():
    # plan.ranking_key is attrgetter(*RANKING_FIELDS): a cache key, so the order is kept as well
    assert RANKING_FIELDS == HAND_RANKING
    engine = live("RANKING_FIELDS", "ndcg_nb.engine.plan")
    assert engine is None or tuple(engine) == RANKING_FIELDS


def test_pool_fields_are_the_hand_kept_ones():
    # judgments' _pool_key keys the ideals made in one process: any fixed order serves
    assert sorted(POOL_FIELDS) == sorted(HAND_POOL) and len(POOL_FIELDS) == len(HAND_POOL)
    engine = live("POOL_FIELDS", "ndcg_nb.engine.judgments")
    assert engine is None or sorted(engine) == sorted(POOL_FIELDS)


def test_trec_output_values_are_the_hand_kept_ones():
    assert TREC_OUTPUT_REQUIRES == HAND_TREC == required_values("trec_output")
    engine = live("_TREC_FIELDS", "ndcg_nb.engine.scoring", "ndcg_nb.engine.measures")
    assert engine is None or dict(engine) == TREC_OUTPUT_REQUIRES


def test_provider_values_are_the_hand_kept_ones():
    assert PROVIDER_REQUIRES == HAND_PROVIDER == required_values("provider")
    engine = live("_REFUSED", "ndcg_nb.engine.providers")
    assert engine is None or dict(engine) == PROVIDER_REQUIRES


OTHER = {"gain": "exponential", "discount": "ln", "normalization": "retrieved", "truncation": "pad", "negative": "keep",
         "integer_grades": False, "min_grade": 1, "judged_grade": 1, "unjudged_grade": 0, "relevance_map": {1: 2},
         "unjudged_queries": "zero", "zero_grade_sum": "zero", "no_hits": "zero", "identical_ids": "drop"}


@pytest.mark.parametrize("field", sorted(PROVIDER_REQUIRES))
def test_pytrec_eval_refuses_each_field_off_its_value(field):
    providers = importlib.import_module("ndcg_nb.engine.providers")
    providers._check_convention("map", Convention(**PROVIDER_REQUIRES))          # every required value: accepted
    with pytest.raises(UsageError, match=f"cannot take {field}="):
        providers._check_convention("map", Convention(**{**PROVIDER_REQUIRES, field: OTHER[field]}))


@pytest.mark.parametrize("field", sorted(TREC_OUTPUT_REQUIRES))
def test_trec_eval_measures_refuse_each_field_off_its_value(field):
    check = live("_check_trec_fields", "ndcg_nb.engine.scoring", "ndcg_nb.engine.measures")
    if check is None:
        pytest.skip("the engine checks trec_eval's fields elsewhere")
    check("ndcg_rel", Convention(**TREC_OUTPUT_REQUIRES))
    with pytest.raises(UsageError, match=f"it takes {field}="):
        check("ndcg_rel", Convention(**{**TREC_OUTPUT_REQUIRES, field: OTHER[field]}))


def test_a_field_outside_the_ranking_leaves_the_ranking_key():
    ranking_key = importlib.import_module("ndcg_nb.engine.plan").ranking_key
    for name in set(FIELDS) - set(RANKING_FIELDS) - set(POLICY_FIELDS) - {"preset"}:
        choices = FIELDS[name].metadata["choices"]
        changed = {name: choices[-1]} if choices else {name: 7}
        assert ranking_key(Convention(**changed)) == ranking_key(Convention()), name


def test_an_unknown_aspect_is_refused():
    with pytest.raises(UsageError, match="unknown aspect 'colour'"):
        fields_affecting("colour")
