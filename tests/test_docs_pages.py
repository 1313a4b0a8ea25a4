"""Defects a reader sees on the built pages of docs/, checked on every page:

(a) a raw Markdown link left in the text, `[text](#anchor)` or `[text](url)` outside code blocks
    (nbdev linking a backticked name that was already the text of a link, for instance);
(b) a warning printed in a cell's output (`...Warning:`, `DeprecationWarning`, `UserWarning`): the
    page shows what a reader running the notebook sees, and a warning there is a mistake in the
    notebook (a deprecated name used, a warning that should be checked with `warnings.catch_warnings`);
(c) the same figure twice on one page (the same image file, identical image bytes under two names,
    or the same data URI): a cell whose plot was shown by the backend and again as the cell's value.

Each check is a function of one page's HTML, tested first on small synthetic pages with and
without the defect, so a check that cannot fail would show here.
"""
from __future__ import annotations

import base64
import importlib.util
import os
import re
import sys
import urllib.parse
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the site checked: docs/, or a site built elsewhere (`python tools/build_docs.py --out DIR`) named by NDCG_NB_DOCS
DOCS = Path(os.environ.get("NDCG_NB_DOCS") or ROOT / "docs")

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_CODE_BLOCKS = {"pre", "script", "style", "textarea"}
_RAW_LINK = re.compile(r"\[[^\[\]\n]{1,300}\]\([^()\s]+\)")
_WARNING = re.compile(r"\b\w*Warning:|\bDeprecationWarning\b|\bUserWarning\b")


