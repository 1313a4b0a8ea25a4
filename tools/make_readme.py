"""Write README.md from nbs/index.ipynb, executed in memory (nbdev_readme needs Quarto, which we lack).

Usage: python tools/make_readme.py [--check]
With --check, exit 1 if README.md differs from what the notebook produces.
"""
import os
import re
import sys
from pathlib import Path

from execnb.nbio import read_nb
from execnb.shell import CaptureShell

ROOT = Path(__file__).resolve().parent.parent


def _text(output) -> str:
    data = output.get("data", {})
    if "text/plain" in data:
        return "".join(data["text/plain"])
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    return ""


def render(notebook: Path = ROOT / "nbs" / "index.ipynb") -> str:
    nb = read_nb(notebook)
    here = os.getcwd()
    os.chdir(notebook.parent)
    try:
        shell = CaptureShell(path=notebook.parent)
        shell.run("import pandas as pd; pd.set_option('display.width', 250); pd.set_option('display.max_columns', None)")
        shell.run_all(nb, exc_stop=True)
    finally:
        os.chdir(here)
    parts = []
    for cell in nb.cells:
        source = cell.source.strip()
        if cell.cell_type == "markdown":
            parts.append(source)
            continue
        if not source or re.search(r"^#\|\s*(hide|export)", source, flags=re.M):
            continue
        code = "\n".join(line for line in source.splitlines() if not line.startswith("#|"))
        parts.append(f"```python\n{code}\n```")
        outputs = "".join(_text(o) for o in cell.get("outputs", [])).rstrip()
        if outputs:
            parts.append(f"```\n{outputs}\n```")
    header = "<!-- Generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook, not this file. -->\n\n"
    return header + "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    text = render()
    readme = ROOT / "README.md"
    if "--check" in sys.argv:
        if readme.read_text() != text:
            sys.exit("README.md is out of step with nbs/index.ipynb: run python tools/make_readme.py")
    else:
        readme.write_text(text)
