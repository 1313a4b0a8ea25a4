"""No module of the package defines a top-level function or class twice. Notebooks export cells in order, so a
second `def` of the same name (in a later cell, or from a merge of two branches) silently replaces the first: this
happened once, when a helper's `_list_weights` shadowed the core's and only the docs build noticed."""
import ast
from pathlib import Path

import ndcg_nb

PACKAGE = Path(ndcg_nb.__file__).parent


def defined_twice(source: str) -> list[str]:
    "The names of the top-level functions and classes that `source` defines more than once."
    seen, twice = set(), []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in seen:
                twice.append(node.name)
            seen.add(node.name)
    return twice


def test_the_check_finds_a_name_defined_twice():
    assert defined_twice("def a():\n    pass\n\nclass B:\n    pass\n\ndef a():\n    return 1\n") == ["a"]
    assert defined_twice("def a():\n    pass\n\ndef b():\n    pass\n") == []


def test_no_module_defines_a_name_twice():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 30
    twice = {str(path.relative_to(PACKAGE)): names for path in modules if (names := defined_twice(path.read_text()))}
    assert twice == {}
