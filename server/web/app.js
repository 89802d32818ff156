// The play page of `polyzero serve`: one session at a time, its id kept in the URL hash
// (#session=ID) so that a reload or a server restart reopens it. The server is the source
// of truth: every change arrives as a session state (the answer to a request, or a `state`
// event), and the page redraws everything from the latest state.

import * as api from './api.js';
import { canDraw, drawBoard, seatColours, isDirectionBoard, directionMove, directionOf, DIRECTIONS } from './boards.js';
import { renderThinking, renderValueGraph, seatLabel } from './analysis.js';
import { NewGameForm } from './newgame.js';
import { html, clear } from './svg.js';

const $ = (selector) => document.querySelector(selector);

const ui = {
  state: null,        // the latest session state
  live: null,         // the latest `thinking` event of the running search, or null
  selected: null,     // the piece picked for a two-click move, or null
  closeEvents: null,  // closes the current event stream
  streamOpen: false,  // the event stream is connected
  moving: false,      // a move the person made is on its way to the server
  queuedDirection: null,  // a direction key pressed meanwhile (direction boards): played next
  stateEvents: 0,     // `state` events received so far (orders answers against events)
  simultaneousGames: new Set(),  // names of the games with simultaneous moves (GET /api/games)
};

// ---------------------------------------------------------------------------------------
// Sessions

async function startGame(request) {
  hideError();
  const state = await guarded(() => api.createSession(request.game, request.seats));
  if (!state) return;
  showSession(state);
  location.hash = `session=${state.id}`;
}

async function openSession(id) {
  const state = await guarded(() => api.getSession(id));
  if (state) {
    showSession(state);
  } else if (ui.state?.id !== id) {
    history.replaceState(null, '', location.pathname + location.search);
  }
}

// Makes `state`'s session the current one (subscribing to its events) and draws it. On a
// narrow screen a newly shown session folds the new-game form away, so the board is first.
function showSession(state) {
  if (ui.state?.id !== state.id) {
    ui.closeEvents?.();
    ui.state = null;
    ui.live = null;
    ui.selected = null;
    disarmResign();
    subscribe(state.id);
    if (NARROW.matches) $('#setup-fold').open = false;
  }
  applyState(state);
}

// The page's one-column layout (style.css: the same width).
const NARROW = window.matchMedia('(max-width: 1000px)');

function subscribe(id) {
  ui.streamOpen = false;
  ui.closeEvents = api.subscribe(id, {
    onState: (state) => {
      if (state.id !== ui.state?.id) return;
      ui.stateEvents++;
      applyState(state);
    },
    onThinking: (thinking) => {
      const wasThinking = aiThinking(ui.state);
      ui.live = thinking;
      // The first thinking event of a search can turn the status into "AI is thinking…".
      if (aiThinking(ui.state) !== wasThinking) render();
      else {
        renderAnalysis();
        renderBoard();
      }
    },
    onServerError: (data) => showError(data.error ?? 'the server reported an error'),
    // Every (re)connection resynchronises: events sent while disconnected are lost.
    onOpen: () => {
      ui.streamOpen = true;
      if (ui.state?.id === id) refresh(() => api.getSession(id));
    },
    onError: (closed) => {
      ui.streamOpen = false;
      // A closed stream (an HTTP error, not a dropped connection) is not retried by the
      // browser: retry a little later while this session is still shown.
      if (closed) setTimeout(() => { if (ui.state?.id === id) { ui.closeEvents?.(); subscribe(id); } }, 5000);
    },
  });
}

// Runs a request whose answer is a session state and applies it, unless a `state` event
// arrived meanwhile: the stream then carries states at least as new as the answer.
async function refresh(request) {
  const eventsBefore = ui.stateEvents;
  const state = await guarded(request);
  if (!state || state.id !== ui.state?.id) return;
  if (ui.streamOpen && ui.stateEvents !== eventsBefore) return;
  applyState(state);
}

function applyState(state) {
  const previous = ui.state;
  ui.state = state;
  if (previous?.move_number !== state.move_number || state.status !== 'playing') ui.live = null;
  if (!humanToMove(state) || previous?.move_number !== state.move_number) ui.selected = null;
  render();
}

// ---------------------------------------------------------------------------------------
// Actions of the person

// One move at a time: a second click before the server answered would be refused (409).
async function playMove(move) {
  if (!ui.state || !move || ui.moving) return;
  hideError();
  ui.selected = null;
  ui.moving = true;
  ui.queuedDirection = null;
  try {
    await refresh(() => api.playMove(ui.state.id, move));
  } finally {
    ui.moving = false;
  }
  // A direction pressed while the move was on its way is played now, if still legal.
  const direction = ui.queuedDirection;
  ui.queuedDirection = null;
  if (direction) playDirection(direction);
}

