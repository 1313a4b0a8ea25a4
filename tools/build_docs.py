"""Build the documentation site from the notebooks in nbs/ into docs/, offline (no Quarto).

Usage: python tools/build_docs.py [--jobs N] [--keep-build] [--out DIR] [--report FILE]

Steps, for every notebook under nbs/ (recursively; names starting with "_" or "." skipped):
1. execute it top to bottom in a fresh interpreter, as nbdev's test runner does (cells marked
   `#| eval: false` or with a flag from `tst_flags` are not run), so tables and plots appear;
2. in that same interpreter, process it with nbdev's own notebook processors, as `nbdev_docs`
   would before Quarto:
   `#| hide` and `#| export` cells are dropped, `show_doc` entries are added for exported
   names and rendered, the title cell becomes front matter, backticked names are linked (a
   name several modules define, to the one `import ndcg_nb` offers: see `preferred_targets`);
3. turn nbdev's Quarto conventions into what MyST-NB understands (cell options become tags,
   `show_doc` output becomes markdown with nbdev's anchors, links to the published site
   become relative, a link nbdev put inside a link or an RST literal is undone), and write it under the page name nbdev/Quarto would use
   (`30_core.ipynb` -> `core.html`, `tutorials/01_x.ipynb` -> `tutorials/x.html`).
   A local image a markdown cell shows (`![alt](shot.png)`, beside the notebook) is copied beside the page.
Then Sphinx with MyST-NB and the Furo theme renders the pages (tools/docs_sphinx/conf.py), each page's "view"
and "edit" buttons pointing at the notebook it came from (`source_notebooks.json`, written beside the pages),
and docs/ is replaced by the result. The sidebar lists: home (nbs/index.ipynb), tutorials
(nbs/tutorials/), guides (top-level notebooks without `default_exp`) and the API reference
(top-level notebooks with `default_exp`) in one section per subpackage, each in file-name order.

Any notebook that fails to execute or render stops the build with its name and error; docs/
is left untouched then.

`--out DIR` builds the same site into DIR instead of docs/ (DIR is replaced; it must be empty,
missing, or an earlier build). `--report FILE` writes, whether the build succeeds or not, a JSON
record of it: `{"notebooks": {"30_core.ipynb": null or its error, ...}, "error": null or why the
build stopped}`. tests/test_notebooks.py uses both: it builds into a temporary folder, gives one
pytest result per notebook from the report, and compares the built site with docs/, so the
test suite runs every notebook exactly once.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPHINX_CONF_DIR = ROOT / "tools" / "docs_sphinx"

# sidebar order, after the home page: the API reference comes in one section per layer of the package, the
# notebooks exporting a subpackage's modules (`#| default_exp engine.scoring`) under its caption
API_SECTIONS = {"": "API: plugins and front door", "metrics": "API: metrics on lists",
                "families": "API: measure families", "engine": "API: engine", "analysis": "API: analysis",
                "integrations": "API: integrations", "cli": "API: command line"}
SECTIONS = ("Tutorials", "Guides", *API_SECTIONS.values())
_DIRECTIVE = re.compile(r"^\s*#\|\s*([\w-]+)\s*:?\s*(.*?)\s*$")


class BuildError(Exception):
    "The build stopped; `failures` maps each notebook that failed to run or render to its error."

    def __init__(self, message: str, pages: list | None = None, failures: dict | None = None):
        super().__init__(message)
        self.pages, self.failures = pages or [], failures or {}


@dataclass
class Page:
    source: Path  # the notebook in nbs/
    docname: str  # page path without suffix, relative to the site root: "core", "tutorials/x"
    section: str | None  # sidebar caption; None for the home page


def _config():
    from nbdev.config import get_config
    return get_config()


def _page_name(notebook: Path) -> str:
    "nbdev/Quarto's page name: the file name without its numeric prefix, as in `03_core` -> `core`, `39f_read_parquet` -> `read_parquet`."
    return re.sub(r"^\d+[a-z]?[_-]", "", notebook.stem)


def _default_exp(notebook: Path) -> str | None:
    "The module a notebook exports (`#| default_exp`), or None for a guide."
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for c in cells:
        found = re.search(r"^#\|\s*default_exp\s+(\S+)", "".join(c["source"]), re.M) if c["cell_type"] == "code" else None
        if found:
            return found.group(1)
    return None


def _api_section(module: str) -> str:
    "The sidebar caption of a module's page: its subpackage's, or the top level's."
    package = module.rpartition(".")[0]
    return API_SECTIONS.get(package, API_SECTIONS[""])


def discover(nbs: Path) -> list[Page]:
    "Every notebook under `nbs`, home page first, then by section and file name."
    pages = []
    for nb in sorted(nbs.rglob("*.ipynb")):
        rel = nb.relative_to(nbs)
        if any(part.startswith(("_", ".")) for part in rel.parts) or ".ipynb_checkpoints" in rel.parts:
            continue
        docname = "/".join([*rel.parent.parts, _page_name(nb)])
        if docname == "index":
            section = None
        elif rel.parent.parts:
            section = "Tutorials" if rel.parts[0] == "tutorials" else rel.parts[0].replace("_", " ").capitalize()
        else:
            module = _default_exp(nb)
            section = _api_section(module) if module else "Guides"
        pages.append(Page(nb, docname, section))
    seen: dict[str, Path] = {}
    for p in pages:
        if p.docname in seen:
            raise BuildError(f"build_docs: {seen[p.docname]} and {p.source} would both become {p.docname}.html")
        seen[p.docname] = p.source
    if "index" not in seen:
        raise BuildError("build_docs: nbs/index.ipynb (the home page) is missing")
    order = {None: -1, **{s: i for i, s in enumerate(SECTIONS)}}
    return sorted(pages, key=lambda p: (order.get(p.section, len(SECTIONS)), p.section or "", p.source.name))


# -- steps 1 and 2, in a fresh process per notebook (spawned, one task per process) -------------

def execute_and_process(task: tuple[str, str, list[str]]) -> str | None:
    """Run notebook `src` top to bottom, then apply nbdev's docs processors; save the result to `dst`.

    Runs as nbdev's test runner does (same skipped cells). nbdev's processors are used as
    `nbdev_proc_nbs` uses them, except that `show_doc` cells are evaluated in the shell that
    just ran the notebook, instead of nbdev re-running the notebook's import cells in a new
    one: every name the notebook defined is there, whatever cell defined it.
    """
    src, dst, skip_flags = Path(task[0]), Path(task[1]), set(task[2])
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    os.environ["IN_TEST"] = "1"  # as nbdev's test runner sets it (nbdev's export functions then write nothing)
    # a Dask cluster's dashboard on a free port: with the default 8787 taken (a dashboard already open), Dask
    # prints a warning into the page and the site would no longer be the same on every machine
    os.environ.setdefault("DASK_DISTRIBUTED__SCHEDULER__DASHBOARD__ADDRESS", ":0")
    sys.path.insert(0, str(ROOT))  # as nbdev's runner does: this checkout's package, whatever is installed
    # and in the processes a notebook starts (a plugin guide's `python -c`), not the installed one
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    warnings.filterwarnings("ignore", message="Found cells containing imports and other code")
    from execnb.nbio import read_nb, write_nb
    from execnb.shell import CaptureShell
    from nbdev.process import NBProcessor, Processor
    from nbdev.processors import FilterDefaults, _is_showdoc, exec_show_docs

    nb = read_nb(src)

    def no_eval(cell):
        if cell.cell_type != "code" or "nbdev_export(" in cell.source:
            return True
        options, _ = _directives(cell.source)
        return options.get("eval", "").lower() == "false" or bool(skip_flags & options.keys())

    shell = CaptureShell(src, mpl_format="png")
    os.chdir(src.parent)  # notebooks use paths relative to their folder, as under nbdev_test
    try:
        shell.run_all(nb, exc_stop=True, preproc=no_eval)
    except Exception:
        return f"{src}: execution failed\n{shell.prettytb(fname=src)}"
    shell.run_cell("from nbdev.showdoc import show_doc")

    class show_docs_in_shell(Processor):
        "Evaluate the `show_doc` cells (the notebook's and those nbdev added) in the notebook's shell."
        def cell(self, cell):
            if cell.cell_type == "code" and _is_showdoc(cell):
                shell.cell(cell)
                if shell.exc:
                    raise RuntimeError(f"cell {cell.idx_}:\n{cell.source}") from shell.exc

    _prefer_top_level_names()
    procs = [show_docs_in_shell if p is exec_show_docs else p for p in FilterDefaults().procs()]
    try:
        NBProcessor(nb=nb, procs=procs).process()
    except Exception:
        return f"{src}: nbdev processing failed\n{traceback.format_exc()}"
    dst.parent.mkdir(parents=True, exist_ok=True)
    write_nb(nb, dst)
    return None


def preferred_targets(syms: dict, top_level: dict[str, str]) -> dict:
    """Where a backticked bare name should link when several modules define it.

    nbdev's lookup (`nbdev.doclinks`) gives a bare name to the first module in alphabetical order,
    so `evaluate` linked to `distributed.evaluate`, the Dask function, on every page. A bare name
    the package exports at its top level means what `from <package> import name` gives
    (`top_level`: name -> module); other names keep nbdev's choice. `syms` is nbdev's table (full
    and bare names -> link); returns the bare names to change."""
    return {name: syms[f"{module}.{name}"] for name, module in top_level.items() if f"{module}.{name}" in syms}


def _prefer_top_level_names() -> None:
    "Apply `preferred_targets` to nbdev's (cached) lookup table."
    import importlib
    from nbdev.doclinks import NbdevLookup
    lib = _config().lib_name
    package = importlib.import_module(lib)
    top_level = {}
    for name in getattr(package, "__all__", []):
        module = getattr(getattr(package, name, None), "__module__", None)
        if module and module.startswith(lib + "."):
            top_level[name] = module
    syms = NbdevLookup().syms     # nbdev's table, cached: the one its processors look names up in
    syms.update(preferred_targets(syms, top_level))


def _send_result(func, task, connection) -> None:
    connection.send(func(task))
    connection.close()


def _in_fresh_process(func, task) -> str | None:
    """`func(task)` in a fresh spawned interpreter, an ordinary (not daemonic) process, so that a notebook may start
    processes of its own (a data loader's workers, a local Dask cluster); a process that dies without an answer
    gives an error naming its task."""
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_send_result, args=(func, task, send))
    process.start()
    send.close()
    try:
        result = receive.recv()
    except EOFError:
        result = None
    process.join()
    if result is None and process.exitcode != 0:
        return f"{task[0]}: the process running it stopped with exit code {process.exitcode}"
    return result


def _run_tasks(func, tasks, jobs: int) -> list[str | None]:
    "`func` of each task, in task order, each in a fresh spawned interpreter, `jobs` at a time."
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(lambda task: _in_fresh_process(func, task), tasks))


# -- step 3: from nbdev's Quarto flavour to MyST-NB ------------------------------------------

def _directives(source: str) -> tuple[dict[str, str], str]:
    "Split a code cell into its `#|` options and the code without them."
    options, code = {}, []
    for line in source.splitlines():
        m = _DIRECTIVE.match(line)
        if m and not code:
            options[m.group(1)] = m.group(2)
        else:
            code.append(line)
    return options, "\n".join(code).strip("\n")


def _relative_prefix(docname: str) -> str:
    return "../" * docname.count("/")


_NB_LINK = re.compile(r"\]\((?![a-z]+:)([^)\s#]+\.ipynb)(#[^)\s]*)?\)")


def _notebook_links(text: str, page: Page, nbs: Path) -> str:
    "Markdown links to notebooks, `[x](30_core.ipynb#ndcg)`, point at their pages, as Quarto makes them."
    def page_link(m):
        target = (page.source.parent / m.group(1)).resolve()
        if nbs.resolve() not in target.parents:
            return m.group(0)
        rel = target.relative_to(nbs.resolve())
        html = "/".join([*rel.parent.parts, _page_name(target)]) + ".html"
        return f"]({_relative_prefix(page.docname)}{html}{m.group(2) or ''})"
    return _NB_LINK.sub(page_link, text)


# nbdev links every backticked name it knows, even where the name is already something else:
_LINK_IN_LITERAL = re.compile(r"``?(\[`[^`\s]+`\]\([^)\s]+\))``?")   # ``name`` -> `[`name`](url)`
_LINK_IN_LINK = re.compile(r"\[\[(`[^`\s]+`)\]\([^)\s]+\)\]\(([^)\s]+)\)")  # [`name`](#x) -> [[`name`](url)](#x)


def _fix_links(text: str, prefix: str, site_url: str) -> str:
    """Links to the published site become relative; nbdev's broken `#LNone` line anchors go; a link nbdev put
    inside an RST ``literal`` replaces the literal, and one it put inside the text of a link goes (the
    author's link stays), so that neither shows as raw Markdown on the page."""
    text = text.replace(site_url, prefix)
    text = _LINK_IN_LITERAL.sub(r"\1", text)
    text = _LINK_IN_LINK.sub(r"[\1](\2)", text)
    return re.sub(r"#LNone\b", "", text)


def _show_doc_markdown(markdown: str, prefix: str, site_url: str) -> str:
    "nbdev's `show_doc` output as MyST markdown, with the anchor nbdev's links use."
    from docutils.nodes import make_id
    md = _fix_links(markdown, prefix, site_url)
    md = re.sub(r"^\s*---\s*\n", "", md)  # Quarto's rule before each entry; CSS draws it instead
    md = re.sub(r"\[source\]\(([^)]*)\)\{[^}]*\}",
                r'<a class="nbdev-source" href="\1" target="_blank" rel="noopener">source</a>', md)

    def anchor(m):
        title = m.group(2).strip()
        nbdev_id = title.lower()
        extra = "" if make_id(title) == nbdev_id else f'<span id="{nbdev_id}"></span>\n\n'
        return f"{extra}{m.group(1)} {title}"
    return re.sub(r"^(#{2,6})\s+(.+)$", anchor, md, flags=re.M)


def _front_matter(cell) -> dict:
    import yaml
    text = cell["source"].strip()
    return yaml.safe_load(text.strip("-").strip()) or {}


_TABLE_CELL = re.compile(r"(<t[hd]\b[^>]*>)([^<]*[_.][^<]*)(</t[hd]>)")
_NAME_JOINT = re.compile(r"(_|\.(?=[A-Za-z]))")   # `discounted_gain`, `ndcg_nb.evaluate`; not `0.25`


def header_breaks(html: str) -> str:
    """The cells of a table (pandas' `<th>` and `<td>`) may break after each `_` of a name, and after a `.` followed by a
    letter (`discounted_<wbr>gain`, `ndcg_nb.<wbr>evaluate`), never inside a number, so a table of long names fits the
    text column instead of scrolling sideways; what a cell reads is unchanged."""
    return _TABLE_CELL.sub(lambda m: m.group(1) + _NAME_JOINT.sub(r"\1<wbr>", m.group(2)) + m.group(3), html)


def to_myst(nb: dict, page: Page, site_url: str, nbs: Path) -> dict:
    "nbdev-processed notebook -> notebook for MyST-NB."
    prefix = _relative_prefix(page.docname)
    cells = []
    for cell in nb["cells"]:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "raw" and source.lstrip().startswith("---"):
            fm = _front_matter({"source": source})
            title = fm.get("title") or page.docname
            head = f"# {title}"
            if fm.get("description"):
                head += "\n\n> " + " ".join(str(fm["description"]).split())
            cells.append({"cell_type": "markdown", "metadata": {}, "source": head})
            continue
        if cell["cell_type"] == "markdown":
            if source.strip().startswith("<!-- WARNING: THIS FILE WAS AUTOGENERATED"):
                continue
            source = _notebook_links(_fix_links(source, prefix, site_url), page, nbs)
            cells.append({"cell_type": "markdown", "metadata": {}, "source": source})
            continue
        if cell["cell_type"] != "code":
            continue
        options, code = _directives(source)
        outputs = cell.get("outputs", [])
        if options.get("include") == "false":
            continue
        markdown_out = [o for o in outputs if "text/markdown" in o.get("data", {})]
        if options.get("output") == "asis" and markdown_out:  # a show_doc entry
            for o in markdown_out:
                md = o["data"]["text/markdown"]
                md = md if isinstance(md, str) else "".join(md)
                cells.append({"cell_type": "markdown", "metadata": {}, "source": _show_doc_markdown(md, prefix, site_url)})
            continue
        tags = []
        if options.get("echo") == "false":
            tags.append("remove-input")
        if options.get("output") == "false":
            tags.append("remove-output")
        if options.get("code-fold") in ("show", "true"):
            tags.append("hide-input")
        if not code and not outputs:
            continue
        for o in outputs:
            data = o.get("data", {})
            if "text/html" in data:
                html = data["text/html"]
                data["text/html"] = header_breaks(html if isinstance(html, str) else "".join(html))
            if "text/markdown" in data:
                md = data["text/markdown"]
                data["text/markdown"] = _fix_links(md if isinstance(md, str) else "".join(md), prefix, site_url)
        cells.append({"cell_type": "code", "execution_count": None, "metadata": {"tags": tags} if tags else {},
                      "source": code, "outputs": outputs})
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i}"  # stable ids: the same notebook gives the same page
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                                         "language_info": {"name": "python", "pygments_lexer": "ipython3"}},
            "nbformat": 4, "nbformat_minor": 5}


