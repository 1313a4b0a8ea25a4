"""A plugin with one working hook and two pluggy never calls: one misspelt but marked optionalhook=True (which
pluggy's check_pending skips), and one spelt right but not marked with ndcg_nb's @hookimpl."""
from ndcg_nb import hookimpl


@hookimpl
def register_gains(register):
    register("kept", lambda grades: grades + 0.0, "the grade")


@hookimpl(optionalhook=True)
def register_discount(register):
    register("never_called", lambda ranks: 1.0 / ranks)


def register_discounts(register):
    register("never_called_either", lambda ranks: 1.0 / ranks)
