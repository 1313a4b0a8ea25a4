"""The layers the architecture page states (nbs/84_architecture.ipynb), checked on the code: every import of every
module of the package, imports inside functions included, goes to a module of its own layer or of a layer below.
The one exception is the package's version, which any module may read from `ndcg_nb`."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ndcg_nb"

# bottom to top; a module belongs to the first layer with a name equal to it or a package holding it
LAYERS = (
    ("foundations", ("ndcg_nb.errors", "ndcg_nb.hookspecs", "ndcg_nb.files", "ndcg_nb.convention",
                     "ndcg_nb.engine.deferred_imports")),
    ("flat arrays", ("ndcg_nb.metrics.segments", "ndcg_nb.metrics.batch")),
    ("plugin system", ("ndcg_nb.policies", "ndcg_nb.policy_checks", "ndcg_nb.presets", "ndcg_nb.plugin_registry",
                       "ndcg_nb.plugin_loading", "ndcg_nb.policy_binding", "ndcg_nb.plugins")),
    ("metrics on lists", ("ndcg_nb.metrics",)),
    ("measure families", ("ndcg_nb.families",)),
    ("engine", ("ndcg_nb.engine",)),
    ("analysis", ("ndcg_nb.analysis",)),
    ("integrations", ("ndcg_nb.integrations",)),
    ("front door", ("ndcg_nb.evaluation", "ndcg_nb.testing", "ndcg_nb.cli", "ndcg_nb.__main__", "ndcg_nb")),
)


def module_names() -> dict:
    "Each module of the package by its dotted name (a package by its own name), with its file."
    found = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name == "_modidx.py":
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def layer_of(module: str) -> int:
    for number, (_, names) in enumerate(LAYERS):
        if any(module == name or module.startswith(name + ".") for name in names if name != "ndcg_nb"):
            return number
    if module == "ndcg_nb":
        return len(LAYERS) - 1
    raise AssertionError(f"{module} is in no layer: add it to LAYERS here and to the architecture page")


def imports_of(module: str, path: Path, modules: dict) -> list[tuple[str, int, tuple]]:
    "(imported module, line, names) of every import of `module` that reaches a module of the package."
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = tuple(a.name for a in node.names)
            submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in modules]
            if submodules:
                out += [(m, node.lineno, ()) for m in submodules]
            elif target in modules:
                out.append((target, node.lineno, names))
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno, ()) for a in node.names if a.name in modules]
    return out


MODULES = module_names()


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def upward_imports(module: str, path: Path, modules: dict) -> list[str]:
    "Each import of `module` that reaches a module of a higher layer, as a sentence."
    own = layer_of(module)
    found = []
    for target, line, names in imports_of(module, path, modules):
        if target == module or (target == "ndcg_nb" and names == ("__version__",)):
            continue
        if layer_of(target) > own:
            found.append(f"{module} (layer {LAYERS[own][0]}) imports {target} (layer "
                         f"{LAYERS[layer_of(target)][0]}) at line {line}")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down(module):
    assert upward_imports(module, MODULES[module], MODULES) == []


def test_the_check_can_fail(tmp_path):
    "A module of the flat arrays that imports the engine, inside a function, and a module in no layer, are caught."
    fake = tmp_path / "segments.py"
    fake.write_text("def f():\n    from ..engine import plan\n    from .. import __version__\n")
    modules = {**MODULES, "ndcg_nb.metrics.segments": fake}
    assert upward_imports("ndcg_nb.metrics.segments", fake, modules) == [
        "ndcg_nb.metrics.segments (layer flat arrays) imports ndcg_nb.engine.plan (layer engine) at line 2"]
    with pytest.raises(AssertionError, match="in no layer"):
        layer_of("ndcg_nb_elsewhere.module")