// Plays `direction` on a direction board through its button (enabled only when legal); while
// a move is on its way the latest direction waits for it.
function playDirection(direction) {
  if (ui.moving) {
    ui.queuedDirection = direction;
    return;
  }
  const button = $(`#move-${direction}`);
  if (button && !button.disabled && button.dataset.move) playMove(button.dataset.move);
}

function selectPiece(cell) {
  ui.selected = ui.selected === cell ? null : cell;
  renderBoard();
}

// An AI searches for this session: the state says so, or a running search for the seat to
// move reports (the server sends the state after a human move before it queues the AI's
// search, so that state still says "thinking": false).
function aiThinking(state) {
  if (!state || state.status !== 'playing') return false;
  return Boolean(state.thinking) || Boolean(ui.live && !ui.live.done && ui.live.seat === state.to_move);
}

function humanSeats(state) {
  return (state?.seats ?? []).filter((s) => s.player === 'human').map((s) => s.seat);
}

// A human is to move and may play now.
function humanToMove(state) {
  return Boolean(state) && state.status === 'playing' && !aiThinking(state) &&
    state.to_move !== null && state.to_move !== undefined &&
    humanSeats(state).includes(state.to_move) && (state.legal_moves ?? []).length > 0;
}

async function exportRecord(format) {
  if (!ui.state) return;
  hideError();
  const record = await guarded(() => api.getRecord(ui.state.id));
  if (!record) return;
  const base = `polyzero-${ui.state.name}-${ui.state.id.slice(0, 8)}`;
  if (format === 'sgf') {
    if (record.sgf) download(record.sgf, `${base}.sgf`, 'application/x-go-sgf');
    else showError('This game has no SGF record.');
  } else {
    download(JSON.stringify(record, null, 2), `${base}.json`, 'application/json');
  }
}