class _PageText(HTMLParser):
    """One page read once: its prose (text outside code blocks, inline code included, tags removed
    without a space so `[<code>x</code>](y)` reads `[x](y)`), the text of its cell outputs, and the
    source of each image."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, bool, bool]] = []   # (tag, starts a cell output, starts a code block)
        self.prose: list[str] = []
        self.outputs: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])
        if tag in _VOID:
            return
        classes = (attrs.get("class") or "").split()
        self.open.append((tag, "cell_output" in classes, tag in _CODE_BLOCKS))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if any(t == tag for t, _, _ in self.open):
            while self.open and self.open.pop()[0] != tag:
                pass

    def handle_data(self, data):
        if any(output for _, output, _ in self.open):
            self.outputs.append(data)
        if not any(code for _, _, code in self.open):
            self.prose.append(data)


def read_page(html: str) -> _PageText:
    page = _PageText()
    page.feed(html)
    page.close()
    return page


def raw_markdown_links(html: str) -> list[str]:
    "(a) Markdown links `[text](target)` shown as text outside code blocks."
    return _RAW_LINK.findall("".join(read_page(html).prose))


def printed_warnings(html: str) -> list[str]:
    "(b) The lines of cell outputs that show a Python warning."
    text = "".join(read_page(html).outputs)
    return [line.strip() for line in text.splitlines() if _WARNING.search(line)]


def _image_bytes(src: str, folder: Path | None) -> bytes | None:
    "The bytes of an image: decoded from a data URI, or read from the file `src` names relative to `folder`."
    if src.startswith("data:"):
        header, _, payload = src.partition(",")
        return base64.b64decode(payload) if header.endswith(";base64") else urllib.parse.unquote_to_bytes(payload)
    url = urllib.parse.urlsplit(src)
    if url.scheme or folder is None:
        return None
    path = folder / urllib.parse.unquote(url.path)
    return path.read_bytes() if path.is_file() else None


def repeated_figures(html: str, folder: Path | None = None) -> list[str]:
    """(c) Figures shown more than once on the page: the same `src` (file or data URI) twice, or two
    sources whose image bytes are identical (files read relative to `folder`, the page's folder)."""
    sources = read_page(html).images
    repeated = [f"{src[:80]} shown {n} times" for src, n in Counter(sources).items() if n > 1]
    first_of: dict[bytes, str] = {}
    for src in dict.fromkeys(sources):
        data = _image_bytes(src, folder)
        if data is None:
            continue
        if data in first_of:
            repeated.append(f"{src[:80]} is the same image as {first_of[data][:80]}")
        first_of.setdefault(data, src)
    return repeated


# -- each check catches its defect on a synthetic page, and passes the same page without it -----------

_OUTPUT = '<div class="cell_output docutils container"><div class="output stderr"><pre>{}</pre></div></div>'
_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n not really an image").decode()


def test_raw_link_check_on_synthetic_pages():
    nested = ('<p>[<a class="reference external" href="hookspecs.html#register_gains"><code>register_gains'
              '</code></a>](#register_gains)</p>')              # what nbdev made of [`register_gains`](#register_gains)
    split = ('<p>known in <code>[</code>evaluate<code>](distributed.html#evaluate)</code>.</p>')
    assert raw_markdown_links(nested) == ["[register_gains](#register_gains)"]
    assert raw_markdown_links(split) == ["[evaluate](distributed.html#evaluate)"]
    assert raw_markdown_links('<p>see [the guide](https://example.org/guide) here</p>') == [
        "[the guide](https://example.org/guide)"]
    fine = ('<p><a href="#register_gains"><code>register_gains</code></a>, a[i] (i) and [1, 2] (sorted)</p>'
            '<div class="highlight"><pre>md = "[x](#x)"</pre></div>')  # in a code block it is code, not a link
    assert raw_markdown_links(fine) == []


def test_warning_check_on_synthetic_pages():
    deprecated = _OUTPUT.format("&lt;ipython-input-1-18ba&gt;:12: DeprecationWarning: the convention field "
                                "&#39;ideal&#39; is now &#39;normalization&#39;")
    assert printed_warnings(deprecated) == [
        "<ipython-input-1-18ba>:12: DeprecationWarning: the convention field 'ideal' is now 'normalization'"]
    assert len(printed_warnings(_OUTPUT.format("x.py:3: UserWarning: careful"))) == 1
    assert len(printed_warnings(_OUTPUT.format("x.py:3: PluginWarning: plugin overrides"))) == 1
    # prose and code about warnings are not printed warnings
    assert printed_warnings('<p>a DeprecationWarning: says so</p><pre>warnings.warn("x", UserWarning)</pre>'
                            + _OUTPUT.format("0.1431")) == []


def test_repeated_figure_check_on_synthetic_pages(tmp_path):
    img = '<div class="cell_output"><img src="{}"></div>'
    (tmp_path / "a.png").write_bytes(b"plot one")
    (tmp_path / "b.png").write_bytes(b"plot one")
    (tmp_path / "c.png").write_bytes(b"plot two")
    assert repeated_figures(img.format("a.png") * 2, tmp_path) == ["a.png shown 2 times"]
    assert repeated_figures(img.format("a.png") + img.format("b.png"), tmp_path) == [
        "b.png is the same image as a.png"]
    data_uri = f"data:image/png;base64,{_PNG}"
    assert len(repeated_figures(img.format(data_uri) * 2)) == 1
    assert repeated_figures(img.format("a.png") + img.format("c.png") + img.format(data_uri), tmp_path) == []


# -- the build's own fixes for (a): nbdev's links inside literals and links, and names several modules define --

def _build_docs():
    "tools/build_docs.py as a module."
    name = "_ndcg_nb_build_docs"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / "build_docs.py")
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


def test_build_undoes_nbdev_links_inside_links_and_literals():
    fix = _build_docs()._fix_links
    site = "https://ndcg-nb.github.io/ndcg_nb/"
    # nbdev's add_links on `| [`register_gains`](#register_gains) |` and on ``evaluate`` (an RST literal)
    table_row = f"| [[`register_gains`]({site}hookspecs.html#register_gains)](#register_gains) | gains |"
    literal = f"(known in `[`evaluate`]({site}evaluation.html#evaluate)`)"
    assert fix(table_row, "", site) == "| [`register_gains`](#register_gains) | gains |"
    assert fix(literal, "../", site) == "(known in [`evaluate`](../evaluation.html#evaluate))"
    plain = f"[`ndcg`]({site}core.html#ndcg) and [the guide](plugin_guide.html)"
    assert fix(plain, "", site) == "[`ndcg`](core.html#ndcg) and [the guide](plugin_guide.html)"


