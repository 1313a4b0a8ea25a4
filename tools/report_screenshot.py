"""Pictures of report pages, taken in headless Chromium: the picture of a report that the tutorial on comparing runs
and the page about the report (nbs/57_report_page.ipynb) show, and the browser that tests/test_report_page.py clicks
through a page with.

    python tools/report_screenshot.py                      # nbs/tutorials/report_screenshot.png, from the sample runs
    python tools/report_screenshot.py PAGE.html OUT.png    # any report page

Needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver), selenium and Pillow (both in
ndcg_nb's dev extra)."""
from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
import tempfile
from pathlib import Path

from ndcg_nb.files import write_whole

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL_PICTURE = ROOT / "nbs" / "tutorials" / "report_screenshot.png"


@contextlib.contextmanager
def headless_chromium(width: int = 1280, height: int = 1000):
    "A headless Chromium driven by selenium, its console log kept; it ends, and its profile goes, on leaving."
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and chromedriver):
        raise SystemExit("headless_chromium needs Chromium and chromedriver on the PATH "
                         "(Debian: apt-get install chromium chromium-driver)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise SystemExit("headless_chromium needs selenium (pip install selenium, or ndcg_nb's dev extra)") from None
    profile = tempfile.mkdtemp(prefix="ndcg_nb-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={profile}", f"--window-size={width},{height}", "--hide-scrollbars"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def palette_png(picture: bytes) -> bytes:
    "The PNG `picture` with a palette of 256 colours: a page has few, and the file shrinks to about a third."
    from PIL import Image
    with Image.open(io.BytesIO(picture)) as image:
        small = image.convert("RGB").quantize(colors=256)
    written = io.BytesIO()
    small.save(written, format="PNG", optimize=True)
    return written.getvalue()


def save_screenshot(page: str | Path, png: str | Path, *, open_queries: int = 1, width: int = 1200,
                    max_height: int = 2400) -> Path:
    "Open the report file `page` in headless Chromium, click its first `open_queries` queries open, save the page as `png`."
    page, png = Path(page).resolve(), Path(png)
    with headless_chromium(width) as driver:
        driver.get(page.as_uri())
        for row in driver.find_elements("css selector", "tr.query-row")[:open_queries]:
            row.click()
        driver.execute_script("window.scrollTo(0, 0)")
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(width, min(max(height, 600), max_height))
        picture = driver.get_screenshot_as_png()
    return write_whole(png, palette_png(picture))


def tutorial_page(folder: Path) -> Path:
    "The report of the tutorial on comparing runs: the sample runs A and B on ndcg_cut.10 and ndcg, as it makes it."
    from ndcg_nb.analysis.comparison import SAMPLE_RUN_B
    from ndcg_nb.analysis.report_page import report
    from ndcg_nb.engine.runs import SAMPLE_QRELS, SAMPLE_RUN
    return report(SAMPLE_QRELS, {"A": SAMPLE_RUN, "B": SAMPLE_RUN_B}, ["ndcg_cut.10", "ndcg"],
                  path=folder / "report.html")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", nargs="?", help="a report page (default: the tutorial's, made from the sample runs)")
    parser.add_argument("png", nargs="?", default=str(TUTORIAL_PICTURE), help="the picture to write")
    parser.add_argument("--open-queries", type=int, default=1, help="how many queries to click open (default: 1)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        page = Path(args.page) if args.page else tutorial_page(Path(folder))
        written = save_screenshot(page, args.png, open_queries=args.open_queries)
    print(f"wrote {written} ({written.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