_MD_IMAGE = re.compile(r"!\[[^\]]*\]\((?![a-z]+:)([^)\s]+)\)")   # ![alt](shot.png): a local image


def copy_images(myst: dict, page: Page, dst: Path) -> None:
    "The local images the page's markdown shows, from beside its notebook to beside `dst`, where Sphinx looks."
    for cell in myst["cells"]:
        for image in _MD_IMAGE.findall(cell["source"]) if cell["cell_type"] == "markdown" else []:
            if (page.source.parent / image).is_file():  # a missing one is Sphinx's to report
                (dst.parent / image).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(page.source.parent / image, dst.parent / image)


def toctree(pages: list[Page]) -> str:
    "Hidden toctrees, one per sidebar section, appended to the home page."
    blocks = []
    for section in dict.fromkeys(p.section for p in pages if p.section):
        entries = "\n".join(p.docname for p in pages if p.section == section)
        blocks.append(f"```{{toctree}}\n:hidden:\n:caption: {section}\n\n{entries}\n```")
    return "\n\n".join(blocks)


# -- the build ---------------------------------------------------------------------------------

def _shown(path: Path) -> str:
    "`path` relative to the project when it is inside it (docs/), else as given."
    try:
        return path.resolve().relative_to(ROOT).as_posix() + "/"
    except ValueError:
        return str(path)


