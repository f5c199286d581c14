"""HTML replays: one self-contained page per episode, checked as text and in a real browser.

The browser is Debian's headless Chromium driven by Selenium through Debian's chromedriver, both
named by path: Selenium Manager is never asked to find (or download) a browser or driver.
``.ci/run`` installs them; the browser test skips, saying why, only where they are missing.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from patience_gym.agents.cli import main
from patience_gym.agents.evaluation.replay import record

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROME_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
)


def test_replay_page_is_self_contained_and_holds_every_step() -> None:
    rep = record("Nestor-v0", "greedy", seed=4)
    page = rep.html()
    assert page.startswith("<!DOCTYPE html>")
    # opens offline: no address to fetch anything from, no file beside it
    assert not re.search(r"https?://|\bsrc=|<link\b|@import", page)
    assert rep.result in page and f"seed {rep.seed}" in page
    assert len(rep.steps) == rep.moves + 1 and rep.steps[0].move is None
    assert all(s.move for s in rep.steps[1:])
    assert sum(s.reward for s in rep.steps) == pytest.approx(rep.steps[-1].foundation_cards / 52)


def test_replay_result_states_how_the_game_ended() -> None:
    rep = record("Louis-v0", "greedy", seed=3)
    assert rep.won and rep.result == f"won in {rep.moves} moves"
    lost = record("Klondike-v0", "greedy", seed=3)
    assert not lost.won and lost.result.startswith("lost after")


def test_cli_replay_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "replay.html"
    code = main(["replay", "--env", "Klondike-v0", "--policy", "random", "--seed", "2", "--out", str(out)])
    assert code == 0 and out.stat().st_size > 1000
    assert str(out) in capsys.readouterr().out
    assert main(["replay", "--env", "Klondike-v0", "--policy", "nobody", "--out", str(out)]) == 2


@pytest.mark.parametrize(
    ("command", "where", "message"),
    [
        (["replay", "--env", "Nestor-v0", "--out"], "missing/replay.html", "does not exist"),
        (["replay", "--env", "Nestor-v0", "--out"], "", "is a folder"),
        (["show", "Nestor-v0", "--image"], "missing/table.png", "does not exist"),
    ],
)
def test_an_output_that_cannot_be_written_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], where: str, message: str
) -> None:
    """Before any game is played: no traceback, no half-done work."""
    assert main([*command, str(tmp_path / where)]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.err.count("\n") == 1
    assert "legal:" not in captured.out  # show refused before printing the table


def test_cli_show_writes_a_png(tmp_path: Path) -> None:
    from PIL import Image

    out = tmp_path / "table.png"
    assert main(["show", "Nestor-v0", "--seed", "1", "--image", str(out)]) == 0
    with Image.open(out) as img:
        assert img.format == "PNG" and img.mode == "RGB" and img.width > 300


@pytest.fixture
def browser() -> Iterator[Any]:
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        pytest.skip(
            f"no browser: {CHROMIUM} and {CHROMEDRIVER} are missing "
            "(apt-get install -y chromium chromium-driver; .ci/run installs them as root)"
        )
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the test extra")
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # belt and braces: Selenium Manager must fetch nothing
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in CHROME_FLAGS:
        opts.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="patience-gym-chromium-")
    opts.add_argument(f"--user-data-dir={profile}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def test_replay_steps_in_a_real_browser(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    rep = record("Klondike-v0", "greedy", seed=3)
    page = tmp_path / "replay.html"
    page.write_text(rep.html(), encoding="utf-8")
    browser.get(page.as_uri())

    def read() -> list[str]:
        """The step counter, the move text, the foundation count and the board's HTML."""
        attrs = [
            ("step", "textContent"),
            ("move", "textContent"),
            ("found", "textContent"),
            ("board", "innerHTML"),
        ]
        return [str(browser.find_element(By.ID, name).get_attribute(attr)) for name, attr in attrs]

    step, move, found, board = read()
    assert (step, move, found) == ("0", "(the deal)", "0")
    assert browser.find_element(By.ID, "total").text == str(rep.moves)
    # the deal: 7 cards face up, 21 backs under them and one back for the stock
    assert board.count("data-card=") == 7 and board.count("card back") == 22

    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    step1, move1, _, board1 = read()
    assert step1 == "1" and move1 == rep.steps[1].move and board1 != board

    browser.find_element(By.ID, "last").click()
    step_n, move_n, found_n, board_n = read()
    assert step_n == str(rep.moves) and move_n == rep.steps[-1].move and board_n != board1
    assert found_n == str(rep.steps[-1].foundation_cards)
    assert "final" in browser.find_element(By.ID, "status").get_attribute("class")
    assert browser.find_element(By.ID, "result").text == rep.result

    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    assert read()[0] == str(rep.moves - 1)

    shot = tmp_path / "replay.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
