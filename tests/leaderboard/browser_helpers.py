"""For the browser tests: the page served by ``python -m http.server`` (beside opening it from a
``file://`` path), and waiting for the explorer's files to load."""

from __future__ import annotations

import re
import select
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# Ready when every explorer part on the page has loaded what it shows (data-ready true) or given up (error).
SETTLED = """
return ["failures", "rr-box"].every(function (id) {
  var e = document.getElementById(id);
  if (!e || (id === "failures" && !document.getElementById("fb-picker"))) { return true; }
  var v = e.getAttribute("data-ready");
  return v === "true" || v === "error";
});
"""


@contextmanager
def http_server(folder: Path) -> Iterator[str]:
    """``python -m http.server`` on a free port of 127.0.0.1 serving ``folder``; yields its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline() if ready else ""  # "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        port = re.search(r"port (\d+)", line)
        assert port, f"http.server did not start: {line!r}"
        yield f"http://127.0.0.1:{port.group(1)}/"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def settle(driver, part: str = "failures", timeout: float = 30) -> None:
    """Wait until the failure browser (``failures``) or the reranking explorer (``rr-box``) shows what
    is picked, its files loaded; fails on a load error."""
    from selenium.webdriver.support.ui import WebDriverWait

    state_js = f"return document.getElementById('{part}').getAttribute('data-ready')"
    WebDriverWait(driver, timeout).until(lambda d: d.execute_script(state_js) in ("true", "error"))
    state = driver.execute_script(state_js)
    assert state == "true", driver.execute_script("return document.getElementById('fb-summary') && document.getElementById('fb-summary').textContent")


def severe(driver) -> list[dict]:
    """The browser's errors since the last call, less the favicon an http server does not have (the page names none)."""
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "/favicon.ico " not in e["message"]]
