"""index.html renders in headless Chromium (no network) to a non-trivial screenshot."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess

import pytest
from lb_helpers import nearmiss_results, retrieval_results, save

from harness.leaderboard.collect import build
from harness.leaderboard.render import write_all
from harness.submissions import Registry


def test_screenshot(env, tmp_path):
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("chromium not installed (Debian: apt-get install -y chromium); screenshot test not run")
    subs, results = env
    for i, name in enumerate(("alpha", "beta", "gamma")):
        save(results, retrieval_results(name, "nanobeir", {"ArguAna": 0.3 + 0.1 * i, "NQ": 0.4}))
        save(results, nearmiss_results(name, "nearmiss", 0.8 - 0.1 * i))
    html = write_all(build(results, Registry([subs]).all()), tmp_path / "board")[2]
    png = tmp_path / "shot.png"
    cmd = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={png}", "--window-size=1400,1800", html.as_uri(),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert png.is_file(), proc.stderr[-2000:]
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1400, 1800)
    assert len(data) > 30_000  # a blank page is a few kB

    from matplotlib.image import imread

    img = imread(str(png))
    top = img[:900, :, :3].reshape(-1, 3)  # title, plot and table live in the top half
    assert len({tuple(px) for px in top[::7].round(2).tolist()}) > 30


def test_sorting_and_kind_filter_scripts(env, tmp_path):
    """Click a header once and pick a kind (script appended to a copy of the page), read back the DOM."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("chromium not installed (Debian: apt-get install -y chromium); sorting test not run")
    subs, results = env
    for name, ret in (("alpha", 0.5), ("beta", 0.7), ("gamma", 0.6)):
        save(results, retrieval_results(name, "nanobeir", {"NQ": ret}))
        save(results, nearmiss_results(name, "nearmiss", 0.5))
    save(results, retrieval_results("bm25", "nanobeir", {"NQ": 0.4}, kind="lexical"))  # no composition: sorts last
    html = write_all(build(results, Registry([subs]).all(), retrieval="nanobeir"), tmp_path / "board")[2]
    clicks = """<script>
      var th = document.querySelector('#leaderboard thead th[data-key="nanobeir:ndcg@10"]');  /* retrieval */
      th.click();  /* best first: descending */
      var f = document.getElementById("kind-filter"); f.value = "lexical"; f.dispatchEvent(new Event("change"));
    </script></body>"""
    page = tmp_path / "board" / "clicked.html"
    page.write_text(html.read_text().replace("</body>", clicks))
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
           f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()]  # fmt: skip
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=90).stdout
    main = dom[dom.index('id="leaderboard"') : dom.index('id="retrieval-datasets"')]
    main = main[: main.index("</table>")]
    assert re.search(r'<th scope="col" data-key="nanobeir:ndcg@10"[^>]* aria-sort="descending"', main), main[:3000]
    rows = re.findall(r'<tr data-kind="\w+" data-name="(\w+)"([^>]*)>', main)
    assert [name for name, _attrs in rows] == ["beta", "gamma", "alpha", "bm25"], main[:3000]
    hidden = {name: "hidden" in attrs for name, attrs in rows}
    assert hidden == {"beta": True, "gamma": True, "alpha": True, "bm25": False}
