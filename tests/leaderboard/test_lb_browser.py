"""The explorer in a real browser: Selenium driving Debian's chromium through Debian's chromedriver
(passed explicitly: nothing is downloaded). Picks a submission, a category and a baseline in the
failure browser and a reranker, and reads back the rows the page shows for the tiny board of
explorer_fixture.py, each submission's file loaded when picked: the page opened from a ``file://``
path and served by ``python -m http.server``."""

from __future__ import annotations

import shutil

import pytest
from browser_helpers import SETTLED, http_server, settle, severe
from explorer_fixture import ITEMS, TRIPLETS, WRONG, write_board

from harness.leaderboard.collect import build
from harness.leaderboard.render import write_all
from harness.submissions import Registry


@pytest.fixture
def browser(tmp_path, monkeypatch):
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        pytest.skip("chromium or chromedriver not installed (Debian: apt-get install -y chromium chromium-driver); browser test not run")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install -e '.[dev]'); browser test not run")
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager, should it run at all: no network
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
        "--window-size=1400,1600", f"--user-data-dir={tmp_path / 'profile'}",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=opts)
    yield driver
    driver.quit()


def rows(driver, box: str) -> list[tuple[str, str]]:
    """(item, comparison) of each row in a failure-browser table."""
    from selenium.webdriver.common.by import By

    return [(tr.get_attribute("data-item"), tr.get_attribute("data-comparison")) for tr in driver.find_elements(By.CSS_SELECTOR, f"#{box} tbody tr")]


def pick(driver, select_id: str, *, value: str | None = None, text: str | None = None) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    sel = Select(driver.find_element(By.ID, select_id))
    if value is not None:
        sel.select_by_value(value)
    else:
        sel.select_by_visible_text(text)
    settle(driver, "rr-box" if select_id == "rr-pick" else "failures")


@pytest.mark.parametrize("how", ["file", "http"])
def test_failure_browser_in_chromium(browser, env, tmp_path, monkeypatch, how):
    subs, results = env
    write_board(tmp_path, monkeypatch, results)
    page = write_all(build(results, Registry([subs]).all()), tmp_path / "board")[2]
    if how == "file":
        browser.get(page.as_uri())
        _explore(browser, tmp_path)
    else:
        with http_server(page.parent) as base:
            browser.get(base + page.name)
            _explore(browser, tmp_path)


def _explore(browser, tmp_path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 30).until(lambda d: d.execute_script(SETTLED))  # the first pick's files loaded
    assert browser.find_element(By.ID, "failures").get_attribute("data-ready") == "true"
    assert severe(browser) == []

    # beta, negation: one comparison wrong (neg-2, far_far), with its three texts and two scores
    pick(browser, "fb-sub", value="beta")
    pick(browser, "fb-cat", text="negation")
    assert rows(browser, "fb-wrong") == [("neg-2", "far_far")]
    cells = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#fb-wrong tbody td")]
    _cat, anchor, _pc, pos_far, _nc, neg_far = ITEMS["neg-2"]
    s_pf, s_nf = WRONG["beta"]["neg-2"][1], WRONG["beta"]["neg-2"][3]
    assert cells == ["neg-2", "negation", "far_far", anchor, pos_far, neg_far, f"{s_pf:.4f}", f"{s_nf:.4f}"]
    assert browser.find_element(By.ID, "fb-summary").text == "beta on nearmiss / negation: wrong on 1 of 12 comparisons."
    assert "Pick a baseline" in browser.find_element(By.ID, "fb-fixed").text

    # against alpha: fixes alpha's neg-1 close_close, breaks neg-2 far_far (alpha's scores shown too)
    pick(browser, "fb-base", value="alpha")
    assert rows(browser, "fb-fixed") == [("neg-1", "close_close")]
    assert rows(browser, "fb-broken") == [("neg-2", "far_far")]
    broken = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#fb-broken tbody td")]
    assert broken[-2:] == ["0.8000", "0.2000"]  # alpha's s(anchor, pos_far), s(anchor, neg_far): right

    # every category: role-2's four comparisons first (the suite's category order), then negation's
    pick(browser, "fb-cat", text="all categories")
    assert rows(browser, "fb-wrong") == [("role-2", c) for c in ("close_close", "close_far", "far_close", "far_far")] + [("neg-2", "far_far")]
    browser.execute_script("document.getElementById('failures').scrollIntoView()")
    shot = tmp_path / "failure-browser.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 20_000

    # another suite: triplets, one text per side
    pick(browser, "fb-suite", value="toy-triplets")
    pick(browser, "fb-sub", value="alpha")
    pick(browser, "fb-base", value="")
    assert rows(browser, "fb-wrong") == [("tr-2", "anchor_negative")]
    assert [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#fb-wrong tbody td")][3:6] == list(TRIPLETS["tr-2"][1:])

    # reranking: gamma against its first stage alpha, its tables from gamma's file
    shown = [d for d in browser.find_elements(By.CSS_SELECTOR, "div.rerank") if d.is_displayed()]
    assert len(shown) == 1 and "gamma reranks alpha on classic-ir: 6 queries" in shown[0].text
    tables = shown[0].find_elements(By.CSS_SELECTOR, ".rr-tables table")
    assert [[td.text for td in tr.find_elements(By.TAG_NAME, "td")] for tr in tables[0].find_elements(By.CSS_SELECTOR, "tbody tr")] == [
        ["medline", "q1", "0.6000", "0.9000", "+0.3000"],
        ["cranfield", "q0", "0.5000", "0.7000", "+0.2000"],
        ["cranfield", "q3", "0.4000", "0.5000", "+0.1000"],
    ]
    assert [th.text for th in tables[1].find_elements(By.TAG_NAME, "th")] == ["dataset", "query", "alpha", "gamma", "change"]
    assert [td.text for td in tables[1].find_elements(By.CSS_SELECTOR, "tbody td")] == ["cranfield", "q2", "0.9000", "0.1000", "-0.8000"]

    # a click on gamma's score in the classic-ir heatmap: the reranker's queries; on alpha's nearmiss score: the failure browser
    cell = browser.find_element(By.CSS_SELECTOR, '#heatmap-classic-ir tr[data-name="gamma"] td')
    browser.execute_script("arguments[0].scrollIntoView()", cell)
    cell.click()
    settle(browser, "rr-box")
    assert browser.find_element(By.ID, "rr-pick").get_attribute("value") == "0"
    cell = browser.find_element(By.CSS_SELECTOR, '#heatmap-nearmiss tr[data-name="alpha"] td:nth-of-type(2)')  # negation
    browser.execute_script("arguments[0].scrollIntoView()", cell)
    cell.click()
    settle(browser)
    assert browser.find_element(By.ID, "fb-summary").text == "alpha on nearmiss / negation: wrong on 1 of 12 comparisons."
    assert rows(browser, "fb-wrong") == [("neg-1", "close_close")]
    assert severe(browser) == []
