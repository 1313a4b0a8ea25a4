"""One of two plugins that register the gain name `shared`; it also has a name of its own."""
from ndcg_nb import hookimpl


@hookimpl
def register_gains(register):
    register("shared", lambda grades: grades * 2, "claims_a's idea of 'shared'")
    register("only_a", lambda grades: grades * 3, "3 * rel")
