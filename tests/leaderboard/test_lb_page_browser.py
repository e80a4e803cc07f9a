"""The page as a person uses it, in a real browser (Selenium driving Debian's chromium through
Debian's chromedriver, passed explicitly: nothing is downloaded), at 1440 px and on a 390 px phone:

- no two text labels of the visible plot overlap (``getBBox()`` of every ``<text>``, mapped to the
  SVG's coordinates), and the browser logs no error;
- keyboard sorting: Tab to a header's button, Enter: rows best first, ``aria-sort`` says so;
- the failure browser pages (the next page shows other rows), searches by id and by words, and
  highlights the words a candidate changed, its files loaded when picked, both with the page opened
  from a ``file://`` path and served by ``python -m http.server``; a click in a heatmap opens that
  submission and category in it;
- the page built from the committed results (leaderboard/results) passes the same checks, weighs at
  most 1.0 MB (the explorer's data is in explore/, beside it) and is byte-identical when built twice.
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from browser_helpers import SETTLED, http_server, settle, severe
from lb_helpers import board_env, five_text_items, nearmiss_results, retrieval_results, save, save_scored

from harness.leaderboard.collect import build
from harness.leaderboard.render import write_all
from harness.submissions import Registry
from harness.suites.registry import shipped_suites

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "leaderboard" / "results"
WIDTHS = (1440, 390)
# The explorer's texts and per-item scores are in explore/ beside the page (loaded when picked); the page
# keeps the tables, the plots and the heatmaps: 20 ranked rows and 14 controls weigh about 0.4 MB.
MAX_PAGE = 1_000_000

# A board that crowds the plot and fills the failure browser: 30 five-text items; alpha gets every
# comparison wrong (120 rows: five pages of 25), beta those of every third item, gamma none.
N_ITEMS = 30
RIGHT = (0.9, 0.8, 0.3, 0.2)  # s(anchor, x) for pos_close, pos_far, neg_close, neg_far
WRONG = (0.2, 0.1, 0.8, 0.9)
CROWD = {f"m{i}": (0.501 + 0.002 * i, 0.60 + 0.0015 * (i % 4)) for i in range(8)}  # eight points close together


def item(i: int) -> dict:
    cat = "negation" if i % 2 == 0 else "role_swap"
    return {
        "id": f"it-{i:02d}",
        "category": cat,
        "split": "test",
        "anchor": f"The cat number {i} sat on the mat.",
        "pos_close": f"The cat number {i} sat on the rug.",
        "pos_far": f"On the mat sat the cat number {i}.",
        "neg_close": f"The cat number {i} did not sit on the mat.",
        "neg_far": f"On the mat the cat number {i} never sat.",
    }


def write_board(root: Path, monkeypatch: pytest.MonkeyPatch, results: Path) -> None:
    suites = root / "suites"
    (suites / "nearmiss").mkdir(parents=True)
    with open(suites / "nearmiss" / "toy.jsonl", "w") as f:
        for i in range(N_ITEMS):
            f.write(json.dumps(item(i)) + "\n")
    (suites / "nearmiss.yaml").write_text(
        "name: nearmiss\ntype: nearmiss\nleaderboard: {role: composition, preference: 0, chance: 0.5, category_order: [negation, role_swap]}\n"
        "format: items-jsonl\nsplit: test\nfiles:\n  - {name: toy, path: nearmiss/toy.jsonl}\n"
    )
    (suites / "classic-ir.yaml").write_text(
        "name: classic-ir\ntype: beir\nleaderboard: {role: retrieval, preference: 1}\ndatasets:\n  - {name: medline, path: beir/medline}\n"
    )
    monkeypatch.setattr("harness.suites.registry.SUITES_DIR", suites)
    revisions = {ds: d.revision for ds, d in shipped_suites()["nearmiss"].shipped_data().items()}
    by_cat: dict[str, list[int]] = {"negation": [], "role_swap": []}
    for i in range(N_ITEMS):
        by_cat[item(i)["category"]].append(i)
    for name, ret, wrong in (("alpha", 0.56, lambda i: True), ("beta", 0.50, lambda i: i % 3 == 0), ("gamma", 0.44, lambda i: False)):
        save(results, retrieval_results(name, "classic-ir", {"medline": ret}))
        items = []
        for cat, ids in by_cat.items():
            items += five_text_items(cat, [f"it-{i:02d}" for i in ids], [WRONG if wrong(i) else RIGHT for i in ids])
        r = nearmiss_results(name, "nearmiss", 0.0, categories=list(by_cat))
        save_scored(results, r.model_copy(update={"metadata": r.metadata.model_copy(update={"dataset_revisions": revisions})}), items)
    for name, (ret, comp) in CROWD.items():
        save(results, retrieval_results(name, "classic-ir", {"medline": ret}))
        save(results, nearmiss_results(name, "nearmiss", comp, categories=list(by_cat)))
    save(results, nearmiss_results("ctl", "nearmiss", 0.52, categories=list(by_cat), kind="control"))


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        pytest.skip("chromium or chromedriver not installed (Debian: apt-get install -y chromium chromium-driver, or make browser-deps); browser test not run")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install -e '.[dev]'); browser test not run")
    from selenium.webdriver.chrome.service import Service

    mp = pytest.MonkeyPatch()
    mp.setenv("SE_OFFLINE", "true")  # Selenium Manager, should it run at all: no network
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    profile = tmp_path_factory.mktemp("profile")
    for arg in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
        "--hide-scrollbars", "--window-size=1440,1000", f"--user-data-dir={profile}",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(executable_path=chromedriver), options=opts)
    yield d
    d.quit()
    mp.undo()


def open_page(driver, page: Path | str, width: int) -> None:
    """Open ``page`` (a path: as file://; a str: that URL) and wait for the explorer's first files."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.set_window_size(width, 1000)
    driver.get(page.as_uri() if isinstance(page, Path) else page)
    WebDriverWait(driver, 30).until(lambda d: d.execute_script(SETTLED))
    assert driver.execute_script("return document.documentElement.clientWidth") <= width


# Every <text> of every rendered SVG: its getBBox(), mapped by getCTM() into the SVG's coordinates.
TEXT_BOXES = """
var out = [];
document.querySelectorAll("svg").forEach(function (svg) {
  var r = svg.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) { return; }
  var boxes = [];
  svg.querySelectorAll("text").forEach(function (t) {
    if (!t.textContent.trim()) { return; }
    var b = t.getBBox(), m = t.getCTM(), xs = [], ys = [];
    [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].forEach(function (p) {
      var q = svg.createSVGPoint();
      q.x = p[0]; q.y = p[1];
      q = q.matrixTransform(m);
      xs.push(q.x); ys.push(q.y);
    });
    boxes.push([t.textContent.trim(), Math.min.apply(null, xs), Math.min.apply(null, ys), Math.max.apply(null, xs), Math.max.apply(null, ys)]);
  });
  out.push({id: svg.parentNode.className, width: r.width, boxes: boxes});
});
return out;
"""


def overlapping_labels(driver) -> tuple[list[dict], list[tuple[str, str]]]:
    svgs = driver.execute_script(TEXT_BOXES)
    clashes = []
    for svg in svgs:
        boxes = svg["boxes"]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                if min(a[3], b[3]) - max(a[1], b[1]) > 0.5 and min(a[4], b[4]) - max(a[2], b[2]) > 0.5:
                    clashes.append((a[0], b[0]))
    return svgs, clashes


def check_plot(driver, width: int) -> list[dict]:
    svgs, clashes = overlapping_labels(driver)
    assert len(svgs) == 1, svgs  # one layout shown at a time
    assert svgs[0]["id"] == ("plot-wide" if width > 720 else "plot-narrow")
    assert svgs[0]["width"] > 0.8 * min(width, 1360) - 60  # the plot spans the page
    assert clashes == []
    return svgs


def rows_of(driver, table: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [tr.get_attribute("data-name") for tr in driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody:first-of-type tr")]


def fb_rows(driver, box: str) -> list[tuple[str, str]]:
    from selenium.webdriver.common.by import By

    return [(tr.get_attribute("data-item"), tr.get_attribute("data-comparison")) for tr in driver.find_elements(By.CSS_SELECTOR, f"#{box} tbody tr")]


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    """The crowded board, built once for the module: the browser tests only read the page."""
    tmp_path = tmp_path_factory.mktemp("board")
    with pytest.MonkeyPatch.context() as monkeypatch:
        subs, results = board_env(tmp_path, monkeypatch)
        write_board(tmp_path, monkeypatch, results)
        return write_all(build(results, Registry([subs]).all()), tmp_path / "board")[2]


@pytest.fixture(scope="module")
def served(page):
    """The board's folder served by python -m http.server: its base URL."""
    with http_server(page.parent) as base:
        yield base


@pytest.fixture(params=["file", "http"])
def page_url(request, page) -> Path | str:
    """The crowded board's page, opened from its path (file://) and from python -m http.server."""
    return page if request.param == "file" else request.getfixturevalue("served") + page.name


@pytest.mark.parametrize("width", WIDTHS)
def test_plot_labels_and_console(driver, page, width):
    open_page(driver, page, width)
    svgs = check_plot(driver, width)
    labels = {b[0] for b in svgs[0]["boxes"]}
    assert {"alpha", "m7"} <= labels  # the front is labelled
    assert severe(driver) == []


@pytest.mark.parametrize("width", WIDTHS)
def test_keyboard_sorting(driver, page, width):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    open_page(driver, page, width)
    ranked = rows_of(driver, "leaderboard")
    heads = driver.find_elements(By.CSS_SELECTOR, "#leaderboard thead tr.head th")
    keys = [h.get_attribute("data-key") for h in heads]
    assert heads[0].get_attribute("aria-sort") == "ascending" and ranked[0] == "gamma"  # rank order to start with
    driver.execute_script("arguments[0].focus()", heads[0].find_element(By.TAG_NAME, "button"))
    target = keys.index("classic-ir:ndcg@10")
    for _ in range(target):  # Tab from header to header
        ActionChains(driver).send_keys(Keys.TAB).perform()
    button = heads[target].find_element(By.TAG_NAME, "button")
    assert driver.switch_to.active_element == button
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    by_retrieval = sorted(ranked, key=lambda n: -({"alpha": 0.56, "beta": 0.50, "gamma": 0.44} | {m: p[0] for m, p in CROWD.items()})[n])
    assert rows_of(driver, "leaderboard") == by_retrieval  # best first on the first press
    assert heads[target].get_attribute("aria-sort") == "descending" and heads[0].get_attribute("aria-sort") == "none"
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    assert rows_of(driver, "leaderboard") == by_retrieval[::-1] and heads[target].get_attribute("aria-sort") == "ascending"
    heads[0].find_element(By.TAG_NAME, "button").click()  # rank: best first is rank 1 first
    assert rows_of(driver, "leaderboard") == ranked and heads[0].get_attribute("aria-sort") == "ascending"
    assert severe(driver) == []


def test_failure_browser_pages_searches_and_highlights(driver, page_url):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_page(driver, page_url, 1440)
    loaded = (
        "return Array.prototype.map.call(document.querySelectorAll('head script[src]'), "
        "function (s) { return s.getAttribute('src').split('?')[0]; }).sort()"
    )
    assert driver.execute_script(loaded) == ["explore/gamma.js", "explore/items/nearmiss.js"]  # the first pick's files, nothing else
    Select(driver.find_element(By.ID, "fb-sub")).select_by_value("alpha")
    settle(driver)
    assert driver.execute_script(loaded) == ["explore/alpha.js", "explore/gamma.js", "explore/items/nearmiss.js"]  # alpha's, when picked
    first = fb_rows(driver, "fb-wrong")
    assert len(first) == 25 and first[:4] == [("it-00", c) for c in ("close_close", "close_far", "far_close", "far_far")]
    assert driver.find_element(By.CSS_SELECTOR, "#fb-wrong .fb-page").text == "rows 1–25 of 120 (page 1 of 5)"
    driver.find_element(By.CSS_SELECTOR, "#fb-wrong .fb-next").click()
    second = fb_rows(driver, "fb-wrong")
    assert len(second) == 25 and not set(second) & set(first)
    assert driver.find_element(By.CSS_SELECTOR, "#fb-wrong .fb-page").text == "rows 26–50 of 120 (page 2 of 5)"
    # search by id, then by words
    search = driver.find_element(By.ID, "fb-search")
    search.send_keys("it-07")
    assert fb_rows(driver, "fb-wrong") == [("it-07", c) for c in ("close_close", "close_far", "far_close", "far_far")]
    assert driver.find_elements(By.CSS_SELECTOR, "#fb-wrong .fb-page") == []  # one page
    search.clear()
    search.send_keys("number 17 never")
    assert fb_rows(driver, "fb-wrong") == [("it-17", "close_far"), ("it-17", "far_far")]  # the neg_far comparisons
    # changed words highlighted: neg_far against the anchor "The cat number 17 sat on the mat."
    marks = [m.text for m in driver.find_elements(By.CSS_SELECTOR, "#fb-wrong tbody tr:first-child td.text mark")]
    assert marks == ["rug.", "On the mat", "never"]  # pos_close's "rug."; neg_far "On the mat the cat number 17 never sat."
    # a baseline: fixes and breaks page and search too
    search.clear()
    Select(driver.find_element(By.ID, "fb-sub")).select_by_value("gamma")
    Select(driver.find_element(By.ID, "fb-base")).select_by_value("beta")
    settle(driver)
    assert len(fb_rows(driver, "fb-fixed")) == 25 and "of 40" in driver.find_element(By.CSS_SELECTOR, "#fb-fixed .fb-page").text
    assert fb_rows(driver, "fb-broken") == []
    assert driver.find_element(By.ID, "fb-legend").text.startswith("close_close\ns(anchor, pos_close) vs s(anchor, neg_close)")
    assert severe(driver) == []


def test_a_click_in_a_heatmap_opens_the_failure_browser(driver, page_url):
    from selenium.webdriver.common.by import By

    open_page(driver, page_url, 1440)
    cell = driver.find_element(By.CSS_SELECTOR, '#heatmap-nearmiss tr[data-name="beta"] td:nth-of-type(2)')  # role_swap
    driver.execute_script("arguments[0].scrollIntoView()", cell)
    cell.click()
    settle(driver)
    picked = driver.execute_script(
        "return ['fb-sub', 'fb-suite', 'fb-cat'].map(function (id) { var s = document.getElementById(id); return s.options[s.selectedIndex].text; })"
    )
    assert picked == ["beta", "nearmiss", "role_swap"]
    assert driver.find_element(By.ID, "fb-summary").text == "beta on nearmiss / role_swap: wrong on 20 of 60 comparisons."  # it-01, it-03, ...: every third
    assert {item for item, _c in fb_rows(driver, "fb-wrong")} == {f"it-{i:02d}" for i in range(N_ITEMS) if i % 2 == 1 and i % 3 == 0}
    assert driver.find_elements(By.CSS_SELECTOR, 'table.heatmap tr.picked[data-name="beta"]')  # the row is marked
    hover = driver.find_element(By.CSS_SELECTOR, '#heatmap-nearmiss tr[data-name="alpha"] td')
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))", hover)
    assert hover.get_attribute("title").startswith("alpha · negation: triplet_accuracy 0.000 (chance band: ")
    assert severe(driver) == []


def test_a_file_from_another_build_or_none_is_refused_with_a_message(driver, page, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    copy = tmp_path / "copy"
    shutil.copytree(page.parent, copy)
    alpha = copy / "explore" / "alpha.js"
    text = alpha.read_text()
    fid = text.split('", "')[2]  # cbenchExplore("submission", "alpha", "<id>", "<block>")
    alpha.write_text(text.replace(fid, "0" * 16))  # as if left from another build
    (copy / "explore" / "beta.js").unlink()  # as if not copied
    for name, message in (("alpha", "explore/alpha.js is from another build than this page"), ("beta", "could not load explore/beta.js")):
        open_page(driver, copy / "index.html", 1440)
        Select(driver.find_element(By.ID, "fb-sub")).select_by_value(name)
        WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "failures").get_attribute("data-ready") == "error")
        assert message in driver.find_element(By.ID, "fb-summary").text
        driver.get_log("browser")  # the missing file's load error: expected