function download(text, filename, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = html('a', { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// A request the person asked for (undo, resign, AI move): a new action, so the error line of
// an earlier one goes.
function act(request) {
  if (!ui.state) return;
  hideError();
  refresh(request);
}

// Resigning takes two clicks: the first arms the button ("Confirm resign") for
// RESIGN_CONFIRM_MS, the second resigns. A click elsewhere, Escape, the time running out,
// another session or the button being disabled disarms it.
const RESIGN_CONFIRM_MS = 6000;
let resignTimer = null;

function resignClicked() {
  if (!ui.state) return;
  if ($('#resign').dataset.confirm !== 'true') {
    armResign();
    return;
  }
  disarmResign();
  act(() => api.resign(ui.state.id));
}

function armResign() {
  const button = $('#resign');
  button.dataset.confirm = 'true';
  button.textContent = 'Confirm resign';
  button.setAttribute('aria-label', 'Click again to resign this game');
  clearTimeout(resignTimer);
  resignTimer = setTimeout(disarmResign, RESIGN_CONFIRM_MS);
}

function disarmResign() {
  const button = $('#resign');
  clearTimeout(resignTimer);
  resignTimer = null;
  if (button.dataset.confirm !== 'true') return;
  delete button.dataset.confirm;
  button.textContent = 'Resign';
  button.removeAttribute('aria-label');
}

// ---------------------------------------------------------------------------------------
// Errors: one dismissible line; never alert(). A new action of the person or the browser's
// own validation message (a form field that is not valid) clears it.

async function guarded(request) {
  try {
    return await request();
  } catch (error) {
    showError(error.message || String(error));
    return null;
  }
}

function showError(message) {
  $('#error-text').textContent = message;
  $('#error').hidden = false;
}

function hideError() {
  $('#error').hidden = true;
}

// ---------------------------------------------------------------------------------------
// Drawing

function render() {
  const state = ui.state;
  document.body.dataset.session = state?.id ?? '';  // the session shown (for tests)
  $('#no-game').hidden = Boolean(state);
  renderStatus(state);
  renderSeats(state);
  renderResult(state);
  renderBoard();
  renderMoveInput(state);
  renderMoveList(state);
  renderControls(state);
  renderAnalysis();
  renderValueGraph($('#value-graph'), state, $('#graph-heading'));
}

function renderStatus(state) {
  const status = $('#status');
  if (!state) {
    status.textContent = 'No game yet.';
    status.dataset.state = 'none';
    return;
  }
  const humans = humanSeats(state);
  const you = humans.length === 0 ? 'you watch'
    : humans.length === state.seats.length && humans.length > 1 ? 'people on every side'
    : state.seats.length === 1 ? 'you play'
    : `you play ${humans.map((s) => `${seatLabel(state, s)} (${ordinal(s)})`).join(' and ')}`;
  let turn;
  if (state.status === 'finished') {
    turn = 'game over';
    status.dataset.state = 'finished';
  } else if (state.simultaneous && humanToMove(state)) {
    // Both choose at once: the human's choice first, the AI's follows (server/README.md).
    turn = `${humans.length > 1 ? `${seatLabel(state, state.to_move)}: ` : ''}choose your move (both players move at once)`;
    status.dataset.state = 'your-turn';
  } else if (state.simultaneous && !humans.includes(state.to_move)) {
    turn = 'waiting for the AI\'s choice…';
    status.dataset.state = aiThinking(state) ? 'thinking' : 'waiting';
  } else if (aiThinking(state)) {
    turn = `${seatLabel(state, state.to_move)} to move — AI is thinking…`;
    status.dataset.state = 'thinking';
  } else if (humanToMove(state)) {
    turn = humans.length === 1 ? `${seatLabel(state, state.to_move)} to move — your turn`
      : `${seatLabel(state, state.to_move)} to move`;
    status.dataset.state = 'your-turn';
  } else {
    turn = `${seatLabel(state, state.to_move)} to move`;
    status.dataset.state = 'waiting';
  }
  status.textContent = `${state.long_name || state.name} · ${you} · move ${state.move_number} · ${turn}`;
}

const ordinal = (seat) => ['first', 'second', 'third', 'fourth'][seat] ?? `seat ${seat + 1}`;

function renderSeats(state) {
  const list = $('#seats');
  clear(list);
  const colours = seatColours(state);
  for (const seat of state?.seats ?? []) {
    const toMove = state.status === 'playing' && state.to_move === seat.seat;
    list.append(html('li', { class: `seat-${seat.seat}${toMove ? ' to-move' : ''}`, 'data-seat': seat.seat }, [
      swatch(colours, seat.seat),
      html('strong', { text: seat.label || `seat ${seat.seat}` }),
      document.createTextNode(` ${seat.player === 'human' ? 'you (human)' : seat.player}`),
    ]));
  }
}

function swatch(colours, seat) {
  return html('span', { class: 'swatch', style: `background: ${colours[seat] ?? '#999'}`, 'aria-hidden': 'true' });
}

function renderResult(state) {
  const banner = $('#result');
  const result = state?.status === 'finished' ? state.result : null;
  banner.hidden = !result;
  if (!result) return;
  // The text may already give the reason ("White wins (Black resigned)"): not said twice.
  const text = result.text || 'Game over';
  const said = (reason) => text.toLowerCase().includes(reason.toLowerCase());
  const reason = result.reason && result.reason !== 'game over' && !said(result.reason) ? ` (${result.reason})` : '';
  banner.textContent = `${text}${reason}`;
  const humans = humanSeats(state);
  banner.dataset.outcome = result.winner === null || result.winner === undefined ? 'draw'
    : humans.includes(result.winner) ? 'won' : humans.length ? 'lost' : 'decided';
}

function renderBoard() {
  const state = ui.state;
  const board = $('#board');
  const text = $('#board-text');
  const textView = $('#text-view');
  const drawable = Boolean(state) && canDraw(state);
  board.toggleAttribute('hidden', !drawable);  // an <svg> has no `hidden` property
  text.hidden = !state || drawable;
  textView.hidden = !drawable || !state.text;
  if (!state) return;
  if (drawable) {
    const live = aiThinking(state) && ui.live?.seat === state.to_move ? ui.live : null;
    // Redrawing replaces the cells: keyboard focus moves to the same cell's new element.
    const focused = board.contains(document.activeElement) ? focusKey(document.activeElement) : null;
    drawBoard(board, state, {
      interactive: humanToMove(state), selected: ui.selected, visits: live?.moves ?? null, visitsSeat: live?.seat,
    });
    if (focused) board.querySelector(focused)?.focus();
    $('#text-view-pre').textContent = state.text ?? '';
  } else {
    text.textContent = state.text ?? '';
  }
}

// A selector for the board element `el` that survives a redraw.
function focusKey(el) {
  if (el.dataset.column !== undefined) return `.hit[data-column="${el.dataset.column}"]`;
  if (el.dataset.cell !== undefined) return `.hit[data-cell="${el.dataset.cell}"]`;
  return null;
}

// The move text field (every game), the legal moves as buttons (games without a drawn
// board) and the moves that are not cells (pass, swap) as buttons.
function renderMoveInput(state) {
  const canMove = humanToMove(state);
  const legal = canMove ? state.legal_moves : [];
  $('#move-input').disabled = !canMove;
  $('#move-submit').disabled = !canMove;
  const datalist = $('#legal-list');
  clear(datalist);
  for (const move of legal.slice(0, 500)) datalist.append(html('option', { value: move }));

  const drawable = Boolean(state) && canDraw(state);
  const buttons = $('#legal-moves');
  clear(buttons);
  buttons.hidden = drawable || !canMove;
  if (!drawable) {
    for (const move of legal.slice(0, 500)) {
      buttons.append(html('button', { type: 'button', class: 'move-button', 'data-move': move, text: move }));
    }
  }

  const direction = drawable && isDirectionBoard(state);
  renderDirectionPad(state, direction, canMove);
  const others = $('#other-moves');
  clear(others);
  const otherMoves = (drawable && canMove ? state.board.other_moves ?? [] : [])
    .filter((move) => !(direction && directionOf(move)));  // those have the direction pad
  for (const move of otherMoves) {
    const help = move === 'swap' ? swapHelp(state) : null;
    others.append(html('button', {
      type: 'button', class: 'move-button', 'data-move': move,
      id: /^[a-z]+$/.test(move) ? move : null, text: capitalise(move),
      title: help, 'aria-describedby': help ? 'swap-help' : null,
    }));
    if (help) others.append(html('small', { id: 'swap-help', class: 'help move-help', text: help }));
  }
}

// What Hex's swap does here (games/hex.h, "Swap rule"): the first player's only stone is
// removed, a stone of the second player goes on its mirror cell (row and column exchanged)
// and the first player moves again. Null for another game or without that one stone.
function swapHelp(state) {
  const board = state.board;
  if (board?.kind !== 'hex') return null;
  const stones = (board.cells ?? []).flatMap((seat, i) => (seat === 0 ? [i] : []));
  if (stones.length !== 1 || board.cells.some((seat) => seat > 0)) return null;
  const row = Math.floor(stones[0] / board.cols), col = stones[0] % board.cols;
  const name = (r, c) => `${board.col_labels?.[c] ?? c + 1}${board.row_labels?.[r] ?? r + 1}`;
  const [first, second] = [seatLabel(state, 0), seatLabel(state, 1)];
  return `Swap: ${first}'s stone on ${name(row, col)} is removed and a ${second} stone goes on its mirror ` +
    `cell ${name(col, row)} (row and column exchanged); then ${first} moves again.`;
}

// Direction boards (2048, Snake, Tron): four buttons, enabled for the directions in
// `other_moves` while a human may move; each plays that exact move string.
function renderDirectionPad(state, shown, canMove) {
  $('#direction-pad').hidden = !shown;
  const otherMoves = shown && canMove ? state.board.other_moves ?? [] : [];
  for (const direction of DIRECTIONS) {
    const button = $(`#move-${direction}`);
    const move = directionMove(otherMoves, direction);
    button.disabled = !move;
    if (move) button.dataset.move = move;
    else delete button.dataset.move;
  }
}

const capitalise = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// One entry per move, as `moves` lists them: chance events (seat null: a 2048 tile, Snake's
// food) greyed; in games with simultaneous moves a joint move is one entry per seat in seat
// order, and the first of each step is marked (class joint-start, data-step).
function renderMoveList(state) {
  const list = $('#move-list');
  clear(list);
  const colours = seatColours(state);
  const joint = Boolean(state) && (ui.simultaneousGames.has(state.name) || Boolean(state.simultaneous));
  let step = 0, previousSeat = null;
  for (const { seat, move } of state?.moves ?? []) {
    const chance = seat === null || seat === undefined;
    let className = chance ? 'chance' : null, stepNumber = null;
    if (joint && !chance) {
      if (previousSeat === null || seat <= previousSeat) {
        step++;
        className = 'joint-start';
      }
      stepNumber = step;
    }
    previousSeat = chance ? null : seat;
    list.append(html('li', {
      class: className, 'data-seat': chance ? null : seat, 'data-move': move, 'data-step': stepNumber,
      title: stepNumber ? `step ${stepNumber}: both players moved at once` : chance ? 'chance' : null,
    }, [
      chance ? html('span', { class: 'swatch', style: 'background: transparent', 'aria-hidden': 'true' }) : swatch(colours, seat),
      html('span', { class: 'seat-tag', text: chance ? 'chance' : seatLabel(state, seat) }),
      document.createTextNode(` ${move}`),
    ]));
  }
  list.scrollTop = list.scrollHeight;
}

function renderControls(state) {
  const playing = state?.status === 'playing';
  const hasHuman = humanSeats(state).length > 0;
  $('#undo').disabled = !state || !hasHuman || aiThinking(state) || !(state.moves ?? []).length;
  $('#resign').disabled = !playing || !hasHuman;
  if ($('#resign').disabled) disarmResign();
  $('#ai-move').disabled = !playing || aiThinking(state);
  $('#export').disabled = !state;
  $('#export-sgf').hidden = state?.name !== 'go';
}

function renderAnalysis() {
  const state = ui.state;
  const live = aiThinking(state) && Boolean(ui.live);
  renderThinking($('#thinking'), live ? ui.live : state?.analysis ?? ui.live ?? null, state, live);
}

// ---------------------------------------------------------------------------------------
// Wiring

function wireBoard() {
  const board = $('#board');
  const act = (target) => {
    if (target.dataset.move) playMove(target.dataset.move);
    else if (target.dataset.from) selectPiece(target.dataset.from);
  };
  board.addEventListener('click', (event) => {
    const target = event.target.closest('[data-move], [data-from]');
    if (target && board.contains(target)) act(target);
  });
  board.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    const target = event.target.closest('[data-move], [data-from]');
    if (!target) return;
    event.preventDefault();
    act(target);
  });
  for (const box of [$('#other-moves'), $('#legal-moves'), $('#direction-pad')]) {
    box.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-move]');
      if (button) playMove(button.dataset.move);
    });
  }
}

