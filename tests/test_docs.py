"""The documentation site in docs/, as built by `python tools/build_docs.py`.

- every hook in ndcg_nb/hookspecs.py has a `show_doc` entry in the plugin guide notebook, and
  the built guide shows it with its signature and docstring;
- no page links to a missing file or to a missing anchor, and every link into the repository (the
  "view" and "edit" buttons, the `source` links of the API) names a file the repository has;
- headless Chromium, on docs/ served over http on 127.0.0.1, opens the home page and a
  tutorial: no console errors, plots loaded as images, the sidebar links resolve, a search
  for "IDCG" returns results (over http and from file://). A screenshot of each checked page
  goes to test-artifacts/. Without Chromium the browser test is skipped, except in CI
  (CI=true), where it fails.
"""
from __future__ import annotations

import configparser
import functools
import http.server
import inspect
import json
import os
import re
import shutil
import tempfile
import threading
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ndcg_nb import hookspecs

ROOT = Path(__file__).resolve().parent.parent
# the site checked: docs/, or a site built elsewhere (`python tools/build_docs.py --out DIR`) named by NDCG_NB_DOCS
DOCS = Path(os.environ.get("NDCG_NB_DOCS") or ROOT / "docs")
GUIDE_NB = ROOT / "nbs" / "80_plugin_guide.ipynb"
GUIDE_PAGE = DOCS / "plugin_guide.html"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
IN_CI = os.environ.get("CI", "").lower() == "true"

HOOKS = {name: f for name, f in vars(hookspecs).items() if callable(f) and hasattr(f, "ndcg_nb_spec")}


# -- parsing the built HTML ---------------------------------------------------------------------

class _PageParser(HTMLParser):
    "Collects the links (href/src) and the anchor ids of one page, and its text by section id."

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) is not None and tag in ("a", "link", "script", "img", "iframe", "source"):
                self.links.append(attrs[key])


@functools.cache
def parse(page: Path) -> _PageParser:
    parser = _PageParser()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def built_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.html"))


def text_of(html: str) -> str:
    "The visible text of an HTML fragment, whitespace collapsed."
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", html)
    import html as html_lib
    return " ".join(html_lib.unescape(text).split())


def section_html(page: Path, anchor: str) -> str:
    """The HTML of the section that nbdev's anchor `anchor` (as in `page.html#anchor`) points at.

    The anchor is the section's own id, or an empty element just before the section (Sphinx's
    section ids cannot hold nbdev's `_` and `.`)."""
    html = page.read_text(encoding="utf-8")
    m = re.search(rf'<(\w+)[^>]*\bid="{re.escape(anchor)}"', html)
    assert m, f"{page.name} has no element with id {anchor!r}"
    start = m.start() if m.group(1) == "section" else html.find("<section", m.end())
    end = html.find("<section", start + 1)
    return html[start: end if end != -1 else len(html)]


# -- (a) the plugin guide documents every hook ----------------------------------------------------

