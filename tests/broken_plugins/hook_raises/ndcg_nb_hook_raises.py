"""A plugin whose discount hook raises after its gain hook registered a policy."""
from ndcg_nb import hookimpl


@hookimpl
def register_gains(register):
    register("half_registered", lambda grades: grades, "must not be left behind")


@hookimpl
def register_discounts(register):
    raise RuntimeError("cannot reach the weights server")
