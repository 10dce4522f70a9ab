// The Spades table page: draws the server's views and sends the person's clicks (protocol: spades_env/web).
"use strict";

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_NAMES = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };
const POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };
const $ = (id) => document.getElementById(id);

let socket = null;
let hello = null;
let view = null;
let hint = null;
let wasOver = false;
let trickCards = 0;  // cards on the table at the last render: a new one makes the sound
const settings = { notation: localStorage.getItem("spades-notation") || "10", sound: localStorage.getItem("spades-sound") === "on" };

// A reload or a dropped connection comes back to the same table: the server keeps it for a minute, and the page
// keeps its token for this tab (sessionStorage) and reconnects on its own.
const TOKEN_KEY = "spades-table";
const RECONNECT_MS = 60000;
let lostAt = null;
let resuming = null;  // when the page began asking to come back to its table (null: not asking)
let keyboardHand = false;  // the hand was last used from the keyboard: its focus comes back on the person's turn
// An invite link (/#join=CODE) opens a place at another person's table; the code never goes to the server in a URL.
let inviteCode = new URLSearchParams(location.hash.slice(1)).get("join");

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.addEventListener("open", () => { lostAt = null; $("connection").textContent = "connected"; });
  socket.addEventListener("close", () => {
    lostAt = lostAt || Date.now();
    if (Date.now() - lostAt < RECONNECT_MS) {
      $("connection").textContent = "disconnected: reconnecting…";
      setTimeout(connect, 1000);
    } else {
      $("connection").textContent = "disconnected: reload the page";
    }
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
}

function resume() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) return;
  resuming = resuming || Date.now();
  send({ type: "resume", token });
}

function offerJoin() {
  resuming = null;
  $("join").hidden = false;
  showSetup(false);
}

// An invite pasted into a tab that shows the page already changes only the part after "#".
window.addEventListener("hashchange", () => {
  inviteCode = new URLSearchParams(location.hash.slice(1)).get("join");
  if (inviteCode && hello) offerJoin();
});

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function say(text) { $("message").textContent = text || ""; }

function receive(message) {
  if (message.type === "hello") {
    const first = hello === null;
    hello = message;
    if (first) setUp();
    if (inviteCode) offerJoin();  // an invite opened in this tab comes before the table it was at
    else resume();
  }
  else if (message.type === "table") {  // a table of this tab's, new or come back to
    resuming = null;
    wasOver = false;
    sessionStorage.setItem(TOKEN_KEY, message.token);
    if (inviteCode) { inviteCode = null; history.replaceState(null, "", location.pathname); }  // a reload comes back by the token
    $("join").hidden = true;
    $("invite").hidden = !message.invite;
    $("invite-link").value = message.invite ? `${location.origin}/#join=${message.invite}` : "";
    $("pace").value = message.pace_ms;
    $("pace-text").textContent = `${message.pace_ms} ms`;
    showSetup(false);
  }
  else if (message.type === "state") { view = message.view; hint = null; $("hint-text").textContent = ""; render(); }
  else if (message.type === "error") {
    if (resuming !== null && message.message.startsWith("that table is gone")) {
      // the server may not have seen the old connection go yet (a network drop): ask again for the minute
      if (Date.now() - resuming < RECONNECT_MS) { setTimeout(() => { if (resuming !== null) resume(); }, 2000); return; }
      resuming = null;
      sessionStorage.removeItem(TOKEN_KEY);
      showSetup(true);
    }
    say(message.message);
    if (!view) showSetup(true);
  }
  else if (message.type === "hint") {
    hint = message.action;
    $("hint-text").textContent = `hint (${message.agent}): ${actionLabel(message.name)}`;
    render();
  } else if (message.type === "record") { download(message.record); }
}