def test_hookspecs_found():
    assert set(HOOKS) >= {"register_gains", "register_discounts", "register_truncations"}, HOOKS


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_every_hook_is_documented_in_the_plugin_guide(hook):
    spec = HOOKS[hook]
    assert (spec.__doc__ or "").strip(), f"hook {hook} has no docstring for plugin authors"
    cells = json.loads(GUIDE_NB.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    assert any(re.search(rf"^show_doc\((hookspecs\.)?{hook}\)", s, re.M) for s in sources), (
        f"{GUIDE_NB.name} has no `show_doc(hookspecs.{hook})` cell: document the new hook in the plugin guide")
    assert GUIDE_PAGE.exists(), f"{GUIDE_PAGE} is missing: run python tools/build_docs.py"
    section = text_of(section_html(GUIDE_PAGE, hook))
    signature = f"def {hook}{inspect.signature(spec)}:"
    assert re.sub(r"\s", "", signature) in re.sub(r"\s", "", section), (
        f"the built plugin guide does not show {signature!r}; rebuild the docs")
    first_line = inspect.getdoc(spec).splitlines()[0].strip().replace("`", "")
    assert re.sub(r"\s", "", first_line) in re.sub(r"\s", "", section), f"the built plugin guide lacks the docstring of {hook}: {first_line!r}"


def test_plugin_guide_shows_the_example_plugin_package():
    "The guide shows the example package's files as they are (whitespace aside: highlighting splits lines)."
    text = re.sub(r"\s", "", text_of(GUIDE_PAGE.read_text(encoding="utf-8")))
    example = ROOT / "tests" / "example_plugin"
    for path in (example / "pyproject.toml", example / "src" / "ndcg_nb_example" / "__init__.py"):
        for line in path.read_text().splitlines():
            assert re.sub(r"\s", "", line) in text, f"{path.name} line missing from the plugin guide: {line!r}"
    assert "[project.entry-points.ndcg_nb]example=\"ndcg_nb_example\"" in text


# -- (b) no page links to a missing file ------------------------------------------------------------

def test_docs_were_built():
    names = {p.relative_to(DOCS).as_posix() for p in built_pages()}
    assert {"index.html", "search.html", "core.html", "plugin_guide.html", "conventions.html"} <= names, names
    assert (DOCS / ".nojekyll").exists(), "GitHub Pages needs docs/.nojekyll to serve _static/"


def test_no_page_links_to_a_missing_file_or_anchor():
    broken = []
    for page in built_pages():
        for link in parse(page).links:
            url = urllib.parse.urlsplit(link)
            if url.scheme or link.startswith("//"):
                continue  # external
            target = page if not url.path else (page.parent / urllib.parse.unquote(url.path)).resolve()
            if url.path.endswith("/"):
                target = target / "index.html"
            if not target.is_file() or DOCS.resolve() not in target.resolve().parents:
                broken.append(f"{page.relative_to(DOCS)}: {link} (no such file)")
            elif url.fragment and target.suffix == ".html" and url.fragment not in parse(target).ids:
                broken.append(f"{page.relative_to(DOCS)}: {link} (no anchor #{url.fragment})")
    assert not broken, "broken links:\n" + "\n".join(broken)


SOURCE_BUTTON = re.compile(r'<div class="(view|edit)-this-page">\s*<a [^>]*href="([^"]+)"')


def source_buttons(html: str) -> dict[str, str]:
    "Furo's 'view this page' and 'edit this page' buttons of a page: {'view': href, 'edit': href}."
    return {kind: href for kind, href in SOURCE_BUTTON.findall(html)}


def repository_file(url: str) -> str | None:
    "The file a link to the project's repository names, from the repository root (None for any other link)."
    settings = configparser.ConfigParser(delimiters=["="])
    settings.read(ROOT / "settings.ini", encoding="utf-8")
    repo, branch = settings["DEFAULT"]["git_url"].rstrip("/"), settings["DEFAULT"]["branch"]
    m = re.match(rf"{re.escape(repo)}/(?:blob|edit)/{re.escape(branch)}/([^?#]+)", url)
    return urllib.parse.unquote(m.group(1)) if m else None


def test_view_and_edit_buttons_name_the_page_notebook():
    """Every page built from a notebook has both buttons, on the notebook it came from (core.html: nbs/30_core.ipynb,
    a name the page does not keep), and every link into the repository names a file that exists."""
    missing, seen = [], 0
    for page in built_pages():
        html = page.read_text(encoding="utf-8")
        buttons = source_buttons(html)
        if page.name not in ("search.html", "genindex.html"):
            assert set(buttons) == {"view", "edit"}, f"{page.relative_to(DOCS)}: buttons {buttons}"
        for url in re.findall(r'href="([^"]+)"', html):
            path = repository_file(url)
            if path is not None:
                seen += 1
                if not (ROOT / path).is_file():
                    missing.append(f"{page.relative_to(DOCS)}: {url}")
    assert seen and not missing, "links to files the repository does not have:\n" + "\n".join(missing)
    assert repository_file(source_buttons((DOCS / "core.html").read_text(encoding="utf-8"))["view"]) == "nbs/30_core.ipynb"


def test_source_button_check_on_a_synthetic_page():
    "The parsing above, on Furo's markup, with a link to a notebook that does not exist."
    settings = configparser.ConfigParser(delimiters=["="])
    settings.read(ROOT / "settings.ini", encoding="utf-8")
    repo = settings["DEFAULT"]["git_url"].rstrip("/") + "/blob/" + settings["DEFAULT"]["branch"]
    page = (f'<div class="view-this-page">\n  <a class="muted-link" href="{repo}/nbs/core.ipynb" title="View">'
            '</a></div><div class="edit-this-page"><a class="muted-link" href="https://x/edit" rel="edit"></a></div>')
    assert source_buttons(page) == {"view": f"{repo}/nbs/core.ipynb", "edit": "https://x/edit"}
    assert repository_file(f"{repo}/nbs/core.ipynb?plain=true") == "nbs/core.ipynb"
    assert not (ROOT / "nbs/core.ipynb").is_file() and repository_file("https://github.com/pradyunsg/furo") is None


def test_no_asset_is_duplicated():
    "Each image or static file is stored once, however many pages use it."
    seen: dict[bytes, Path] = {}
    duplicates = []
    for path in sorted(DOCS.rglob("*")):
        if path.is_file() and path.suffix in (".png", ".jpg", ".svg", ".css", ".js") and path.stat().st_size > 1024:
            data = path.read_bytes()
            if data in seen:
                duplicates.append(f"{path.relative_to(DOCS)} == {seen[data].relative_to(DOCS)}")
            seen.setdefault(data, path)
    assert not duplicates, duplicates
    for page in built_pages():
        assert "data:image/png;base64" not in page.read_text(encoding="utf-8"), f"{page.name} inlines an image"


# -- (c) headless Chromium ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site_url():
    "docs/ served over http on 127.0.0.1 (a free port), for the length of this module."
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(DOCS)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and CHROMEDRIVER):
        reason = "Debian's chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)"
        if IN_CI:
            pytest.fail(f"CI must run the browser test: {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    profile = tempfile.mkdtemp(prefix="ndcg_nb-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1300,1000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    ARTIFACTS.mkdir(exist_ok=True)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def screenshot(driver, name: str):
    "A screenshot of the whole page (the window is stretched to the page's height)."
    height = driver.execute_script("return Math.min(document.documentElement.scrollHeight, 8000)")
    driver.set_window_size(1300, max(height, 800))
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))
    driver.set_window_size(1300, 1000)


