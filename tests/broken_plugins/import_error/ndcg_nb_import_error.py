"""A plugin whose import fails: it needs a package that is not installed."""
import ndcg_nb_dependency_that_is_not_installed  # noqa: F401