// ------------------------------------------------------------------ set-up
function setUp() {
  const rules = $("rules");
  rules.replaceChildren(...hello.presets.map((name) => option(name, name)));
  rules.value = "standard";
  rules.addEventListener("change", seatChoices);
  seatChoices();
  $("pace").value = hello.pace_ms;
  $("pace-text").textContent = `${hello.pace_ms} ms`;
  $("pace").addEventListener("input", () => {
    $("pace-text").textContent = `${$("pace").value} ms`;
    // the host's pace is the table's; anyone else's is for the next table they open
    if (!view || view.kind !== "live" || view.host) send({ type: "pace", ms: Number($("pace").value) });
  });
  $("start").addEventListener("click", start);
  $("join-seat").addEventListener("click", () => { say(""); send({ type: "join", invite: inviteCode }); });
  $("join-watch").addEventListener("click", () => { say(""); send({ type: "join", invite: inviteCode, seat: null }); });
  $("invite-copy").addEventListener("click", () => {
    $("invite-link").select();
    if (navigator.clipboard) navigator.clipboard.writeText($("invite-link").value).then(() => say("link copied"), () => say("select the link and copy it"));
  });
  $("fill").addEventListener("click", () => send({ type: "fill", seat: null }));
  $("show-setup").addEventListener("click", () => showSetup(true));
  $("hint").addEventListener("click", () => send({ type: "hint" }));
  $("save").addEventListener("click", () => send({ type: "save" }));
  $("continue").addEventListener("click", () => send({ type: "continue" }));
  $("move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("move").value.trim();
    if (!text) return;
    say("");
    send({ type: "move", text });
    $("move").value = "";
  });
  $("replay-file").addEventListener("change", openRecord);
  $("notation").value = settings.notation;
  $("notation").addEventListener("change", () => {
    settings.notation = $("notation").value;
    localStorage.setItem("spades-notation", settings.notation);
    if (view) render();
  });
  $("sound").checked = settings.sound;
  $("sound").addEventListener("change", () => {
    settings.sound = $("sound").checked;
    localStorage.setItem("spades-sound", settings.sound ? "on" : "off");
  });
  $("replay-first").addEventListener("click", () => seek(0));
  $("replay-prev").addEventListener("click", () => seek(view.index - 1));
  $("replay-next").addEventListener("click", () => seek(view.index + 1));
  $("replay-last").addEventListener("click", () => seek(view.total));
  $("replay-slider").addEventListener("input", () => seek(Number($("replay-slider").value)));
  $("viewer").addEventListener("change", () => {
    const value = $("viewer").value;
    send({ type: "viewer", seat: value === "all" ? null : Number(value) });
  });
}

function option(value, text) {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = text;
  return element;
}

// the agents the server offers that can play these rules (one without the drawing turns cannot play two_player)
function playable(rules) {
  const refused = hello.unplayable[rules] || {};
  return hello.agents.filter((name) => !Object.hasOwn(refused, name));
}

function seatChoices() {
  const players = hello.players[$("rules").value];
  const agents = playable($("rules").value);
  const substitute = $("substitute");
  const kept = substitute.value;
  substitute.replaceChildren(...agents.map((name) => option(name, name)));
  substitute.value = agents.includes(kept) ? kept : agents.includes(hello.hint_agent) ? hello.hint_agent : agents[0];
  const box = $("seat-choices");
  box.replaceChildren();
  for (let seat = 0; seat < players; seat++) {
    const label = document.createElement("label");
    label.textContent = `Seat ${seat} `;
    const select = document.createElement("select");
    select.id = `seat-${seat}`;
    select.append(option("human", "you"), option("guest", "a person (by invite)"), ...agents.map((name) => option(name, name)));
    select.value = seat === 0 ? "human" : "heuristic";
    label.append(select);
    box.append(label);
  }
}

