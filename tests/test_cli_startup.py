"""Start-up of the command line: `ndcg-nb --version` and `--help` load nothing heavy.

Two parts. The command line's own module: building the parser and reading `--version`, `--help`
and every subcommand's `--help` import no heavy module (pandas, NumPy, pyarrow, matplotlib,
pluggy, SciPy) and no other ndcg_nb modules than its own (`ndcg_nb.cli`), `errors` and `presets` (the convention's field
descriptions, which give the choices of its options); each handler imports what it needs when
it runs. This is checked with the package's `__init__` left out (a package object made from its
spec without running it), so it holds whatever `__init__` imports. Then the whole command, package
`__init__` included, in a fresh process: `--version` and `--help` leave pandas, NumPy, pyarrow and
matplotlib unimported. How long they take is measured by tools/benchmark.py (its start-up workload,
beside a bare interpreter and `import pytrec_eval`), not here: a timed unit test measures the machine.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ndcg_nb

ROOT = Path(ndcg_nb.__file__).resolve().parents[1]     # the checkout these tests import
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NDCG_NB_LOAD_PLUGINS": ""}
HEAVY = ("pandas", "numpy", "pyarrow", "matplotlib", "pluggy", "scipy", "dask", "sklearn")
SUBCOMMANDS = ("score", "eval", "compare", "report", "explain-presets", "plugins", "new-plugin", "check-plugin")

# ndcg_nb as a package object whose __init__ is not run, then the command line's module and its parser
WITHOUT_INIT = """
import importlib.util, io, contextlib, json, sys
spec = importlib.util.find_spec("ndcg_nb")
package = importlib.util.module_from_spec(spec)          # not executed: no __init__ imports
package.__version__ = "0.0.test"
sys.modules["ndcg_nb"] = package
import importlib
cli = importlib.import_module("ndcg_nb.__main__")
shown = {}
for argv in [["--version"], ["--help"]] + [[command, "--help"] for command in sys.argv[1:]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            cli.build_parser().parse_args(argv)
        except SystemExit as exit:
            assert exit.code == 0, (argv, exit.code)
    shown[" ".join(argv)] = out.getvalue()
print(json.dumps({"modules": sorted(sys.modules), "shown": shown}))
"""


def test_the_parser_imports_nothing_heavy():
    done = subprocess.run([sys.executable, "-c", WITHOUT_INIT, *SUBCOMMANDS], capture_output=True, text=True, env=ENV,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    modules = set(result["modules"])
    assert not modules & set(HEAVY), f"building the parser imported {sorted(modules & set(HEAVY))}"
    # the convention's field descriptions (convention) give the choices of its options; the command line's own modules
    assert {m for m in modules if m.startswith("ndcg_nb.") and not m.startswith("ndcg_nb.cli.")} == \
        {"ndcg_nb.__main__", "ndcg_nb.errors", "ndcg_nb.convention", "ndcg_nb.cli"}
    # the parser did its job: the version, and each subcommand's options
    assert result["shown"]["--version"] == "ndcg-nb 0.0.test\n"
    assert "{" + ",".join(SUBCOMMANDS) + "}" in result["shown"]["--help"]
    assert "--p-value {studentized,interval}" in result["shown"]["compare --help"]
    assert "--zero-idcg {zero,one,skip,nan,raise,signed,signed_skip}" in result["shown"]["eval --help"]
    assert "--qrels-duplicates {error,first,last,max}" in result["shown"]["eval --help"]


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_the_whole_command_imports_nothing_heavy(flag):
    code = (f"import sys\nsys.argv = ['ndcg-nb', {flag!r}]\nfrom ndcg_nb.__main__ import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            f"print('LOADED', [m for m in {HEAVY!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "LOADED []", done.stdout[-500:]