def test_copy_buttons_and_the_details_table(driver, page):
    from selenium.webdriver.common.by import By

    open_page(driver, page, 1440)
    button = driver.find_element(By.CSS_SELECTOR, '#leaderboard tr[data-name="alpha"] button.copy')
    assert button.is_displayed()
    # the board's submissions and results live in the test's folders, so the command names both
    words = shlex.split(button.get_attribute("data-copy"))
    assert words[:7] == ["cbench", "run", "--model", "alpha", "--suite", "classic-ir", "--suite"] and words[7] == "nearmiss"
    assert sorted(words[8::2]) == ["--results-dir", "--submissions-dir"]
    cell = driver.find_element(By.CSS_SELECTOR, '#leaderboard tr[data-name="alpha"] td.repro')
    assert cell.size["width"] < 200  # a button and a summary, not a 750 px command
    button.click()
    from selenium.webdriver.support.ui import WebDriverWait

    # the clipboard answers asynchronously; the label says so for 1.5 s
    WebDriverWait(driver, 5, poll_frequency=0.05).until(lambda d: button.text in ("copied", "select the command"))
    detail = driver.find_element(By.ID, "composition")
    assert not detail.is_displayed()  # behind <details>
    driver.find_element(By.CSS_SELECTOR, "#composition-detail > summary").click()
    assert detail.is_displayed()
    assert severe(driver) == []