function start() {
  const players = hello.players[$("rules").value];
  const chosen = [];
  for (let seat = 0; seat < players; seat++) chosen.push($(`seat-${seat}`).value);
  const mine = chosen.indexOf("human");
  if (chosen.filter((who) => who === "human").length > 1) { say("choose 'you' for one seat (invite the other people)"); return; }
  if (mine < 0 && chosen.includes("guest")) { say("take a seat yourself to invite others"); return; }
  const seats = chosen.map((who) => (who === "guest" ? "human" : who));
  const seed = $("seed").value === "" ? null : Number($("seed").value);
  say("");
  showSetup(false);
  resuming = null;
  send({
    type: "new", rules: $("rules").value, seats, episode: $("episode").value, seed, pace_ms: Number($("pace").value),
    seat: mine < 0 ? null : mine, spectators: $("spectators").value, substitute: $("substitute").value,
  });
}

function openRecord() {
  const file = $("replay-file").files[0];
  if (!file) return;
  if (file.size > hello.max_message_bytes) { say(`the record is too large (over ${hello.max_message_bytes} bytes)`); return; }
  file.text().then((text) => {
    let record;
    try { record = JSON.parse(text); } catch (error) { say(`not a JSON file: ${error.message}`); return; }
    say("");
    showSetup(false);
    resuming = null;
    send({ type: "replay", record });
  });
}

function seek(index) {
  if (!view || view.kind !== "replay") return;
  send({ type: "seek", index: Math.max(0, Math.min(view.total, index)) });
}

