"""Run every notebook under nbs/ through nbdev's own runner, one pytest result per notebook.

Each notebook runs in a fresh interpreter, as `nbdev_test` does, so plugins registered by one
notebook cannot leak into another; `#| eval: false` cells and the `tst_flags` of settings.ini
are honoured because nbdev's `test_nb` applies them.
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for p in (ROOT / "nbs").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and not p.name.startswith("_"))

RUNNER = """
import sys
from nbdev.config import get_config
from nbdev.test import test_nb
flags = get_config().tst_flags.split()
from pathlib import Path
ok, _ = test_nb(Path(sys.argv[1]), skip_flags=flags)
sys.exit(0 if ok else 1)
"""


def test_notebooks_were_found():
    assert len(NOTEBOOKS) >= 7, NOTEBOOKS


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT / "nbs")))
def test_notebook(notebook):
    env = {**__import__("os").environ, "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-c", RUNNER, str(notebook)], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=600)
    assert done.returncode == 0, f"{notebook.name} failed:\n{done.stderr[-6000:]}"
