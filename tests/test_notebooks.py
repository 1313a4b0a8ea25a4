"""Every notebook under nbs/, run once: one pytest result per notebook, and docs/ checked against them.

The notebooks are run by the docs build, `python tools/build_docs.py --out <temporary folder>`,
in a subprocess: each notebook runs top to bottom in a fresh interpreter, as `nbdev_test` runs
it (`#| eval: false` cells and the `tst_flags` of settings.ini are skipped), so plugins
registered by one notebook cannot leak into another. The build's JSON report gives each
notebook's result (its traceback when it fails), and the site it built must be exactly the
committed docs/ (the build is deterministic). CI relies on this module: it runs no other
notebook runner and no separate docs build.
"""
from __future__ import annotations

import filecmp
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NBS, DOCS, BUILD_DOCS = ROOT / "nbs", ROOT / "docs", ROOT / "tools" / "build_docs.py"


def _build_docs_module():
    "tools/build_docs.py as a module (for its rule of which notebooks make pages)."
    name = "_ndcg_nb_build_docs"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BUILD_DOCS)
        sys.modules[name] = importlib.util.module_from_spec(spec)  # its dataclasses look their module up
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


# the notebooks the build runs, by its own rule (names starting with "_" or "." skipped)
NOTEBOOKS = sorted(p.relative_to(NBS).as_posix() for p in NBS.rglob("*.ipynb")
                   if not any(part.startswith(("_", ".")) for part in p.relative_to(NBS).parts))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    "Run the docs build once into a temporary folder: (the built site, the build's report, its output)."
    folder = tmp_path_factory.mktemp("docs-build")
    out, report = folder / "site", folder / "report.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(BUILD_DOCS), "--out", str(out), "--report", str(report)],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=3600)
    output = f"exit status {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    if not report.exists():
        pytest.fail(f"tools/build_docs.py wrote no report:\n{output}")
    result = json.loads(report.read_text(encoding="utf-8"))
    return out, result, output


def test_notebooks_were_found():
    assert len(NOTEBOOKS) >= 7, NOTEBOOKS
    built = {p.source.relative_to(NBS).as_posix() for p in _build_docs_module().discover(NBS)}
    assert built == set(NOTEBOOKS), "this module and tools/build_docs.py disagree on which notebooks to run"


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook(notebook, site):
    _, result, output = site
    if notebook not in result["notebooks"]:
        pytest.fail(f"{notebook} was not run: the build stopped before running notebooks.\n{result['error'] or output}")
    error = result["notebooks"][notebook]
    if error is not None:
        pytest.fail(f"{notebook} failed:\n{error[-8000:]}", pytrace=False)


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_docs_are_what_the_notebooks_give(site):
    "docs/ is byte for byte the site the build gives (the build is deterministic, see tools/build_docs.py)."
    built, result, output = site
    if result["error"]:
        failed = [nb for nb, error in result["notebooks"].items() if error]
        reason = f"notebook(s) failed: {', '.join(failed)}" if failed else result["error"][-8000:]
        pytest.fail(f"the docs site could not be built, so docs/ was not checked; {reason}")
    ours, theirs = _files(built), _files(DOCS) if DOCS.is_dir() else set()
    differing = sorted(f for f in ours & theirs if not filecmp.cmp(built / f, DOCS / f, shallow=False))
    problems = ([f"docs/{f}: differs from the build" for f in differing]
                + [f"docs/{f}: missing (the build writes it)" for f in sorted(ours - theirs)]
                + [f"docs/{f}: not written by the build" for f in sorted(theirs - ours)])
    assert not problems, (f"docs/ is out of step with the notebooks in {len(problems)} file(s); run "
                          "`python tools/build_docs.py` and commit docs/ with the notebooks:\n"
                          + "\n".join(problems[:50]) + ("\n..." if len(problems) > 50 else ""))