function download(record) {
  const blob = new Blob([JSON.stringify(record)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `spades-${record.rules.name}-seed${record.seed}.json`;
  document.body.append(link);
  link.click();
  link.remove();
}

// ------------------------------------------------------------------ drawing
function cardElement(name, small, interactive) {
  const element = document.createElement(interactive ? "button" : "span");
  element.className = "card" + (small ? " small" : "");
  element.dataset.card = name;
  if (interactive) element.type = "button";  // named by its hidden words (accessibleCard), as it shows
  else { element.setAttribute("role", "img"); element.setAttribute("aria-label", cardLabel(name)); }
  if (name === "BJ" || name === "LJ") {
    element.classList.add("joker");
    element.textContent = name === "BJ" ? "★ big" : "☆ little";
    element.title = name === "BJ" ? "big joker" : "little joker";
  } else {
    const rank = rankText(name[0]);
    element.textContent = rank + SUITS[name[1]];
    if (name[1] === "H" || name[1] === "D") element.classList.add("red");
  }
  if (interactive) accessibleCard(element, cardLabel(name));
  return element;
}

// A card button shows "10♥" and is read "10 of hearts": the shown text hidden from screen readers, the words
// hidden from the eye (its name holds no text that is not shown, nor shows any that is not in its name).
function accessibleCard(element, words) {
  const shown = document.createElement("span");
  shown.setAttribute("aria-hidden", "true");
  shown.textContent = element.textContent;
  const said = document.createElement("span");
  said.className = "sr-only";
  said.textContent = words;
  element.replaceChildren(shown, said);
}

function cardLabel(name) {
  if (name === "BJ") return "big joker";
  if (name === "LJ") return "little joker";
  return `${RANK_NAMES[name[0]] || name[0]} of ${SUIT_NAMES[name[1]]}`;
}

function actionLabel(name) {
  return /^[2-9TJQKA][SHDC]$|^[BL]J$/.test(name) ? cardText(name) : name;
}

function cardText(name) {
  if (name === "BJ") return "big joker";
  if (name === "LJ") return "little joker";
  return rankText(name[0]) + SUITS[name[1]];
}

// The ten as "10" or "T" (the person's choice, kept in the browser), on the cards and in every line that names one.
function rankText(rank) { return rank === "T" ? settings.notation : rank; }

function inNotation(line) {
  // the log names cards as actions do ("TH"): shown as the cards are ("10♥" or "T♥")
  return line.replace(/\b([2-9TJQKA])([SHDC])\b/g, (_, rank, suit) => rankText(rank) + SUITS[suit]);
}

// A short click when a card lands on the table (off unless the person turns it on).
let audio = null;
function click() {
  if (!settings.sound) return;
  audio = audio || new AudioContext();
  if (audio.state === "suspended") audio.resume();  // made before the person touched the page
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.frequency.value = 660;
  gain.gain.setValueAtTime(0.15, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.08);
  tone.connect(gain).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + 0.08);
}

function anchorSeat() {
  if (view.viewer !== null && view.viewer !== undefined && view.viewer >= 0) return view.viewer;
  return 0;
}

function positionOf(seat) {
  const n = view.num_players;
  return POSITIONS[n][(seat - anchorSeat() + n) % n];
}

// The setup panels hide while a game or a replay runs (one button brings them back), so that the table has the room.
function showSetup(shown) {
  $("setup").hidden = !shown;
  $("replay-setup").hidden = !shown;
  $("show-setup").hidden = shown;
}

function render() {
  $("table").classList.remove("empty");
  const over = view.kind === "live" && view.over;
  if (over && !wasOver) showSetup(true);  // the game has ended: the setup comes back for the next one
  wasOver = over;
  $("table").classList.toggle("between-hands", Boolean(view.holding));
  const actions = view.actions;
  const myTurn = actions && actions.legal.length > 0;
  const legal = new Set(myTurn ? actions.legal.map((a) => a.id) : []);
  const illegal = myTurn ? actions.illegal : {};
  const cardIds = new Map(myTurn ? actions.shown.map((a) => [a.name, a.id]) : []);

  const focused = handFocus();
  for (const element of document.querySelectorAll("#table .seat")) { element.replaceChildren(); element.removeAttribute("data-seat"); }
  for (const seat of view.seats) {
    const box = document.querySelector(`#table .seat.pos-${positionOf(seat.seat)}`);
    box.dataset.seat = seat.seat;
    box.classList.toggle("to-act", view.current === seat.seat);
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = seat.name;
    if (seat.dealer) {
      const chip = document.createElement("span");
      chip.className = "dealer-chip";
      chip.textContent = "D";
      chip.title = "dealer";
      name.append(chip);
    }
    const facts = document.createElement("div");
    facts.className = "facts";
    facts.textContent = `bid ${seat.bid === null ? "–" : seat.bid} · tricks ${seat.tricks}`;
    const cards = document.createElement("div");
    cards.className = "cards";
    const mine = seat.seat === view.viewer;
    if (mine) {
      cards.id = "my-cards";
      cards.setAttribute("role", "group");
      cards.setAttribute("aria-label", "your hand: arrow keys move between cards, Enter plays");
      cards.addEventListener("keydown", moveFocus);
    }
    if (seat.cards !== null) {
      let suit = null;
      for (const card of seat.cards) {
        const group = card.length === 2 && card[1] !== "J" ? card[1] : "joker";
        if (suit !== null && group !== suit) {
          const gap = document.createElement("span");
          gap.className = "suit-gap";
          gap.setAttribute("aria-hidden", "true");
          cards.append(gap);
        }
        suit = group;
        const id = cardIds.get(card);
        const playable = mine && myTurn && id !== undefined;
        const element = cardElement(card, !mine && view.viewer !== null, playable);
        if (playable) {
          element.dataset.action = id;
          if (legal.has(id)) {
            element.classList.add("legal");
            element.addEventListener("click", () => { say(""); send({ type: "act", action: id }); });
          } else if (illegal[id]) {
            element.classList.add("illegal");
            element.title = illegal[id];
            element.setAttribute("aria-disabled", "true");
            element.querySelector(".sr-only").textContent += ` (not playable: ${illegal[id]})`;
            element.addEventListener("click", () => say(`${cardText(card)}: ${illegal[id]}`));
          }
          if (hint === id) element.classList.add("hinted");
        }
        cards.append(element);
      }
    } else if (seat.count > 0) {
      const backs = document.createElement("span");
      backs.className = "backs";
      const back = document.createElement("span");
      back.className = "card back small";
      backs.append(back, ` × ${seat.count}`);
      cards.append(backs);
    }
    box.append(name, facts, cards);
    if (mine) rovingFocus(cards, focused);
    if (seat.discards && seat.discards.length) {
      const discards = document.createElement("div");
      discards.className = "facts";
      discards.textContent = `discarded: ${seat.discards.map(cardText).join(" ")}`;
      box.append(discards);
    }
  }

  // A finished trick stays on the table, its winner marked and the cards sliding to them, until the next card
  // is played (one pace step when an agent leads next).
  const trick = $("trick");
  trick.replaceChildren();
  trick.className = "";
  const finished = view.trick.length === 0 && view.last_trick &&
    (view.holding || (view.phase !== "bidding" && view.trick_number > 1));
  const shown = finished ? view.last_trick.cards : view.trick;
  if (finished) trick.classList.add("collected", `to-${positionOf(view.last_trick.winner)}`);
  for (const played of shown) {
    const element = cardElement(played.card, false);
    element.classList.add("played", `pos-${positionOf(played.seat)}`);
    if (finished && played.seat === view.last_trick.winner) element.classList.add("winner");
    element.title = view.seats[played.seat].name;
    trick.append(element);
  }
  if (view.trick.length > trickCards || (finished && trickCards > 0 && trickCards < shown.length)) click();
  trickCards = view.trick.length;
  const broken = view.spades_broken ? "spades broken" : "spades not broken";
  $("info").textContent = `hand ${view.hand_number} (${view.hand_rules}) · ${view.phase}` +
    (view.phase === "play" ? ` · trick ${view.trick_number} of ${view.num_tricks}` : "") + ` · ${broken}`;
  $("last-trick").textContent = view.last_trick
    ? `last trick: ${view.last_trick.cards.map((p) => cardText(p.card)).join(" ")}, won by ${view.seats[view.last_trick.winner].name}`
    : "";
  for (const element of document.querySelectorAll("#table .seat")) {
    element.classList.toggle("takes", finished && element.dataset.seat === String(view.last_trick.winner));
  }

  renderDecisions(myTurn, actions, legal, illegal);
  renderScores();
  renderScoreSheet();
  renderStatus(myTurn);
  renderSummary();
  renderReplay();
  renderPeople();
  $("hint").disabled = !myTurn;
  $("move").disabled = !myTurn;
  $("move-form").querySelector("button").disabled = !myTurn;
  $("save").disabled = view.kind !== "live";
  const log = $("log");
  log.replaceChildren(...view.log.map((line) => { const item = document.createElement("li"); item.textContent = inNotation(line); return item; }));
}

// The hand is one tab stop: the arrow keys move between its cards (a roving tabindex), Enter or Space plays one.
function handCards() { return [...document.querySelectorAll("#my-cards button.card")]; }

function handFocus() {
  const cards = handCards();
  const at = cards.indexOf(document.activeElement);
  return at < 0 ? null : { at, card: document.activeElement.dataset.card };
}

function rovingFocus(container, focused) {
  const cards = [...container.querySelectorAll("button.card")];
  if (!cards.length) return;
  let at = focused ? cards.findIndex((c) => c.dataset.card === focused.card) : -1;
  if (at < 0 && focused) at = Math.min(focused.at, cards.length - 1);
  if (at < 0) at = Math.max(0, cards.findIndex((c) => c.classList.contains("legal")));
  cards.forEach((card, i) => { card.tabIndex = i === at ? 0 : -1; });
  if (focused || keyboardHand) cards[at].focus();
}

function moveFocus(event) {
  const cards = handCards();
  const at = cards.indexOf(document.activeElement);
  if (at < 0) return;
  const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: cards.length - 1 }[event.key];
  if (next === undefined) return;
  event.preventDefault();
  const target = cards[(next + cards.length) % cards.length];
  cards.forEach((card) => { card.tabIndex = card === target ? 0 : -1; });
  target.focus();
}

