"""What a reader of the home page and the tutorials sees, measured in headless Chromium on the built site:

- at a laptop's 1280 x 800 and a phone's 390 pixels, no table, no code block (code, commands, printed
  output) and no displayed formula is wider than the text column or hides part of itself behind a sideways scroll;
- tutorial 1's NDCG@5 table shows its `ndcg` column inside the text column;
- no tutorial page shows a check (`test_eq`, `test_close`, `test_fail`, `assert`): the checks run in hidden cells.

The site is docs/, or the one NDCG_NB_DOCS names (`python tools/build_docs.py --out /tmp/site`, then
`NDCG_NB_DOCS=/tmp/site python -m pytest tests/test_docs_layout.py`). Each measure is first tried on a small
synthetic page with and without the defect, so a check that cannot fail would show here.
"""
from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest

from .test_docs import DOCS, ROOT, browser, load, site_url  # noqa: F401  (browser and site_url are fixtures)

SIZES = {"1280x800": (1280, 800), "390x844": (390, 844)}
TUTORIAL_1 = "tutorials/ndcg_at_k_step_by_step.html"


def reader_pages() -> list[str]:
    "The home page and every tutorial page of the site."
    tutorials = sorted(p.relative_to(DOCS).as_posix() for p in (DOCS / "tutorials").glob("*.html"))
    return ["index.html", *tutorials] if (DOCS / "index.html").is_file() else []


# Everything the reader needs that could be wider than the text column (`article[role=main]`): its tables, code
# blocks and displayed formulas. A block sticking out of the column, or holding content wider than itself (hidden
# behind its own scroll bar or the scroll bar of the box around it), is reported with its width and first words.
_TOO_WIDE = """
const column = document.querySelector('article[role=main]');
const edge = column.getBoundingClientRect();
const found = [];
for (const block of column.querySelectorAll('table, pre, div.math-display')) {
  const box = block.getBoundingClientRect();
  const scroller = block.parentElement.closest('div.cell_output, div.table-wrapper, div.highlight') || block;
  const sticksOut = box.left < edge.left - 1 || box.right > edge.right + 1;
  const hides = block.scrollWidth > block.clientWidth + 1 || scroller.scrollWidth > scroller.clientWidth + 1;
  if (box.width > 0 && (sticksOut || hides)) {
    found.push(`${block.tagName.toLowerCase()} ${Math.round(Math.max(box.width, block.scrollWidth))} px in a `
               + `${Math.round(edge.width)} px column: ${block.textContent.trim().replace(/\\s+/g, ' ').slice(0, 70)}`);
  }
}
return found;
"""

# The header cells reading exactly `name` in the tables of the section whose heading (h2) mentions `heading`,
# each with whether it lies inside the text column and the window.
_COLUMN_SHOWN = """
const [heading, name] = arguments;
const column = document.querySelector('article[role=main]').getBoundingClientRect();
const sections = Array.from(document.querySelectorAll('article[role=main] section'))
  .filter(s => { const h = s.querySelector(':scope > h2'); return h && h.textContent.includes(heading); });
const cells = sections.flatMap(s => Array.from(s.querySelectorAll('table th')))
  .filter(th => th.textContent.trim() === name);
return cells.map(th => {
  const box = th.getBoundingClientRect();
  return {inside: box.width > 0 && box.left >= column.left - 1 && box.right <= column.right + 1
                  && box.right <= window.innerWidth};
});
"""


def too_wide(driver) -> list[str]:
    return driver.execute_script(_TOO_WIDE)


def column_shown(driver, heading: str, name: str) -> list[dict]:
    return driver.execute_script(_COLUMN_SHOWN, heading, name)


_CHECK_CALL = re.compile(r"\btest_(?:eq|close|fail|ne|is|warns)\b")
_ASSERT_LINE = re.compile(r"^\s*assert\b", re.M)


def shown_checks(page_html: str) -> list[str]:
    "The checks a page shows: `test_eq(`-style calls anywhere in its text, `assert` statements in its code blocks."
    page_html = re.sub(r"<(script|style)\b.*?</\1>", " ", page_html, flags=re.S)
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", page_html))
    code = "\n".join(html_lib.unescape(re.sub(r"<[^>]+>", "", block))
                     for block in re.findall(r"<pre\b[^>]*>(.*?)</pre>", page_html, flags=re.S))
    return [m.group(0) for m in _CHECK_CALL.finditer(text)] + [m.group(0).strip() for m in _ASSERT_LINE.finditer(code)]


