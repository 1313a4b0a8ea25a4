"""What `help()` shows a newcomer: the package's overview first, on one page, and `Convention`'s fields before
the methods and attributes `dataclass` writes."""
import pydoc
import subprocess
import sys

import ndcg_nb
from ndcg_nb.convention import FIELDS

FIRST_CALLS = ("ndcg(", "evaluate(", "Evaluator(", "compare(", "ndcg-nb eval")


def help_page(code: str) -> list[str]:
    "The lines `help()` prints for the object `code` names, in a fresh interpreter after `code` ran."
    script = f"import pydoc, ndcg_nb; {code}; print(pydoc.render_doc(ndcg_nb, renderer=pydoc.plaintext))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_package_help_opens_with_the_overview_and_is_one_page():
    for setup in ("pass", "from ndcg_nb import ndcg, Convention, Evaluator, PluginError; ndcg_nb.evaluate"):
        page = help_page(setup)
        assert len(page) < 100, (setup, len(page))
        assert page[3].strip().startswith("ndcg_nb - Exact, explainable NDCG"), page[:5]
        description = "\n".join(page[:25])
        assert all(call in description for call in FIRST_CALLS), description
        assert not any(line.strip().startswith("class ") for line in page), setup


def test_every_public_name_is_in_the_overview():
    listed = " ".join(ndcg_nb.__doc__.split("by role:")[1].split()).replace(",", " ").split()
    assert set(ndcg_nb.__all__) <= set(listed)
    assert ndcg_nb.__doc__.startswith("Exact, explainable NDCG")


def test_convention_help_starts_with_what_it_is_then_its_fields():
    page = pydoc.render_doc(ndcg_nb.Convention, renderer=pydoc.plaintext).splitlines()
    text = "\n".join(page)
    what, preset, fields, methods = (text.index(s) for s in ("Every choice that turns a run", "Get one from a preset",
                                                             "Fields (name, default, what it decides)",
                                                             "Methods defined here"))
    assert what < preset < fields < methods
    table = text[fields:methods].splitlines()[1:]
    assert [line.split()[1] for line in table if len(line.split()) > 2] == list(FIELDS)   # every field, in order
    assert len(page) < 200