function renderDecisions(myTurn, actions, legal, illegal) {
  const bids = $("bids");
  bids.replaceChildren();
  const drawing = $("drawing");
  drawing.replaceChildren();
  drawing.hidden = !view.drawing;
  if (view.drawing) {
    const stock = document.createElement("span");
    stock.textContent = `stock: ${view.drawing.stock_left} cards`;
    drawing.append(stock);
    if (view.drawing.offered) { drawing.append(" · on offer: ", cardElement(view.drawing.offered, false)); }
  }
  if (!myTurn) return;
  const cardPhase = view.phase === "play" || view.phase === "exchange";
  if (cardPhase) return;
  const target = view.phase === "drawing" ? drawing : bids;
  for (const action of actions.shown) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = action.name;
    button.dataset.action = action.id;
    if (legal.has(action.id)) {
      button.className = "legal";
      button.addEventListener("click", () => { say(""); send({ type: "act", action: action.id }); });
    } else {
      button.className = "illegal";
      button.title = illegal[action.id] || "";
      button.setAttribute("aria-disabled", "true");
      button.addEventListener("click", () => say(`${action.name}: ${illegal[action.id]}`));
    }
    if (hint === action.id) button.classList.add("hinted");
    target.append(button);
  }
}

function renderScores() {
  const body = $("score-table").querySelector("tbody");
  body.replaceChildren(...view.sides.map((side) => {
    const row = document.createElement("tr");
    for (const value of [side.name, side.score, side.bags]) {
      const cell = document.createElement("td");
      cell.textContent = value;
      row.append(cell);
    }
    return row;
  }));
  $("target").textContent = `target ${view.target}` + (view.lose_score !== null ? `, out at ${view.lose_score}` : "") +
    (view.episode === "hand" ? " (one hand)" : "");
}

