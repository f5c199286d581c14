"""A replay as one self-contained HTML page: no file beside it, nothing fetched, opens offline.

Every step's :class:`~patience_gym.render.view.Frame` is embedded as JSON and drawn by a short
script with plain HTML and CSS, from the same pixel layout as the Pillow picture. Cards, places and
texts that repeat from step to step are stored once and referred to by number, so a long episode
stays small (a few hundred bytes a step).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass

from patience_gym.render.view import CARD_H, CARD_W, Frame


@dataclass(frozen=True)
class ReplayStep:
    """The table after ``index`` moves, the move that led there (``None`` for the deal), the
    reward it earned and the cards on the foundations."""

    index: int
    frame: Frame
    move: str | None
    reward: float
    foundation_cards: int


def _pack(steps: Sequence[ReplayStep]) -> dict[str, object]:
    """Steps as JSON-ready data, each card, empty place and text stored once in ``items``."""
    items: list[list[object]] = []
    index: dict[tuple[object, ...], int] = {}

    def ref(kind: str, entry: tuple[object, ...]) -> int:
        key = (kind, *entry)
        if key not in index:
            index[key] = len(items)
            items.append([kind, *entry])
        return index[key]

    packed = []
    for s in steps:
        f = s.frame
        refs = (
            [ref("s", e) for e in f.slots] + [ref("c", e) for e in f.cards] + [ref("t", e) for e in f.texts]
        )
        packed.append({"m": s.move, "r": round(s.reward, 6), "f": s.foundation_cards, "i": refs})
    first = steps[0].frame
    return {"w": first.width, "h": first.height, "items": items, "steps": packed}


def replay_html(title: str, steps: Sequence[ReplayStep], result: str, details: Sequence[str] = ()) -> str:
    """The page: the table at each step, with buttons, arrow keys and a slider to move through."""
    if not steps:
        raise ValueError("a replay needs at least the dealt position")
    data = json.dumps(_pack(steps), separators=(",", ":"))
    data = data.replace("</", "<\\/")  # nothing in the data can close the script element
    about = "".join(f"<li>{html.escape(d)}</li>" for d in details)
    return (
        _PAGE.replace("@TITLE@", html.escape(title))
        .replace("@RESULT@", html.escape(result))
        .replace("@DETAILS@", about)
        .replace("@CARD_W@", str(CARD_W))
        .replace("@CARD_H@", str(CARD_H))
        .replace("@DATA@", data)
    )


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITLE@</title>
<style>
  body { margin: 0; background: #0f2a1a; color: #e8f3e8;
         font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { max-width: 1200px; margin: 0 auto; padding: 12px 16px 24px; }
  h1 { font-size: 20px; margin: 4px 0 2px; }
  .result { font-weight: 600; color: #ffd666; }
  ul.details { margin: 2px 0 8px; padding-left: 18px; color: #b8d4bc; font-size: 13px; }
  .controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
  button { font: inherit; padding: 4px 12px; border-radius: 6px; border: 1px solid #6a9c78;
           background: #1c6338; color: #fff; cursor: pointer; }
  button:disabled { opacity: 0.4; cursor: default; }
  input[type=range] { flex: 1 1 240px; }
  .status { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 4px 0 8px; min-height: 2.8em; }
  .status b { color: #fff; }
  #move { color: #fff; font-weight: 600; }
  .final #move::after { content: "  \\2014  " attr(data-result); color: #ffd666; }
  #board { position: relative; background: #1c6338; border-radius: 8px; overflow: hidden; }
  #board div { position: absolute; box-sizing: border-box; }
  .card { width: @CARD_W@px; height: @CARD_H@px; border-radius: 6px; border: 1px solid #3c3c3c;
          background: #fcfcf7; box-shadow: 0 1px 1px rgba(0,0,0,.25); }
  .card.red { color: #c8102e; } .card.black { color: #1a1a1a; }
  #board .card .ix { position: absolute; left: 2px; top: 1px; font: 700 16px/16px Arial, sans-serif;
                     text-align: center; width: 18px; }
  #board .card .ix.r { left: auto; right: 2px; }
  #board .card .ix span { display: block; font-size: 15px; line-height: 14px; }
  #board .card .pip { position: absolute; left: 0; right: 0; top: 30px; font: 28px/30px Arial, sans-serif;
                      text-align: center; }
  .card.back { background: repeating-linear-gradient(45deg, #2648a0 0 5px, #4668b6 5px 7px);
               border: 4px solid #f5f5f0; outline: 1px solid #3c3c3c; }
  .slot { width: @CARD_W@px; height: @CARD_H@px; border-radius: 6px; border: 2px solid #5c966e;
          background: #144e2b; color: #5c966e; display: flex; align-items: center;
          justify-content: center; font: 700 18px Arial, sans-serif; }
  .t { white-space: pre; }
  .title { font-size: 17px; color: #fff; } .counter { font-size: 14px; color: #d6ecd8; }
  .label { font-size: 12px; color: #e8f3e8; }
  .badge { font-size: 12px; color: #fff; background: #1e1e1e; border-radius: 4px; padding: 0 4px; }
  .right { transform: translateX(-100%); }
  .keys { color: #9cbca2; font-size: 13px; }
</style>
</head>
<body>
<main>
  <h1>@TITLE@</h1>
  <div>Result: <span class="result" id="result">@RESULT@</span></div>
  <ul class="details">@DETAILS@</ul>
  <div class="controls">
    <button id="first" title="first step (Home)">&laquo; first</button>
    <button id="prev" title="previous step (left arrow)">&#x25C0; prev</button>
    <button id="play" title="play / pause (space)">play</button>
    <button id="next" title="next step (right arrow)">next &#x25B6;</button>
    <button id="last" title="last step (End)">last &raquo;</button>
    <input id="slider" type="range" min="0" value="0" aria-label="step">
    <span class="keys">keys: &larr; &rarr; Home End space</span>
  </div>
  <div class="status" id="status">
    <span>step <b id="step">0</b> / <b id="total">0</b></span>
    <span>move: <span id="move" data-result="@RESULT@"></span></span>
    <span>reward: <b id="reward">0</b></span>
    <span>on foundations: <b id="found">0</b></span>
  </div>
  <div id="board"></div>
</main>
<script id="replay-data" type="application/json">@DATA@</script>
<script>
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("replay-data").textContent);
  var SUIT = {C: "\\u2663", D: "\\u2666", H: "\\u2665", S: "\\u2660"};
  var RANK = {T: "10"};
  var board = document.getElementById("board");
  board.style.width = D.w + "px";
  board.style.height = D.h + "px";
  var last = D.steps.length - 1, at = 0, timer = null;
  var slider = document.getElementById("slider");
  slider.max = last;
  document.getElementById("total").textContent = last;

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  function pos(x, y) { return 'style="left:' + x + "px;top:" + y + 'px"'; }
  function item(it) {
    var kind = it[0];
    if (kind === "c") {
      var code = it[3];
      if (code === "##") { return '<div class="card back" ' + pos(it[1], it[2]) + "></div>"; }
      var r = RANK[code[0]] || code[0], s = SUIT[code[1]];
      var colour = (code[1] === "D" || code[1] === "H") ? "red" : "black";
      // indices in both top corners, as in the picture: a row running left shows the right one
      var ix = r + "<span>" + s + "</span></div>";
      return '<div class="card ' + colour + '" data-card="' + code + '" ' + pos(it[1], it[2]) +
        '><div class="ix">' + ix + '<div class="ix r">' + ix + '<div class="pip">' + s + "</div></div>";
    }
    if (kind === "s") {
      var hint = SUIT[it[3]] || esc(it[3]);
      return '<div class="slot" ' + pos(it[1], it[2]) + ">" + hint + "</div>";
    }
    var style = it[4].split(":");
    var cls = "t " + style[0] + (style[1] === "r" ? " right" : "");
    return '<div class="' + cls + '" ' + pos(it[1], it[2]) + ">" + esc(it[3]) + "</div>";
  }
  function show(k) {
    at = Math.max(0, Math.min(last, k));
    var s = D.steps[at];
    board.innerHTML = s.i.map(function (n) { return item(D.items[n]); }).join("");
    document.getElementById("step").textContent = at;
    document.getElementById("move").textContent = s.m === null ? "(the deal)" : s.m;
    document.getElementById("reward").textContent = s.m === null ? "-" : String(Number(s.r.toFixed(4)));
    document.getElementById("found").textContent = s.f;
    document.getElementById("status").className = "status" + (at === last ? " final" : "");
    slider.value = at;
    document.getElementById("prev").disabled = document.getElementById("first").disabled = at === 0;
    document.getElementById("next").disabled = document.getElementById("last").disabled = at === last;
    if (at === last) { stop(); }
  }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    document.getElementById("play").textContent = "play";
  }
  function play() {
    if (timer !== null) { stop(); return; }
    if (at === last) { show(0); }
    document.getElementById("play").textContent = "pause";
    timer = setInterval(function () { show(at + 1); }, 400);
  }
  document.getElementById("first").onclick = function () { show(0); };
  document.getElementById("prev").onclick = function () { show(at - 1); };
  document.getElementById("next").onclick = function () { show(at + 1); };
  document.getElementById("last").onclick = function () { show(last); };
  document.getElementById("play").onclick = play;
  slider.oninput = function () { show(parseInt(slider.value, 10)); };
  document.addEventListener("keydown", function (e) {
    if (e.target === slider && (e.key === "ArrowLeft" || e.key === "ArrowRight")) { return; }
    var keys = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: last};
    if (e.key in keys) { e.preventDefault(); stop(); show(keys[e.key]); }
    else if (e.key === " ") { e.preventDefault(); play(); }
  });
  show(0);
})();
</script>
</body>
</html>
"""
