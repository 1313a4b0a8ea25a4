"""Sphinx settings for the offline docs build; run it through `python tools/build_docs.py`, which
prepares the notebooks this configuration expects (executed, processed by nbdev)."""
import json
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
# Furo's "view" and "edit" buttons: a page is built from a notebook whose name it does not keep (30_core.ipynb gives
# core.html), so each page's buttons are set from the map tools/build_docs.py writes beside the pages; a page not in
# it (search) gets none, rather than a link to a notebook that does not exist.
SOURCE_MAP = "source_notebooks.json"


def _source_links(sources: dict):
    repo, branch = cfg["git_url"].rstrip("/"), cfg["branch"]

    def set_links(app, pagename, templatename, context, doctree):
        notebook = sources.get(pagename)
        if notebook:  # Furo formats these with str.format: braces in a path are doubled
            path = notebook.replace("{", "{{").replace("}", "}}")
            context["theme_source_view_link"] = f"{repo}/blob/{branch}/{path}"
            context["theme_source_edit_link"] = f"{repo}/edit/{branch}/{path}"
    return set_links


def setup(app):
    mapping = Path(app.srcdir) / SOURCE_MAP
    sources = json.loads(mapping.read_text(encoding="utf-8")) if mapping.is_file() else {}
    app.connect("html-page-context", _source_links(sources))