# -- the measures on synthetic pages ---------------------------------------------------------------------------

_SYNTHETIC = """<html><body style="margin:0"><article role="main" style="width:300px">
<section><h2>Normalized: NDCG@5</h2>{}</section></article></body></html>"""


def _open_synthetic(driver, tmp_path: Path, body: str):
    page = tmp_path / "page.html"
    page.write_text(_SYNTHETIC.format(body), encoding="utf-8")
    driver.set_window_size(1280, 800)
    load(driver, page.as_uri())


def test_width_measure_on_synthetic_pages(browser, tmp_path):
    wide_table = "<table><tr>" + "".join(f"<th>column_{i}</th>" for i in range(12)) + "<th>ndcg</th></tr></table>"
    _open_synthetic(browser, tmp_path, f'<div style="overflow-x:auto">{wide_table}</div>')
    assert len(too_wide(browser)) == 1
    assert column_shown(browser, "NDCG@5", "ndcg") == [{"inside": False}]
    long_line = "x = " + " + ".join(["value"] * 40)
    _open_synthetic(browser, tmp_path, f'<pre style="overflow:auto; white-space:pre">{long_line}</pre>')
    assert too_wide(browser)[0].startswith("pre ")
    _open_synthetic(browser, tmp_path, '<div class="math-display" style="overflow-x:auto">'
                                       '<span style="display:inline-block; width:600px">formula</span></div>')
    assert too_wide(browser)[0].startswith("div ")
    fitting = "<table><tr><th>dcg</th><th>ndcg</th></tr></table>"
    _open_synthetic(browser, tmp_path, f'{fitting}<pre style="white-space:pre-wrap">{long_line}</pre>')
    assert too_wide(browser) == []
    assert column_shown(browser, "NDCG@5", "ndcg") == [{"inside": True}]
    assert column_shown(browser, "IDCG", "ndcg") == []


def test_shown_checks_on_synthetic_pages():
    assert shown_checks('<pre><span class="n">test_eq</span>(a, 1)\nassert b</pre>') == ["test_eq", "assert"]
    assert shown_checks("<p>the values <code>test_close</code> compares</p>") == ["test_close"]
    hidden = '<p>Every check runs, out of sight; we assert nothing here.</p><pre>x = 1  # assert-free\n</pre>'
    assert shown_checks(hidden) == []


# -- the built pages ------------------------------------------------------------------------------------------

def test_reader_pages_found():
    "The home page and one page per tutorial notebook."
    notebooks = [nb for nb in (ROOT / "nbs" / "tutorials").glob("*.ipynb") if not nb.name.startswith(("_", "."))]
    assert TUTORIAL_1 in reader_pages() and len(reader_pages()) == 1 + len(notebooks), reader_pages()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("page", reader_pages())
def test_tables_and_code_fit_the_text_column(browser, site_url, page, size):
    browser.set_window_size(*SIZES[size])
    load(browser, site_url + page)
    found = too_wide(browser)
    assert not found, f"{page} at {size}: wider than the text column:\n" + "\n".join(found)


@pytest.mark.parametrize("size", SIZES)
def test_tutorial_1_ndcg_table_shows_its_ndcg_column(browser, site_url, size):
    browser.set_window_size(*SIZES[size])
    load(browser, site_url + TUTORIAL_1)
    cells = column_shown(browser, "NDCG@5", "ndcg")
    assert cells, f"{TUTORIAL_1}: no table with an `ndcg` column in the section about NDCG@5"
    assert all(c["inside"] for c in cells), f"{TUTORIAL_1} at {size}: the `ndcg` column is off the text column"


@pytest.mark.parametrize("page", [p for p in reader_pages() if p.startswith("tutorials/")])
def test_tutorial_shows_no_checks(page):
    found = shown_checks((DOCS / page).read_text(encoding="utf-8"))
    assert not found, f"{page} shows checks (put them in a `#| hide` cell): {found}"