def _check_replaceable(out: Path) -> None:
    "`out` is about to be replaced: refuse a folder that is neither empty nor an earlier build."
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / ".nojekyll").exists())):
        raise BuildError(f"build_docs: {out} exists and is not an earlier build (no .nojekyll); not replacing it")


def write_source_map(pages: list[Page], path: Path) -> None:
    """Each page's notebook, as a path from the repository root (`{"core": "nbs/30_core.ipynb"}`), for the "view" and
    "edit" buttons (tools/docs_sphinx/conf.py); a notebook outside the repository gets no entry, hence no buttons."""
    sources = {}
    for p in pages:
        try:
            sources[p.docname] = p.source.resolve().relative_to(ROOT).as_posix()
        except ValueError:
            continue
    path.write_text(json.dumps(sources, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def build(out: Path, jobs: int, keep_build: bool = False) -> list[Page]:
    "Build the site into `out` (replaced); raise `BuildError` and leave `out` untouched if anything fails."
    cfg = _config()
    nbs = Path(cfg.nbs_path)
    skip_flags = cfg.get("tst_flags", "").split()
    site_url = (cfg.doc_host.rstrip("/") + "/" + cfg.doc_baseurl.strip("/") + "/") if cfg.get("doc_host") else "\0"
    _check_replaceable(out)
    pages = discover(nbs)
    work = Path(tempfile.mkdtemp(prefix="ndcg_nb-docs-"))
    processed, source, html = (work / d for d in ("processed", "source", "html"))
    t0 = time.time()
    print(f"build_docs: {len(pages)} notebooks, {jobs} jobs, work dir {work}", flush=True)

    errors = _run_tasks(execute_and_process,
                        [(str(p.source.resolve()), str(processed / f"{p.docname}.ipynb"), skip_flags) for p in pages], jobs)
    failures = {p.source: e for p, e in zip(pages, errors) if e}
    if failures:
        if not keep_build:
            shutil.rmtree(work)
        raise BuildError(f"build_docs: {len(failures)} notebook(s) failed; {_shown(out)} not touched.\n\n"
                         + "\n\n".join(failures.values()), pages, failures)
    print(f"build_docs: executed and processed with nbdev in {time.time() - t0:.0f}s", flush=True)

    for p in pages:
        nb = json.loads((processed / f"{p.docname}.ipynb").read_text(encoding="utf-8"))
        myst = to_myst(nb, p, site_url, nbs)
        if p.docname == "index":
            myst["cells"].append({"cell_type": "markdown", "id": "toctree", "metadata": {}, "source": toctree(pages)})
        dst = source / f"{p.docname}.ipynb"
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(json.dumps(myst, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        copy_images(myst, p, dst)

    write_source_map(pages, source / "source_notebooks.json")
    from sphinx.cmd.build import build_main
    warnings_file = work / "sphinx-warnings.txt"
    args = ["-b", "html", "-q", "-W", "--keep-going", "-c", str(SPHINX_CONF_DIR), "-d", str(work / "doctrees"),
            "-w", str(warnings_file), "-j", str(jobs), str(source), str(html)]
    if build_main(args) != 0:
        reported = warnings_file.read_text(encoding="utf-8").strip() if warnings_file.exists() else "(see above)"
        raise BuildError(f"build_docs: Sphinx reported errors; {_shown(out)} not touched. Sources: {source}\n{reported}",
                         pages)
    for leftover in (".buildinfo", ".buildinfo.bak"):  # Sphinx's rebuild bookkeeping, not part of the site
        (html / leftover).unlink(missing_ok=True)
    for folder in sorted(html.rglob("*"), reverse=True):  # e.g. an empty _sources/
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(html, out)
    print(f"build_docs: wrote {out} in {time.time() - t0:.0f}s", flush=True)
    if not keep_build:
        shutil.rmtree(work)
    return pages


def write_report(path: Path, nbs: Path, pages: list[Page], failures: dict, error: str | None) -> None:
    "The JSON record of a build: each notebook (path under nbs/) with its error or null, and the build's error."
    notebooks = {p.source.resolve().relative_to(nbs.resolve()).as_posix(): failures.get(p.source) for p in pages}
    path.write_text(json.dumps({"notebooks": notebooks, "error": error}, indent=1) + "\n", encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="notebooks run in parallel")
    parser.add_argument("--keep-build", action="store_true", help="keep the intermediate notebooks (path printed)")
    parser.add_argument("--out", type=Path, help="build into this folder (replaced) instead of the docs folder")
    parser.add_argument("--report", type=Path, help="write a JSON record of the build (each notebook's error) here")
    args = parser.parse_args(argv)
    out, report = (p.resolve() if p else None for p in (args.out, args.report))
    os.chdir(ROOT)
    cfg = _config()
    docs = ROOT / cfg.doc_path.name if Path(cfg.doc_path).is_absolute() else ROOT / cfg.doc_path
    out = out or docs
    try:
        pages, failures, error = build(out, args.jobs, args.keep_build), {}, None
    except BuildError as stop:
        pages, failures, error = stop.pages, stop.failures, str(stop)
    if report:
        write_report(report, Path(cfg.nbs_path), pages, failures, error)
    if error:
        sys.exit(error)


if __name__ == "__main__":
    main()
