"""Sphinx settings for the offline docs build; run it through `python tools/build_docs.py`, which
prepares the notebooks this configuration expects (executed, processed by nbdev)."""
import sys
from configparser import ConfigParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
settings = ConfigParser(delimiters=["="])
settings.read(HERE.parent.parent / "settings.ini", encoding="utf-8")
cfg = settings["DEFAULT"]

project = cfg["title"]
author = cfg["author"]
copyright = cfg["copyright"]
release = version = cfg["version"]

extensions = ["myst_nb", "sphinx.ext.githubpages", "mathml_math"]
root_doc = "index"
exclude_patterns = ["**.ipynb_checkpoints"]

# The notebooks arrive executed, with their outputs: MyST-NB only renders them.
nb_execution_mode = "off"
nb_merge_streams = True
nb_render_markdown_format = "myst"  # markdown outputs (show_doc, tables) as MyST, with tables
myst_enable_extensions = ["dollarmath", "amsmath"]
# Notebooks link each other the nbdev way, as `core.html` or `tutorials/x.html#anchor`: keep
# such links as written (the pages get those names); tests/test_docs.py checks they resolve.
myst_all_links_external = True
suppress_warnings = ["myst.header"]  # show_doc entries are ### headings under a # title

html_theme = "furo"
html_title = cfg["title"]
html_static_path = ["_static"]
html_css_files = ["ndcg_nb.css"]
html_favicon = "_static/favicon.svg"
html_math_renderer = "mathml"  # math as MathML: no MathJax download, works offline
html_copy_source = False
html_show_sourcelink = False
html_use_index = False
html_domain_indices = False
html_last_updated_fmt = None
html_theme_options = {"source_repository": cfg["git_url"], "source_branch": cfg["branch"], "source_directory": "nbs/"}