# -- the page from the committed results ---------------------------------------------------------


@pytest.fixture(scope="module")
def committed(tmp_path_factory) -> tuple[Path, Path]:
    if not any(COMMITTED.glob("*/*.json")):
        pytest.skip(f"no committed results under {COMMITTED}")
    out = []
    for name in ("one", "two"):  # two builds from scratch
        out.append(write_all(build(COMMITTED, Registry().all()), tmp_path_factory.mktemp(name))[2])
    return out[0], out[1]


def test_committed_page_is_small_and_rebuilds_byte_identical(committed):
    one, two = committed
    assert one.stat().st_size <= MAX_PAGE, f"index.html is {one.stat().st_size:,} bytes"
    for name in ("index.html", "leaderboard.md", "leaderboard.csv", "tradeoff.svg"):
        assert (one.parent / name).read_bytes() == (two.parent / name).read_bytes(), name
    explore = sorted(p.relative_to(one.parent) for p in (one.parent / "explore").rglob("*.js"))
    assert explore == sorted(p.relative_to(two.parent) for p in (two.parent / "explore").rglob("*.js"))
    assert len(explore) > 1 and all((one.parent / p).read_bytes() == (two.parent / p).read_bytes() for p in explore)
    html = one.read_text()
    assert "superseded by nearmiss" in html  # nearmiss-v1's texts are not embedded


