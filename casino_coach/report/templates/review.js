/* The review page's script: draws the selected ply from the page's data (review.ply_data) and moves
   between plies with the arrow keys, the move list, the chart and the buttons. Text goes in with
   textContent only, so no name or explanation is ever read as markup. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("review-data").textContent);
  var P = D.plies, N = P.length, cur = -1;
  if (!N) { return; }
  var board = document.getElementById("board");
  var detail = document.getElementById("detail");
  var after = document.getElementById("after");
  var list = document.getElementById("moves");
  // The charts (the expected game score; the chance to win the game when the rules have a table):
  // the same plies across, each with a cursor.
  var svgs = Array.prototype.slice.call(document.querySelectorAll("svg.chart"));
  var nseats = D.players.length;
  var bottom = D.viewer !== null ? D.viewer : 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }
  function red(sym) { return /[\u2665\u2666]$/.test(sym); }
  function card(sym, extra) {
    return el("span", "card" + (red(sym) ? " red" : "") + (extra ? " " + extra : ""), sym);
  }
  function num(v) {
    if (Math.abs(v) < 0.005) { return "0.00"; }
    return (v > 0 ? "+" : "\u2212") + Math.abs(v).toFixed(2);
  }
  function side(seat) { return seat % D.nsides; }
  function who(seat) { return el("span", "who s" + side(seat), D.players[seat]); }

  function moveEl(mv) {
    var s = el("span", "mvw");
    s.appendChild(card(mv.card));
    var verb = mv.action === "capture" ? "captures" : (mv.action === "build" ? "builds " + mv.value + " with" : "trails");
    s.appendChild(el("span", "verb", verb));
    mv.take.forEach(function (c) { s.appendChild(card(c)); });
    return s;
  }

  // Which cards to ring: the played card and what it takes, and the best move's.
  function marks(p) {
    var m = {};
    function add(sym, k) { m[sym] = (m[sym] ? m[sym] + " " : "") + k; }
    add(p.played.card, "hp");
    p.played.take.forEach(function (c) { add(c, "hp"); });
    if (p.best) {
      add(p.best.card, "hb");
      p.best.take.forEach(function (c) { add(c, "hb"); });
    }
    return m;
  }

  function seatRow(p, seat, m) {
    var row = el("div", "seat" + (seat === p.seat ? " tomove" : ""));
    row.appendChild(who(seat));
    var hand = el("span", "hand");
    var known = p.hands[seat] || [];
    known.forEach(function (c) { hand.appendChild(card(c, m[c])); });
    var hidden = Math.max(0, (p.sizes[seat] || 0) - known.length);
    for (var i = 0; i < hidden; i++) {
      var b = el("span", "card back");
      b.setAttribute("aria-label", "a card not known");
      hand.appendChild(b);
    }
    row.appendChild(hand);
    if (seat === p.seat) { row.appendChild(el("span", "tag", "to play")); }
    else if (!known.length && !hidden) { row.appendChild(el("span", "tag", "no cards")); }
    return row;
  }

  function tableRow(p, m) {
    var t = el("div", "tablecards");
    t.setAttribute("aria-label", "the table");
    p.table.loose.forEach(function (c) { t.appendChild(card(c, m[c])); });
    p.table.builds.forEach(function (b) {
      var box = el("span", "build s" + side(b.owner));
      var cs = el("span", "bc");
      b.cards.forEach(function (c) { cs.appendChild(card(c, m[c])); });
      box.appendChild(cs);
      box.appendChild(el("span", "bv", "build " + b.value + (b.multiple ? " (multiple)" : "") + " \u00b7 " + D.players[b.owner]));
      t.appendChild(box);
    });
    if (!t.childNodes.length) { t.appendChild(el("span", "empty", "the table is empty")); }
    return t;
  }

  function piles(p) {
    var box = el("div", "piles");
    if (p.piles) {
      p.piles.forEach(function (pl, s) {
        var item = el("span", "s" + s);
        item.appendChild(el("b", "", D.sides[s]));
        var text = " took " + pl.n + " card" + (pl.n === 1 ? "" : "s") + ", " + pl.sp + "\u2660";
        if (pl.items.length) { text += " \u00b7 " + pl.items.join(" "); }
        if (D.sweepsScore && p.sweeps[s]) { text += " \u00b7 " + p.sweeps[s] + " sweep" + (p.sweeps[s] === 1 ? "" : "s"); }
        item.appendChild(document.createTextNode(text));
        box.appendChild(item);
      });
    }
    if (p.stock !== undefined) {
      box.appendChild(el("span", "", p.stock ? p.stock + " cards still to deal" : "the last deal"));
    }
    if (p.scores) {
      box.appendChild(el("span", "", "game score before the round: " + p.scores.map(function (v, s) {
        return D.sides[s] + " " + v;
      }).join(", ")));
    }
    return box;
  }

  // A value is a margin (the page says so once, above the summary): the side's points minus the
  // others', never a score, so it is named as one, and its tip says whose points it subtracts.
  function mvBox(kind, mv, value, css, s) {
    var box = el("div", "mvbox c-" + css);
    box.appendChild(el("div", "lbl", kind));
    box.appendChild(moveEl(mv));
    if (value !== undefined && value !== null) {
      var val = el("div", "val", D.sides[s] + "’s expected margin " + num(value));
      val.title = D.margins[s];
      box.appendChild(val);
    }
    return box;
  }

  function drawBoard(p) {
    board.textContent = "";
    var head = el("div", "bhead");
    head.appendChild(el("span", "plyno", "ply " + p.ply));
    var w = el("span", "where", p.where + " \u00b7 ");
    w.appendChild(who(p.seat));
    w.appendChild(document.createTextNode(" to play"));
    head.appendChild(w);
    // Filled where the verdict is exact, a ring where it is an estimate, dashed where its class is
    // uncertain: the chart's dots and the move list's marks say it alike (issue 42, finding 4).
    var badge = el("span", "cls " + p.css + (p.cert ? " " + p.cert : ""), p.label);
    if (p.cert) { badge.title = p.cert === "est" ? "an estimate, not exact" + (p.basis ? ": " + p.basis : "") : "an estimate whose class is uncertain"; }
    head.appendChild(badge);
    if (p.cert) { head.appendChild(el("span", "cert note", p.cert === "est" ? "estimate" : "uncertain")); }
    var nav = el("span", "nav");
    [["\u00ab", "first ply (Home)", 0], ["\u2039", "previous ply (\u2190)", -1], ["\u203a", "next ply (\u2192)", 1], ["\u00bb", "last ply (End)", 2]].forEach(function (b) {
      var btn = el("button", "", b[0]);
      btn.type = "button";
      btn.title = b[1];
      btn.setAttribute("aria-label", b[1]);
      btn.setAttribute("data-step", String(b[2]));
      nav.appendChild(btn);
    });
    // The mistakes of either player, beside the board as well: on a phone the move list is far below.
    [["?\u2039", "previous mistake or blunder (p)", -1], ["?\u203a", "next mistake or blunder (n)", 1]].forEach(function (b) {
      var btn = el("button", "mist", b[0]);
      btn.type = "button";
      btn.title = b[1];
      btn.setAttribute("aria-label", b[1]);
      btn.setAttribute("data-jump", String(b[2]));
      nav.appendChild(btn);
    });
    head.appendChild(nav);
    board.appendChild(head);
    board.appendChild(el("div", "lbl", "before the move"));
    var m = marks(p);
    var felt = el("div", "felt");
    for (var k = 1; k <= nseats; k++) {
      var seat = (bottom + k) % nseats;
      if (seat === bottom) { felt.appendChild(tableRow(p, m)); }
      felt.appendChild(seatRow(p, seat, m));
    }
    board.appendChild(felt);
    board.appendChild(piles(p));
    var key = el("div", "hlkey");
    var k1 = el("span", "");
    k1.appendChild(el("i", "k1"));
    k1.appendChild(document.createTextNode("the move played"));
    key.appendChild(k1);
    if (p.best) {
      var k2 = el("span", "");
      k2.appendChild(el("i", "k2"));
      k2.appendChild(document.createTextNode("the best move"));
      key.appendChild(k2);
    }
    board.appendChild(key);
  }

  // The position after the move played and after the best move (computed at export: review.plies_data):
  // the table, the mover's hand, what each side took, the mover's side's pile.
  function afterBox(p, a, mv, kind, css, ring) {
    var box = el("div", "afterbox c-" + css);
    box.appendChild(el("div", "lbl", kind));
    var m = {};
    m[mv.card] = ring;
    mv.take.forEach(function (c) { m[c] = ring; });
    var felt = el("div", "felt small");
    felt.appendChild(tableRow({table: a.table}, m));
    var row = el("div", "seat");
    row.appendChild(who(p.seat));
    var hand = el("span", "hand");
    a.hand.forEach(function (c) { hand.appendChild(card(c)); });
    for (var i = 0; i < (a.hidden || 0); i++) { hand.appendChild(el("span", "card back")); }
    row.appendChild(hand);
    if (!a.hand.length && !a.hidden) { row.appendChild(el("span", "tag", "no cards left")); }
    felt.appendChild(row);
    box.appendChild(felt);
    var notes = el("div", "piles");
    (a.took || []).forEach(function (t) {
      var item = el("span", "took s" + t[0]);
      item.appendChild(el("b", "", D.sides[t[0]]));
      item.appendChild(document.createTextNode(" took "));
      t[1].forEach(function (c) { item.appendChild(card(c)); });
      notes.appendChild(item);
    });
    if (a.sweep) { notes.appendChild(el("span", "sweep", "a sweep")); }
    if (a.end) { notes.appendChild(el("span", "", "the round is over" + ((a.took || []).length > 1 ? ": the cards left on the table go to the last capturer" : ""))); }
    if (a.pile) {
      notes.appendChild(el("span", "", D.sides[p.side] + "'s pile: " + a.pile.n + " card" + (a.pile.n === 1 ? "" : "s") + ", " + a.pile.sp + "\u2660" + (a.pile.items.length ? " \u00b7 " + a.pile.items.join(" ") : "")));
    }
    box.appendChild(notes);
    return box;
  }

  function drawAfter(p) {
    after.textContent = "";
    if (!p.after) { return; }
    after.appendChild(afterBox(p, p.after, p.played, "after the move played", p.css, "hp"));
    if (p.afterBest && p.best) { after.appendChild(afterBox(p, p.afterBest, p.best, "after the best move", "best", "hb")); }
  }

  // The explanations of a loss, each with its points.
  function whyList(why) {
    var ul = el("ul", "why");
    why.forEach(function (x) {
      var li = el("li", "", x[0] + " ");
      li.appendChild(el("span", "pts", "(" + x[1].toFixed(2) + ")"));
      ul.appendChild(li);
    });
    return ul;
  }

  function drawDetail(p) {
    detail.textContent = "";
    var vs = el("div", "vs");
    vs.appendChild(mvBox("played", p.played, p.value, p.css, p.side));
    if (p.best) { vs.appendChild(mvBox("best", p.best, p.bestValue, "best", p.side)); }
    detail.appendChild(vs);
    if (p.best) {
      var loss = el("p", "loss");
      loss.appendChild(el("b", "", "lost " + p.loss.toFixed(2) + " of margin"));
      loss.appendChild(el("span", "note", " (" + p.basis + ")"));
      detail.appendChild(loss);
    } else if (p.note) {
      detail.appendChild(el("p", "loss note", p.note + (p.exact ? " (exact)" : "")));
    }
    if (p.headline) { detail.appendChild(el("p", "headline", p.headline)); }
    if (p.why && p.why.length) {
      // The detail below the headline, folded: each category with the points it accounts for.
      var fold = el("details", "why");
      fold.appendChild(el("summary", "", "Why, category by category"));
      fold.appendChild(whyList(p.why));
      detail.appendChild(p.headline ? fold : whyList(p.why));
    }
    if (p.verdict) { detail.appendChild(el("p", "verdict", p.verdict)); }
    if (p.world) { detail.appendChild(el("p", "world", p.world.text)); }
    if (p.gameVerdict) { detail.appendChild(el("p", "verdict", p.gameVerdict)); }
    if (p.game) { detail.appendChild(el("p", "game note", p.game)); }
    if (p.alts) {
      detail.appendChild(el("div", "note", "The search's top moves (" + D.sides[p.side] + "’s expected margin):"));
      var ol = el("ol", "alts");
      p.alts.forEach(function (x) {
        ol.appendChild(el("li", x[2] ? "me" : "", x[0] + "  " + num(x[1]) + (x[2] ? "  (played)" : "")));
      });
      detail.appendChild(ol);
    }
  }

  function keepVisible(a) {
    var lr = list.getBoundingClientRect(), ar = a.getBoundingClientRect();
    var top = lr.top + 24;
    if (ar.top < top) { list.scrollTop -= top - ar.top; }
    else if (ar.bottom > lr.bottom - 8) { list.scrollTop += ar.bottom - lr.bottom + 8; }
  }

  function select(i, quiet) {
    i = Math.max(0, Math.min(N - 1, i));
    if (i === cur) { return; }
    var old = list.querySelector(".mv.sel");
    if (old) { old.classList.remove("sel"); old.removeAttribute("aria-current"); }
    var a = list.querySelector('.mv[data-ply="' + P[i].ply + '"]');
    if (a) { a.classList.add("sel"); a.setAttribute("aria-current", "true"); keepVisible(a); }
    svgs.forEach(function (svg) {
      var od = svg.querySelector(".dot.sel");
      if (od) { od.classList.remove("sel"); }
      var nd = svg.querySelector('.dot[data-ply="' + P[i].ply + '"]');
      if (nd) { nd.classList.add("sel"); }
      var cursor = svg.querySelector("line.cursor");
      if (cursor && D.xs.length > P[i].ply) {
        cursor.setAttribute("x1", D.xs[P[i].ply] + "%");
        cursor.setAttribute("x2", D.xs[P[i].ply] + "%");
      }
    });
    cur = i;
    board.setAttribute("data-ply", String(P[i].ply));
    drawBoard(P[i]);
    drawAfter(P[i]);
    drawDetail(P[i]);
    // The address follows the selection (a link to the page at this ply), but not while the page loads:
    // the browser would then scroll to the move list's anchor.
    if (!quiet && window.history && history.replaceState) { history.replaceState(null, "", "#ply" + P[i].ply); }
  }

  function indexOf(ply) {
    for (var i = 0; i < N; i++) { if (P[i].ply === ply) { return i; } }
    return -1;
  }

  function fromHash() {
    var m = /^#ply(\d+)$/.exec(location.hash);
    var i = m ? indexOf(parseInt(m[1], 10)) : -1;
    return i >= 0 ? i : 0;
  }

  // The mistakes (mistakes and blunders; inaccuracies are skipped, as the page says): n / p the next and
  // previous of either player, N / P of the player chosen in the selector.
  var jumpWho = document.getElementById("jump-who");
  var jumpNote = document.getElementById("jump-note");
  var jumpBar = document.getElementById("jumps");
  if (jumpBar) { jumpBar.hidden = false; }
  if (jumpWho) { jumpWho.addEventListener("change", function () { jumpWho.blur(); }); }
  function isMistake(p) { return p.label === "mistake" || p.label === "blunder"; }
  function jump(dir, mine) {
    var seat = mine && jumpWho ? parseInt(jumpWho.value, 10) : -1;
    for (var i = cur + dir; i >= 0 && i < N; i += dir) {
      if (isMistake(P[i]) && (seat < 0 || P[i].seat === seat)) {
        if (jumpNote) { jumpNote.textContent = ""; }
        select(i);
        return;
      }
    }
    if (jumpNote) {
      jumpNote.textContent = (seat < 0 ? "No" : D.players[seat] + ": no") + " mistake or blunder " +
        (dir > 0 ? "after" : "before") + " ply " + P[cur].ply + ".";
    }
  }

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var t = e.target && e.target.tagName;
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT") { return; }
    if (drillKey(e)) { return; }
    var to = null;
    if (e.key === "n" || e.key === "p" || e.key === "N" || e.key === "P") {
      e.preventDefault();
      jump(e.key.toLowerCase() === "n" ? 1 : -1, e.key === "N" || e.key === "P");
      return;
    }
    if (e.shiftKey) { return; }
    if (e.key === "ArrowRight") { to = cur + 1; }
    else if (e.key === "ArrowLeft") { to = cur - 1; }
    else if (e.key === "Home") { to = 0; }
    else if (e.key === "End") { to = N - 1; }
    if (to !== null) { e.preventDefault(); select(to); }
  });

  document.addEventListener("click", function (e) {
    var jb = e.target.closest && e.target.closest("button[data-jump]");
    if (jb) {
      jump(parseInt(jb.getAttribute("data-jump"), 10), jb.hasAttribute("data-mine"));
      return;
    }
    var btn = e.target.closest && e.target.closest("button[data-step]");
    if (btn) {
      var step = parseInt(btn.getAttribute("data-step"), 10);
      select(step === 0 ? 0 : (step === 2 ? N - 1 : cur + step));
      return;
    }
    var a = e.target.closest && e.target.closest('a[href^="#ply"]');
    if (a) {
      var i = indexOf(parseInt(a.getAttribute("href").slice(4), 10));
      if (i >= 0) {
        e.preventDefault();
        select(i);
        if (!list.contains(a)) { board.scrollIntoView({block: "start"}); }
      }
    }
  });

  svgs.forEach(function (svg) {
    svg.addEventListener("click", function (e) {
      var ply = e.target.getAttribute && e.target.getAttribute("data-ply");
      var i;
      if (ply !== null && ply !== undefined) {
        i = indexOf(parseInt(ply, 10));
      } else {
        // Anywhere else on the chart: the ply nearest across.
        var r = svg.getBoundingClientRect(), at = (e.clientX - r.left) / r.width * 100, best = 0;
        for (var k = 1; k < D.xs.length; k++) {
          if (Math.abs(D.xs[k] - at) < Math.abs(D.xs[best] - at)) { best = k; }
        }
        i = indexOf(best);
      }
      if (i >= 0) { select(i); }
    });
  });

  // The chart of one chosen side (three or four sides): the others' lines, squares and dots are "off".
  var chartSide = document.getElementById("chart-side");
  if (chartSide) {
    document.getElementById("chart-pick").hidden = false;
    chartSide.addEventListener("change", function () {
      var k = chartSide.value;
      Array.prototype.forEach.call(document.querySelectorAll("#chart [data-k]"), function (e) {
        e.classList.toggle("off", e.getAttribute("data-k") !== k);
      });
      chartSide.blur();
    });
  }

  // The drill (review.drill_data): a player's mistakes and blunders one at a time, as the position
  // before the move (the table and the hand, not the answer); the player picks one of the moves the
  // analysis valued, judged as analyze judged it, and sees why; the score at the end. Keys: 1-9 pick,
  // Enter the next position, Escape closes; d opens it.
  var drillBox = document.getElementById("drill");
  var drillOpen = document.getElementById("drill-open");
  var DR = {on: false, list: [], i: 0, found: 0, lost: 0, answered: false, seat: 0, skill: ""};
  var drillSeats = [];
  P.forEach(function (p) { if (p.drill && drillSeats.indexOf(p.seat) < 0) { drillSeats.push(p.seat); } });
  drillSeats.sort();
  if (drillOpen && drillBox && drillSeats.length) { drillOpen.hidden = false; }

  function drillButton(text, what, title) {
    var b = el("button", "", text);
    b.type = "button";
    b.setAttribute("data-drill", what);
    if (title) { b.title = title; b.setAttribute("aria-label", title); }
    return b;
  }
  // The seat's drilled positions, of one skill (coach.skills) or of every skill ("").
  function drillList(seat, skill) {
    return P.filter(function (p) { return p.drill && p.seat === seat && (!skill || p.drill.skillKey === skill); });
  }
  function drillStart(seat, skill) {
    skill = skill || "";
    DR = {on: true, list: drillList(seat, skill), i: 0, found: 0, lost: 0, answered: false, seat: seat, skill: skill};
    drillBox.hidden = false;
    drillDraw();
    drillBox.scrollIntoView({block: "start"});
  }
  function drillClose() {
    DR.on = false;
    drillBox.hidden = true;
    drillBox.textContent = "";
    drillOpen.focus();
  }
  function drillHead() {
    var head = el("div", "dhead");
    head.appendChild(el("h2", "", "Drill"));
    if (drillSeats.length > 1) {
      var lab = el("label", "note", "mistakes of ");
      var sel = el("select", "");
      sel.id = "drill-who";
      drillSeats.forEach(function (s) {
        var o = el("option", "", D.players[s]);
        o.value = String(s);
        if (s === DR.seat) { o.selected = true; }
        sel.appendChild(o);
      });
      lab.appendChild(sel);
      head.appendChild(lab);
    } else {
      head.appendChild(el("span", "note", "mistakes of " + D.players[DR.seat]));
    }
    // The skills the seat's mistakes missed, to drill one of them (drill --skill in the terminal).
    var skills = [];
    drillList(DR.seat, "").forEach(function (p) {
      if (p.drill.skillKey && !skills.some(function (k) { return k[0] === p.drill.skillKey; })) { skills.push([p.drill.skillKey, p.drill.skill]); }
    });
    if (skills.length > 1) {
      var slab = el("label", "note", "skill ");
      var ssel = el("select", "");
      ssel.id = "drill-skill";
      [["", "every skill"]].concat(skills).forEach(function (k) {
        var o = el("option", "", k[1]);
        o.value = k[0];
        if (k[0] === DR.skill) { o.selected = true; }
        ssel.appendChild(o);
      });
      slab.appendChild(ssel);
      head.appendChild(slab);
    }
    head.appendChild(drillButton("Close", "close", "close the drill (Escape)"));
    return head;
  }
  function drillScore() {
    var tried = DR.answered ? DR.i + 1 : DR.i;
    var lost = DR.lost.toFixed(2);
    return DR.found + " of " + tried + " found; " + lost + " of margin lost in all";
  }
  function drillDraw() {
    drillBox.textContent = "";
    drillBox.appendChild(drillHead());
    if (DR.i >= DR.list.length) {
      drillBox.appendChild(el("p", "score", "Score: " + drillScore() + "."));
      var again = drillButton("Again", "again", "the same positions again");
      drillBox.appendChild(again);
      again.focus();
      return;
    }
    var p = DR.list[DR.i];
    var h = el("p", "", "Position " + (DR.i + 1) + " of " + DR.list.length + ": ply " + p.ply + ", " + p.where + " \u00b7 ");
    h.appendChild(who(p.seat));
    h.appendChild(document.createTextNode(" to play"));
    drillBox.appendChild(h);
    var felt = el("div", "felt");
    felt.appendChild(tableRow(p, {}));
    var row = el("div", "seat tomove");
    row.appendChild(who(p.seat));
    var hand = el("span", "hand");
    (p.hands[p.seat] || []).forEach(function (c) { hand.appendChild(card(c)); });
    row.appendChild(hand);
    felt.appendChild(row);
    drillBox.appendChild(felt);
    drillBox.appendChild(piles(p));
    var task = el("p", "", "The move played here was a " + p.label + ". Pick the best move:");
    drillBox.appendChild(task);
    var ol = el("ol", "choices");
    p.drill.choices.forEach(function (c, k) {
      var li = el("li", "");
      var b = el("button", "");
      b.type = "button";
      b.setAttribute("data-choice", String(k));
      b.setAttribute("aria-label", (k + 1) + ": " + c.move.text);
      b.appendChild(el("span", "key", String(k + 1)));
      b.appendChild(moveEl(c.move));
      li.appendChild(b);
      ol.appendChild(li);
    });
    drillBox.appendChild(ol);
    var out = el("div", "out");
    out.setAttribute("aria-live", "polite");
    drillBox.appendChild(out);
    drillBox.appendChild(el("p", "note", "Keys: 1\u2013" + p.drill.choices.length + " pick a move, Enter the next position, Escape closes."));
    var first = ol.querySelector("button");
    if (first) { first.focus({preventScroll: true}); }
  }
  function drillPick(k) {
    var p = DR.list[DR.i];
    if (DR.answered || !p || k < 0 || k >= p.drill.choices.length) { return; }
    var c = p.drill.choices[k];
    DR.answered = true;
    if (c.right) { DR.found += 1; } else { DR.lost += c.loss; }
    Array.prototype.forEach.call(drillBox.querySelectorAll("button[data-choice]"), function (b) {
      var x = p.drill.choices[parseInt(b.getAttribute("data-choice"), 10)];
      if (x.right) { b.classList.add("right"); }
      else if (x === c) { b.classList.add("wrong"); }
      b.disabled = true;
    });
    var out = drillBox.querySelector(".out");
    out.appendChild(el("p", "judged c-" + c.cls, c.words));
    if (p.drill.skill) { out.appendChild(el("p", "note", "The skill: " + p.drill.skill + ".")); }
    if (p.why && p.why.length) {
      out.appendChild(el("p", "note", "Why the move played lost:"));
      out.appendChild(whyList(p.why));
    }
    out.appendChild(el("p", "note", "So far: " + drillScore() + "."));
    var last = DR.i + 1 >= DR.list.length;
    var next = drillButton(last ? "See the score" : "Next position", "next", last ? "the score (Enter)" : "the next position (Enter)");
    out.appendChild(next);
    next.focus({preventScroll: true});
  }
  function drillNext() {
    if (!DR.answered) { return; }
    DR.i += 1;
    DR.answered = false;
    drillDraw();
  }
  // A key while the drill is open (true: the review below does not step), or d to open it.
  function drillKey(e) {
    if (!drillBox || !drillSeats.length) { return false; }
    if (!DR.on) {
      if (e.key === "d" && !e.shiftKey) { e.preventDefault(); drillStart(drillSeat()); return true; }
      return false;
    }
    if (e.key === "Escape") { e.preventDefault(); drillClose(); }
    else if (/^[1-9]$/.test(e.key)) { e.preventDefault(); drillPick(parseInt(e.key, 10) - 1); }
    else if (e.key === "Enter" && e.target.tagName !== "BUTTON") { e.preventDefault(); drillNext(); }
    return true;
  }
  // Whose mistakes at first: the player the N / P keys follow, if they made any; else the first who did.
  function drillSeat() {
    var s = jumpWho ? parseInt(jumpWho.value, 10) : bottom;
    return drillSeats.indexOf(s) >= 0 ? s : drillSeats[0];
  }
  if (drillOpen && drillSeats.length) {
    drillOpen.addEventListener("click", function () { drillStart(drillSeat()); });
    drillBox.addEventListener("click", function (e) {
      var b = e.target.closest && e.target.closest("button");
      if (!b || b.disabled) { return; }
      if (b.hasAttribute("data-choice")) { drillPick(parseInt(b.getAttribute("data-choice"), 10)); }
      var what = b.getAttribute("data-drill");
      if (what === "next") { drillNext(); }
      else if (what === "close") { drillClose(); }
      else if (what === "again") { drillStart(DR.seat, DR.skill); }
    });
    drillBox.addEventListener("change", function (e) {
      if (e.target.id === "drill-who") { drillStart(parseInt(e.target.value, 10)); }
      else if (e.target.id === "drill-skill") { drillStart(DR.seat, e.target.value); }
    });
  }

  window.addEventListener("hashchange", function () { select(fromHash()); });
  select(fromHash(), true);
  if (/^#ply\d+$/.test(location.hash)) {
    // Opened at a ply: the browser scrolls to its anchor, the board's top; the move list shows its entry.
    window.addEventListener("load", function () {
      setTimeout(function () {
        var a = list.querySelector(".mv.sel");
        if (a) { keepVisible(a); }
      }, 0);
    });
  }
})();