function renderStatus(myTurn) {
  let text;
  if (view.over) {
    if (view.episode === "hand") text = "The hand is over.";
    else if (view.winner === null) text = "The game is over, undecided.";
    else text = `Game over: ${view.sides[view.winner].name} win.`;
  } else if (view.holding && !waitingForMe()) {
    text = `The hand is over: waiting for ${view.waiting.map((seat) => view.seats[seat].name).join(", ")} to go on.`;
  } else if (view.holding) text = "The hand is over: see the summary, then go on.";
  else if (myTurn) text = `Your turn: ${{ bidding: "bid", blind: "bid blind or see your cards", exchange: "pass a card", play: "play a card", drawing: "keep or discard" }[view.phase]}.`;
  else if (view.current !== null) text = `${view.seats[view.current].name} to act.`;
  else text = "";
  if (view.kind === "replay") text = `Replay: ${text}`;
  $("status").textContent = text;
}

function renderSummary() {
  const box = $("summary");
  const result = view.results.length ? view.results[view.results.length - 1] : null;
  const show = result && (view.holding || view.over || (view.hand_ended && view.kind !== "replay") ||
    (view.kind === "replay" && view.hand_ended));
  box.hidden = !show;
  if (!show) return;
  $("summary-title").textContent = view.over ? statusLine() : `Hand ${result.hand_index + 1} (${result.rules}) is over`;
  // one column per side: its players' bids, tricks and nils, then the side's contract, points and score
  const table = $("summary-table");
  table.replaceChildren();
  const players = (side) => view.seats.filter((seat) => seat.side === side.side);
  const row = (title, values, header) => {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.textContent = title;
    th.scope = "row";
    tr.append(th);
    for (const value of values) {
      const cell = document.createElement(header ? "th" : "td");
      if (header) cell.scope = "col";
      cell.textContent = value;
      tr.append(cell);
    }
    table.append(tr);
  };
  row("", view.sides.map((side) => side.name), true);
  const each = (text) => view.sides.map((side) => players(side).map((seat) => `${seat.name} ${text(seat.seat)}`).join(", "));
  row("bids", each((seat) => result.bids[seat]));
  row("tricks", each((seat) => result.tricks[seat]));
  if (result.nil_made.some((made) => made !== null)) {
    row("nil", each((seat) => (result.nil_made[seat] === null ? "–" : result.nil_made[seat] ? "made" : "failed")));
  }
  row("contract", view.sides.map((side) => `${result.contracts[side.side]} ${result.made[side.side] ? "made" : "set"}`));
  row("bag penalty", view.sides.map((side) => result.bag_penalties[side.side]));
  row("points", view.sides.map((side) => result.points[side.side]));
  row("score (bags)", view.sides.map((side) => `${result.scores[side.side]} (${result.bags[side.side]})`));
  $("continue").hidden = !view.holding || !waitingForMe();
}