@pytest.mark.parametrize("width", WIDTHS)
def test_committed_page_in_the_browser(driver, committed, width):
    from selenium.webdriver.common.by import By

    open_page(driver, committed[0], width)
    check_plot(driver, width)
    assert driver.find_element(By.ID, "failures").get_attribute("data-ready") == "true"
    assert len(fb_rows(driver, "fb-wrong")) == 25  # paged
    assert severe(driver) == []


def test_committed_page_served_by_http_server(driver, committed):
    """Every submission in the failure browser and every reranker's tables, each file loaded when picked."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    with http_server(committed[0].parent) as base:
        open_page(driver, base + "index.html", 1440)
        subs = Select(driver.find_element(By.ID, "fb-sub"))
        for name in [o.get_attribute("value") for o in subs.options]:
            subs.select_by_value(name)
            settle(driver)
            summary = driver.find_element(By.ID, "fb-summary").text
            assert summary.startswith(f"{name} on ") and "wrong on" in summary, summary
        rr = driver.find_elements(By.CSS_SELECTOR, "#rr-pick option")
        assert rr, "no reranker on the committed board"
        for option in rr:
            Select(driver.find_element(By.ID, "rr-pick")).select_by_value(option.get_attribute("value"))
            settle(driver, "rr-box")
            shown = [d for d in driver.find_elements(By.CSS_SELECTOR, "div.rerank") if d.is_displayed()]
            assert len(shown) == 1
            if "reranks" in shown[0].text:  # not a note: both tables, from the reranker's file
                assert [h.text for h in shown[0].find_elements(By.CSS_SELECTOR, ".rr-tables h4")] == ["helped most", "hurt most"]
        assert severe(driver) == []