// The arrow keys and W A S D play the direction buttons on direction boards, wherever the
// focus is except in a text field or a list (where the keys edit or choose).
const KEY_DIRECTIONS = {
  ArrowUp: 'up', ArrowRight: 'right', ArrowDown: 'down', ArrowLeft: 'left',
  w: 'up', d: 'right', s: 'down', a: 'left',
};

function wireKeys() {
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    const direction = KEY_DIRECTIONS[event.key?.length === 1 ? event.key.toLowerCase() : event.key];
    if (!direction || ui.state?.status !== 'playing' || !isDirectionBoard(ui.state)) return;
    if (event.target instanceof Element &&
        event.target.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) return;
    event.preventDefault();  // the arrows play rather than scroll while such a game goes on
    playDirection(direction);
  });
}

function wireControls() {
  $('#move-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $('#move-input');
    const move = input.value.trim();
    if (!move) return;
    input.value = '';
    playMove(move);
  });
  $('#undo').addEventListener('click', () => act(() => api.undo(ui.state.id)));
  $('#resign').addEventListener('click', resignClicked);
  document.addEventListener('click', (event) => {
    if (!(event.target instanceof Element && event.target.closest('#resign'))) disarmResign();
  });
  document.addEventListener('keydown', (event) => { if (event.key === 'Escape') disarmResign(); });
  $('#ai-move').addEventListener('click', () => act(() => api.askAi(ui.state.id)));
  $('#export').addEventListener('click', () => exportRecord('json'));
  $('#export-sgf').addEventListener('click', () => exportRecord('sgf'));
  $('#new-game-button').addEventListener('click', () => {
    $('#setup-fold').open = true;
    $('#setup-fold').scrollIntoView({ behavior: 'smooth', block: 'start' });
    $('#game-select').focus();
  });
  $('#error-dismiss').addEventListener('click', hideError);
  // `invalid` does not bubble: caught on the way down, for every field of every form.
  document.addEventListener('invalid', hideError, true);
}

const sessionInHash = () => /(?:^#|&)session=([0-9a-zA-Z]+)/.exec(location.hash)?.[1] ?? null;

async function main() {
  wireBoard();
  wireKeys();
  wireControls();
  render();
  window.addEventListener('hashchange', () => {
    const id = sessionInHash();
    if (id && id !== ui.state?.id) openSession(id);
  });
  const [games, players] = await Promise.all([guarded(api.listGames), guarded(api.listPlayers)]);
  if (games) {
    ui.simultaneousGames = new Set((games.games ?? []).filter((g) => g.simultaneous).map((g) => g.name));
    new NewGameForm($('#new-game'), games, players ?? {}, startGame);
    if (ui.state) render();
  }
  const id = sessionInHash();
  if (id) await openSession(id);
  document.body.dataset.ready = 'true';
}

main();
