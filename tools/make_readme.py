"""Write README.md from nbs/index.ipynb, executed in memory (nbdev_readme needs Quarto, which we lack).

Usage: python tools/make_readme.py [--check]
With --check, exit 1 if README.md differs from what the notebook produces.

The notebook is also the docs site's home page, whose links are relative to the site (`core.html`,
`tutorials/presets.html#x`); the README is read from the repository root, so its relative links get
the docs folder in front (`docs/core.html`). Links with a scheme, anchors and root paths stay as written.
"""
import os
import re
import sys
from configparser import ConfigParser
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


_RELATIVE_LINK = re.compile(r"(\]\()(?![a-zA-Z][a-zA-Z0-9+.-]*:|#|/)([^)\s]+\))")


def docs_folder() -> str:
    "The docs site's folder, relative to the repository root (settings.ini `doc_path`)."
    settings = ConfigParser(delimiters=["="])
    settings.read(ROOT / "settings.ini", encoding="utf-8")
    return settings["DEFAULT"].get("doc_path", "docs").strip("/")


def from_root(markdown: str, docs: str) -> str:
    "The relative Markdown links of a home-page cell, made to resolve from the repository root (`docs/` in front)."
    return _RELATIVE_LINK.sub(lambda m: f"{m.group(1)}{docs}/{m.group(2)}", markdown)


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
    parts, docs = [], docs_folder()
    for cell in nb.cells:
        source = cell.source.strip()
        if cell.cell_type == "markdown":
            parts.append(from_root(source, docs))
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