def tutorial_page() -> str:
    "The first tutorial in the sidebar."
    index = (DOCS / "index.html").read_text(encoding="utf-8")
    tutorials = re.findall(r'href="(tutorials/[^"#]+\.html)"', index)
    assert tutorials, "the site has no tutorial: nbs/tutorials/ should hold at least one notebook"
    return tutorials[0]


def load(driver, url: str):
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(url)
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")


def check_page(driver, url: str, name: str) -> int:
    "Open `url`: no console error, every output image loaded and visible; return the plot count."
    load(driver, url)
    assert driver.title, f"{url} has no title"
    images = driver.execute_script("""
        return Array.from(document.querySelectorAll('.cell_output img')).map(img => {
            const box = img.getBoundingClientRect();
            return {src: img.currentSrc, complete: img.complete, w: img.naturalWidth, h: img.naturalHeight,
                    shown: box.width > 0 && box.height > 0 && getComputedStyle(img).visibility !== 'hidden'};
        });""")
    for img in images:
        assert img["complete"] and img["w"] > 0 and img["h"] > 0, f"{url}: image not loaded: {img}"
        assert img["shown"], f"{url}: image not visible: {img}"
    screenshot(driver, name)
    errors = console_errors(driver)
    assert not errors, f"{url}: console errors:\n" + "\n".join(errors)
    return len(images)


def sidebar_links(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.sidebar-tree a.reference')).map(a => a.href)")


def test_home_and_tutorial_in_chromium(browser, site_url):
    plots = check_page(browser, site_url + "index.html", "home")
    tutorial = tutorial_page()
    plots += check_page(browser, site_url + tutorial, "tutorial")
    assert plots > 0, "neither the home page nor the tutorial shows a plot"

    links = sidebar_links(browser)
    pages = {p.relative_to(DOCS).as_posix() for p in built_pages()} - {"search.html", "genindex.html"}
    linked = {urllib.parse.urlsplit(link).path.lstrip("/") for link in links}
    assert pages <= linked | {"index.html"}, f"pages missing from the sidebar: {sorted(pages - linked)}"
    for link in links:
        with urllib.request.urlopen(link, timeout=10) as response:
            assert response.status == 200, link
    # a sidebar link followed by a click lands on its page
    first = browser.find_elements("css selector", ".sidebar-tree a.reference")[0]
    href = first.get_attribute("href")
    first.click()
    assert browser.current_url.split("#")[0] == href.split("#")[0]


def _search_results(driver) -> list[str]:
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, 30).until(lambda d: d.execute_script(
        "const s = document.querySelector('#search-results');"
        "return s && (s.querySelectorAll('li').length > 0 || /did not match|no results/i.test(s.textContent))"))
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#search-results li a')).map(a => a.href)")


def test_search_box_finds_idcg(browser, site_url):
    load(browser, site_url + "index.html")
    box = browser.find_element("css selector", "form.sidebar-search-container input[name=q]")
    box.send_keys("IDCG")
    box.submit()
    results = _search_results(browser)
    screenshot(browser, "search-IDCG")
    assert results, "searching for IDCG found nothing"
    assert any("core.html" in r for r in results), results
    for link in results:
        with urllib.request.urlopen(link, timeout=10) as response:
            assert response.status == 200, link
    errors = console_errors(browser)
    assert not errors, "console errors on the search page:\n" + "\n".join(errors)


def test_search_works_from_file_urls(browser):
    "Opened straight from disk (file://), without a server, search still works."
    load(browser, (DOCS / "search.html").as_uri() + "?q=IDCG")
    assert _search_results(browser), "search from file:// found nothing"