// Every hand's bids, tricks, points and bags per side, and while bidding the bids made so far.
function renderScoreSheet() {
  const table = $("score-sheet");
  table.replaceChildren();
  const head = document.createElement("tr");
  for (const title of ["hand", ...view.sides.map((side) => side.name)]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = title;
    head.append(th);
  }
  table.append(head);
  const tricksOf = (result, side) =>
    view.seats.filter((seat) => seat.side === side).reduce((sum, seat) => sum + result.tricks[seat.seat], 0);
  for (const result of view.results) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = result.hand_index + 1;
    tr.append(th);
    for (const side of view.sides) {
      const td = document.createElement("td");
      td.textContent = `${result.contracts[side.side]}/${tricksOf(result, side.side)}: ` +
        `${result.points[side.side] >= 0 ? "+" : ""}${result.points[side.side]} → ${result.scores[side.side]} (${result.bags[side.side]} bags)`;
      tr.append(td);
    }
    table.append(tr);
  }
  const tally = $("bid-tally");
  const bidding = view.phase === "bidding" && !view.holding && view.seats.some((seat) => seat.bid !== null);
  tally.hidden = !bidding;
  if (bidding) {
    tally.textContent = "bids so far: " + view.sides.map((side) => {
      const bids = view.seats.filter((seat) => seat.side === side.side && seat.bid !== null).map((seat) => seat.bid);
      const total = bids.reduce((sum, bid) => sum + (Number.isNaN(Number(bid)) ? 0 : Number(bid)), 0);
      return `${side.name} ${bids.length ? `${total} (${bids.join(" + ")})` : "–"}`;
    }).join(" · ");
  }
}

// Whether the hand-end summary waits for this tab's person (every person at the table goes on before the next hand).
function waitingForMe() { return Boolean(view.waiting && view.viewer !== null && view.waiting.includes(view.viewer)); }

// Who sits in the people's seats (here, away, open) and, for the host, agents for the seats nobody is in.
function renderPeople() {
  const list = $("people");
  const people = view.people || [];
  list.replaceChildren(...people.map((person) => {
    const item = document.createElement("li");
    item.textContent = `${view.seats[person.seat].name}: ${{ here: "here", away: "away (may come back)", open: "open" }[person.state]}`;
    return item;
  }));
  if (view.spectators) {
    const item = document.createElement("li");
    item.textContent = `${view.spectators} watching`;
    list.append(item);
  }
  $("fill").hidden = !(view.host && view.kind === "live" && !view.over && people.some((p) => p.state !== "here"));
  $("pace-note").hidden = !(view.kind === "live" && !view.host);
}

function statusLine() {
  if (view.episode === "hand") return "The hand is over";
  if (view.winner === null) return "The game is over, undecided";
  return `Game over: ${view.sides[view.winner].name} win`;
}

function renderReplay() {
  const bar = $("replay-bar");
  bar.hidden = view.kind !== "replay";
  if (view.kind !== "replay") return;
  $("replay-slider").max = view.total;
  $("replay-slider").value = view.index;
  $("replay-index").textContent = `${view.index} / ${view.total}`;
  const viewer = $("viewer");
  const wanted = ["all", ...view.seats.map((s) => String(s.seat))];
  if (viewer.options.length !== wanted.length) {
    viewer.replaceChildren(option("all", "every hand"), ...view.seats.map((s) => option(String(s.seat), s.name)));
  }
  viewer.value = view.viewer === null ? "all" : String(view.viewer);
}

document.addEventListener("focusin", (event) => { keyboardHand = Boolean(event.target.closest("#my-cards")); });
document.addEventListener("DOMContentLoaded", connect);