def test_build_lets_table_cells_break_between_the_parts_of_a_name():
    breaks = _build_docs().header_breaks
    html = ('<tr><th>ideal_discounted_gain</th><th class="x">ndcg</th></tr>'
            '<tr><td>ndcg_nb.evaluate</td><td>0.25</td><td>1.3e-15</td><td><b>a_b</b></td></tr>')
    assert breaks(html) == ('<tr><th>ideal_<wbr>discounted_<wbr>gain</th><th class="x">ndcg</th></tr>'
                            '<tr><td>ndcg_<wbr>nb.<wbr>evaluate</td><td>0.25</td><td>1.3e-15</td><td><b>a_b</b></td></tr>')


def test_build_links_a_bare_name_to_the_top_level_one():
    preferred = _build_docs().preferred_targets
    syms = {"evaluate": "distributed.html#evaluate",          # nbdev's pick: the first module alphabetically
            "ndcg_nb.integrations.distributed.evaluate": "distributed.html#evaluate",
            "ndcg_nb.evaluation.evaluate": "evaluation.html#evaluate", "ndcg": "core.html#ndcg",
            "ndcg_nb.metrics.core.ndcg": "core.html#ndcg"}
    assert preferred(syms, {"evaluate": "ndcg_nb.evaluation", "ndcg": "ndcg_nb.metrics.core", "gone": "ndcg_nb.metrics.core"}) == {
        "evaluate": "evaluation.html#evaluate", "ndcg": "core.html#ndcg"}


# -- the built pages -------------------------------------------------------------------------------

PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.html")) if DOCS.is_dir() else []
# Pages allowed to print a warning, each with its reason (none today).
KNOWN_WARNINGS: dict[str, str] = {}


def test_pages_found():
    assert {"index.html", "plugin_guide.html", "tutorials/presets.html", "tutorials/comparing_runs.html"} <= set(PAGES)
    assert set(KNOWN_WARNINGS) <= set(PAGES), "an exempted page is gone: drop it from KNOWN_WARNINGS"


@pytest.mark.parametrize("page", PAGES)
def test_page_has_no_raw_markdown_link(page):
    found = raw_markdown_links((DOCS / page).read_text(encoding="utf-8"))
    assert not found, f"docs/{page} shows Markdown links as text: {found}"


@pytest.mark.parametrize("page", PAGES)
def test_page_links_evaluate_to_the_front_door(page):
    "A bare `evaluate` means `ndcg_nb.evaluate`, not the Dask function (nbdev's choice, alphabetical)."
    html = (DOCS / page).read_text(encoding="utf-8")
    dask = re.findall(r'<a [^>]*href="(?:\.\./)*distributed\.html#evaluate"[^>]*>(?:<code[^>]*>)?'
                      r'(?:<span class="pre">)?evaluate<', html)
    assert not dask, f"docs/{page} links `evaluate` to the Dask function {len(dask)} times"


@pytest.mark.parametrize("page", [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=KNOWN_WARNINGS[p]))
                                  if p in KNOWN_WARNINGS else p for p in PAGES])
def test_page_prints_no_warning(page):
    found = printed_warnings((DOCS / page).read_text(encoding="utf-8"))
    assert not found, (f"docs/{page} prints warnings in cell outputs (use the current name, or check the warning "
                       f"with warnings.catch_warnings instead of printing it):\n" + "\n".join(found))


@pytest.mark.parametrize("page", PAGES)
def test_page_shows_each_figure_once(page):
    path = DOCS / page
    found = repeated_figures(path.read_text(encoding="utf-8"), path.parent)
    assert not found, f"docs/{page} shows a figure more than once: {found}"
