// Draws a session state's `board` (server/README.md, "The board") as SVG.
//
// Contract with app.js:
// - drawBoard(root, state, view) replaces the content of the <svg> `root`.
//   view.interactive: a human is to move, so legal cells are clickable;
//   view.selected: the cell name of the piece picked for a two-click move ("c2-b3"), or null;
//   view.visits: the live thinking's `moves` to draw as visit shares, or null.
// - Every cell (or column) carries aria-label with its move name. The ones a click acts on
//   carry class "legal" and either data-move (clicking plays that move) or data-from
//   (clicking picks that piece for a two-click move). app.js delegates the clicks.
// - Pieces carry class "stone" and data-seat, the last move's piece class "last".
// - The direction boards (kinds in DIRECTION_KINDS: 2048's tiles, Snake, Tron) have no
//   clickable cells; they are played with direction moves (app.js: buttons and arrow keys).
//   Their pieces: 2048 tiles "tile" with data-value; Snake "snake-body", "snake-head",
//   "food"; Tron "trail" and "head" with data-seat, a crashed head's cross "crash".

import { svg, clear, r2 } from './svg.js';

// Board kinds this module draws; any other kind falls back to the text view.
export function canDraw(state) {
  return Boolean(state.board) && Object.hasOwn(PAINTERS, state.board.kind);
}

// Board kinds played with the moves up, right, down and left instead of cell clicks.
export const DIRECTION_KINDS = ['tiles', 'snake', 'tron'];
export const DIRECTIONS = ['up', 'right', 'down', 'left'];

export function isDirectionBoard(state) {
  return DIRECTION_KINDS.includes(state?.board?.kind);
}

// The move of `other_moves` that plays `direction` ("up": "up", "Up" or "u"), or null.
export function directionMove(otherMoves, direction) {
  return (otherMoves ?? []).find((move) => directionOf(move) === direction) ?? null;
}

export function drawBoard(root, state, view) {
  clear(root);
  const ctx = makeContext(state, view);
  const look = ctx.board.kind === 'grid' ? GRID_LOOKS[state.name] ?? 'plain' : ctx.board.kind;
  root.dataset.kind = ctx.board.kind;
  root.dataset.look = look;
  root.dataset.interactive = String(Boolean(view.interactive));
  root.dataset.toMove = state.to_move ?? '';
  // Direction boards take the arrow keys while focused (app.js listens on the document).
  if (DIRECTION_KINDS.includes(ctx.board.kind)) {
    root.setAttribute('tabindex', '0');
    root.setAttribute('aria-label', 'Board: play with the arrow keys (or W A S D)');
  } else {
    root.removeAttribute('tabindex');
    root.setAttribute('aria-label', 'Board');
  }
  const geometry = PAINTERS[ctx.board.kind](root, ctx, look);
  // Small boards are not blown up to the full width.
  const viewWidth = Number(root.getAttribute('viewBox').split(' ')[2]);
  root.style.maxWidth = `${Math.round(Math.min(720, Math.max(300, 1.5 * viewWidth)))}px`;
  if (view.visits?.length) drawVisits(root, geometry, view.visits, view.visitsSeat);
}

// The seats' colours in a game, for swatches and labels outside the board (CSS colours).
export function seatColours(state) {
  const look = state?.board?.kind === 'grid' ? GRID_LOOKS[state.name] ?? 'plain' : state?.board?.kind;
  switch (look) {
    case 'hex': return ['#d62828', '#2457c5'];
    case 'go': case 'stones': case 'othello': case 'plain': return ['#161616', '#f7f7f2'];
    case 'checker': return ['#fbfbf7', '#222222'];
    case 'tictactoe': return ['#d62828', '#1f4fb4'];
    case 'tron': return ['#2f6fe4', '#f28a1e'];
    case 'snake': return ['#3f9a4f'];
    case 'tiles': return ['#edc22e'];
    default: return ['#d62828', '#f2c200'];
  }
}

// How `grid` boards look, by game name.
const GRID_LOOKS = { tictactoe: 'tictactoe', othello: 'othello', gomoku: 'stones', breakthrough: 'checker' };

// ---------------------------------------------------------------------------------------
// What every painter needs: the board, the legal moves, each cell's name.

function makeContext(state, view) {
  const board = state.board;
  const names = cellNames(board);
  const legalMoves = view.interactive ? state.legal_moves ?? [] : [];
  const indexByName = new Map(names.map((name, i) => [name.toLowerCase(), i]));
  return {
    board,
    names,
    indexByName,
    legal: new Set(legalMoves),
    fromTo: twoClickMoves(legalMoves, indexByName),
    selected: view.selected ?? null,
    rowOf: (i) => Math.floor(i / board.cols),
    colOf: (i) => i % board.cols,
  };
}

// A cell's name: the move a click there plays, else its column and row labels ("c3").
function cellNames(board) {
  const count = board.rows * board.cols;
  return Array.from({ length: count }, (_, i) => {
    const move = board.cell_moves?.[i];
    if (move) return move;
    const label = (board.col_labels?.[i % board.cols] ?? '') +
                  (board.row_labels?.[Math.floor(i / board.cols)] ?? '');
    return label || `cell ${i + 1}`;
  });
}

// Moves written "from-to" or "fromxto" between two cell names (Breakthrough) as a map
// from the starting cell's name to [{to, move}]; they take two clicks.
function twoClickMoves(legalMoves, indexByName) {
  const result = new Map();
  for (const move of legalMoves) {
    const match = /^([a-z]+\d+)\s*[-x:]\s*([a-z]+\d+)$/i.exec(move);
    if (!match) continue;
    const [from, to] = [match[1].toLowerCase(), match[2].toLowerCase()];
    if (!indexByName.has(from) || !indexByName.has(to)) continue;
    if (!result.has(from)) result.set(from, []);
    result.get(from).push({ to, move });
  }
  return result;
}

// Makes `el` the click target of cell i: aria-label always; data-move or data-from when a
// click there does something now.
function makeCellTarget(el, i, ctx) {
  const name = ctx.names[i];
  el.classList.add('hit');
  el.setAttribute('aria-label', name);
  el.dataset.cell = i;
  const move = ctx.board.cell_moves?.[i];
  if (move && ctx.legal.has(move)) return makePlayable(el, move);
  const key = name.toLowerCase();
  const toSelected = ctx.selected && ctx.fromTo.get(ctx.selected)?.find((t) => t.to === key);
  if (toSelected) {
    el.classList.add('target');
    return makePlayable(el, toSelected.move);
  }
  if (ctx.fromTo.has(key)) {
    el.dataset.from = key;
    el.classList.add('legal', 'from');
    if (key === ctx.selected) el.classList.add('selected');
    setButtonRole(el, `${name}: pick this piece`);
  }
  return el;
}

function makePlayable(el, move) {
  el.dataset.move = move;
  el.classList.add('legal');
  setButtonRole(el, `play ${move}`);
  return el;
}

function setButtonRole(el, label) {
  el.setAttribute('role', 'button');
  el.setAttribute('tabindex', '0');
  el.setAttribute('aria-label', label);
}

function pieceAttrs(seat, i, ctx, extraClass) {
  return {
    class: `stone seat-${seat} ${extraClass}${i === ctx.board.last_cell ? ' last' : ''}`,
    'data-seat': seat,
    'data-cell': i,
  };
}

// The move → cell index map for drawing visit shares: cell_moves, else a two-click move's
// destination cell.
function cellIndexOfMove(ctx) {
  const byMove = new Map();
  (ctx.board.cell_moves ?? []).forEach((move, i) => move && byMove.set(move, i));
  return (move) => {
    if (byMove.has(move)) return byMove.get(move);
    const match = /([a-z]+\d+)$/i.exec(move);
    return match ? ctx.indexByName.get(match[1].toLowerCase()) ?? -1 : -1;
  };
}

// ---------------------------------------------------------------------------------------
// Painters: each draws one kind and returns its geometry for the visit overlay:
// {center(i) → {x, y}, unit (cell spacing), indexOfMove(move) → cell or -1}.

const PAINTERS = {
  columns: drawColumns, go: drawGo, hex: drawHex, grid: drawGrid,
  tiles: drawTiles, snake: drawSnake, tron: drawTron,
};

// Connect Four: a blue frame with holes; a click anywhere on a column drops a disc there.
function drawColumns(root, ctx) {
  const { rows, cols, cells } = ctx.board;
  const S = 60, pad = 10, frameH = rows * S + 2 * pad;
  root.setAttribute('viewBox', `0 0 ${cols * S + 2 * pad} ${frameH + 28}`);
  const center = (i) => ({ x: pad + (ctx.colOf(i) + 0.5) * S, y: pad + (ctx.rowOf(i) + 0.5) * S });

  root.append(svg('rect', { class: 'c4-frame', x: 0, y: 0, width: cols * S + 2 * pad, height: frameH, rx: 14 }));
  cells.forEach((seat, i) => {
    const { x, y } = center(i);
    root.append(seat < 0
      ? svg('circle', { class: 'c4-hole', cx: x, cy: y, r: S * 0.4 })
      : svg('circle', { ...pieceAttrs(seat, i, ctx, 'disc'), cx: x, cy: y, r: S * 0.4 }));
  });
  drawLastMark(root, ctx, center, S * 0.13);

  const columnMoves = ctx.board.column_moves ?? [];
  for (let c = 0; c < cols; c++) {
    const move = columnMoves[c] ?? String(c + 1);
    root.append(svg('text', { class: 'label', x: pad + (c + 0.5) * S, y: frameH + 20, text: move }));
    const hit = svg('rect', { class: 'column', x: pad + c * S, y: 0, width: S, height: frameH });
    hit.classList.add('hit');
    hit.dataset.column = c;
    hit.setAttribute('aria-label', `column ${move}`);
    if (ctx.legal.has(move)) makePlayable(hit, move);
    root.append(hit);
  }

  // A column's move lands on its lowest empty cell.
  const landing = (c) => {
    for (let r = rows - 1; r >= 0; r--) if (cells[r * cols + c] < 0) return r * cols + c;
    return -1;
  };
  const indexOfMove = (move) => {
    const c = columnMoves.indexOf(move);
    return c < 0 ? -1 : landing(c);
  };
  return { center, unit: S, indexOfMove };
}

// Go (and Gomoku): stones on the intersections of a wooden board, coordinates on all sides.
function drawGo(root, ctx) {
  const { rows, cols, cells } = ctx.board;
  const S = 40, M = 42;
  const width = 2 * M + (cols - 1) * S, height = 2 * M + (rows - 1) * S;
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const center = (i) => ({ x: M + ctx.colOf(i) * S, y: M + ctx.rowOf(i) * S });

  root.append(svg('rect', { class: 'wood', x: 0, y: 0, width, height, rx: 6 }));
  const lines = svg('g', { class: 'grid-lines' });
  for (let r = 0; r < rows; r++) {
    lines.append(svg('line', { x1: M, y1: M + r * S, x2: M + (cols - 1) * S, y2: M + r * S }));
  }
  for (let c = 0; c < cols; c++) {
    lines.append(svg('line', { x1: M + c * S, y1: M, x2: M + c * S, y2: M + (rows - 1) * S }));
  }
  root.append(lines);
  for (const [r, c] of hoshiPoints(rows, cols)) {
    root.append(svg('circle', { class: 'hoshi', cx: M + c * S, cy: M + r * S, r: 3.5 }));
  }
  drawSideLabels(root, ctx, {
    colX: (c) => M + c * S, rowY: (r) => M + r * S,
    top: M - 24, bottom: height - M + 24, left: M - 26, right: width - M + 26,
  });

  cells.forEach((seat, i) => {
    if (seat < 0) return;
    const { x, y } = center(i);
    root.append(svg('circle', { ...pieceAttrs(seat, i, ctx, 'go-stone'), cx: x, cy: y, r: S * 0.47 }));
  });
  drawLastMark(root, ctx, center, S * 0.15);
  cells.forEach((_, i) => {
    const { x, y } = center(i);
    root.append(makeCellTarget(svg('circle', { cx: x, cy: y, r: S * 0.47 }), i, ctx));
  });
  return { center, unit: S, indexOfMove: cellIndexOfMove(ctx) };
}

// Star points: 9×9 and 13×13 the four corner points and the centre, 19×19 all nine; other
// square sizes from 7 up follow the same pattern.
function hoshiPoints(rows, cols) {
  if (rows !== cols || rows < 7) return [];
  const n = rows, edge = n >= 13 ? 3 : 2, mid = (n - 1) / 2;
  const lines = n % 2 === 1 && n >= 15 ? [edge, mid, n - 1 - edge] : [edge, n - 1 - edge];
  const points = lines.flatMap((r) => lines.map((c) => [r, c]));
  if (n % 2 === 1 && !lines.includes(mid)) points.push([mid, mid]);
  return points;
}

// Hex: a rhombus of pointy-top hexagons, row r shifted right by r/2 cells. Seat 0 joins top
// and bottom, seat 1 left and right: those edges are drawn in the seats' colours.
function drawHex(root, ctx) {
  const { rows, cols, cells } = ctx.board;
  const R = 22, W = Math.sqrt(3) * R, M = 46;
  const center = (i) => {
    const r = ctx.rowOf(i), c = ctx.colOf(i);
    return { x: M + (c + r / 2) * W, y: M + r * 1.5 * R };
  };
  const width = 2 * M + (cols - 1 + (rows - 1) / 2) * W, height = 2 * M + (rows - 1) * 1.5 * R;
  root.setAttribute('viewBox', `0 0 ${r2(width)} ${r2(height)}`);
  // Vertex k of a cell's hexagon, k = 0..5 clockwise from the top.
  const vertex = (i, k) => {
    const { x, y } = center(i), angle = Math.PI / 180 * (-90 + 60 * k);
    return [r2(x + R * Math.cos(angle)), r2(y + R * Math.sin(angle))];
  };
  const at = (r, c) => r * cols + c;
  const edge = (seat, points) => root.append(svg('polyline', {
    class: `hex-edge seat-${seat}`, points: points.map((p) => p.join(',')).join(' '),
  }));
  const range = (n) => Array.from({ length: n }, (_, k) => k);
  edge(0, range(cols).flatMap((c) => [vertex(at(0, c), 5), vertex(at(0, c), 0), vertex(at(0, c), 1)]));
  edge(0, range(cols).flatMap((c) => [vertex(at(rows - 1, c), 4), vertex(at(rows - 1, c), 3), vertex(at(rows - 1, c), 2)]));
  edge(1, range(rows).flatMap((r) => [vertex(at(r, 0), 5), vertex(at(r, 0), 4), vertex(at(r, 0), 3)]));
  edge(1, range(rows).flatMap((r) => [vertex(at(r, cols - 1), 0), vertex(at(r, cols - 1), 1), vertex(at(r, cols - 1), 2)]));

  cells.forEach((seat, i) => {
    const hexagon = svg('polygon', { class: 'hex-cell', points: range(6).map((k) => vertex(i, k).join(',')).join(' ') });
    root.append(makeCellTarget(hexagon, i, ctx));
  });
  cells.forEach((seat, i) => {
    if (seat < 0) return;
    const { x, y } = center(i);
    root.append(svg('circle', { ...pieceAttrs(seat, i, ctx, 'hex-stone'), cx: x, cy: y, r: R * 0.68 }));
  });
  drawLastMark(root, ctx, center, R * 0.22);

  range(cols).forEach((c) => {
    const { x, y } = center(at(0, c));
    root.append(svg('text', { class: 'label', x, y: y - R - 10, text: ctx.board.col_labels?.[c] ?? '' }));
  });
  range(rows).forEach((r) => {
    const { x, y } = center(at(r, 0));
    root.append(svg('text', { class: 'label', x: x - W * 0.95, y: y + 5, text: ctx.board.row_labels?.[r] ?? '' }));
  });
  return { center, unit: W, indexOfMove: cellIndexOfMove(ctx) };
}

// Square cells: tic-tac-toe X and O, Othello discs on green, Breakthrough pawns on a
// chequered board, Gomoku stones (drawn like Go), or plain discs.
function drawGrid(root, ctx, look) {
  if (look === 'stones') return drawGo(root, ctx);
  const { rows, cols, cells } = ctx.board;
  const S = 50, M = 30;
  root.setAttribute('viewBox', `0 0 ${cols * S + M + 8} ${rows * S + M + 8}`);
  const center = (i) => ({ x: M + (ctx.colOf(i) + 0.5) * S, y: M + (ctx.rowOf(i) + 0.5) * S });

  cells.forEach((_, i) => {
    const dark = (ctx.rowOf(i) + ctx.colOf(i)) % 2 === 1;
    const square = svg('rect', {
      class: `square ${look}-square${dark ? ' dark' : ''}${i === ctx.board.last_cell ? ' last-square' : ''}`,
      x: M + ctx.colOf(i) * S, y: M + ctx.rowOf(i) * S, width: S, height: S,
    });
    root.append(square);
  });
  drawSideLabels(root, ctx, {
    colX: (c) => M + (c + 0.5) * S, rowY: (r) => M + (r + 0.5) * S,
    top: M - 10, bottom: null, left: M - 14, right: null,
  });
  cells.forEach((seat, i) => {
    if (seat >= 0) root.append(drawPiece(look, seat, i, center(i), S, ctx));
  });
  if (look !== 'tictactoe') drawLastMark(root, ctx, center, S * 0.12);
  cells.forEach((_, i) => {
    const hit = makeCellTarget(svg('rect', {
      x: M + ctx.colOf(i) * S, y: M + ctx.rowOf(i) * S, width: S, height: S,
    }), i, ctx);
    root.append(hit);
    // Othello: legal moves are hard to see, so they get a dot.
    if (look === 'othello' && hit.dataset.move) {
      const { x, y } = center(i);
      root.append(svg('circle', { class: 'legal-dot', cx: x, cy: y, r: S * 0.1 }));
    }
  });
  return { center, unit: S, indexOfMove: cellIndexOfMove(ctx) };
}

function drawPiece(look, seat, i, { x, y }, S, ctx) {
  const attrs = pieceAttrs(seat, i, ctx, look);
  if (look === 'tictactoe') {
    const d = S * 0.28;
    if (seat === 0) {
      return svg('path', { ...attrs, d: `M${x - d},${y - d}L${x + d},${y + d}M${x + d},${y - d}L${x - d},${y + d}` });
    }
    return svg('circle', { ...attrs, cx: x, cy: y, r: d * 1.1 });
  }
  if (look === 'checker') {
    // A pawn: head and body in one outline.
    const d = `M${x - S * 0.26},${y + S * 0.32} Q${x},${y - S * 0.05} ${x + S * 0.26},${y + S * 0.32} Z` +
              `M${x + S * 0.14},${y - S * 0.12} a${S * 0.14},${S * 0.14} 0 1,1 ${-S * 0.28},0 a${S * 0.14},${S * 0.14} 0 1,1 ${S * 0.28},0`;
    return svg('path', { ...attrs, d });
  }
  return svg('circle', { ...attrs, cx: x, cy: y, r: S * 0.42 });
}

// Column labels above (and below) the board, row labels left (and right); a null
// position leaves that side out.
function drawSideLabels(root, ctx, { colX, rowY, top, bottom, left, right }) {
  const { col_labels: colLabels = [], row_labels: rowLabels = [] } = ctx.board;
  colLabels.forEach((text, c) => {
    for (const y of [top, bottom]) {
      if (y !== null) root.append(svg('text', { class: 'label', x: colX(c), y: y + 5, text }));
    }
  });
  rowLabels.forEach((text, r) => {
    for (const x of [left, right]) {
      if (x !== null) root.append(svg('text', { class: 'label', x, y: rowY(r) + 5, text }));
    }
  });
}

function drawLastMark(root, ctx, center, radius) {
  const i = ctx.board.last_cell;
  if (i === undefined || i === null || i < 0 || i >= ctx.board.cells.length) return;
  const seat = ctx.board.cells[i];
  if (seat < 0) return;  // the last move's piece has gone (captured, moved)
  const { x, y } = center(i);
  root.append(svg('circle', { class: `last-mark on-seat-${seat}`, cx: x, cy: y, r: radius }));
}

// The AI's candidate moves: translucent circles sized by visit share, with the share in %
// written inside when it fits (visitLabelSize). `seat`: the searching seat (direction boards
// put a direction next to that seat's head).
function drawVisits(root, geometry, moves, seat) {
  const layer = svg('g', { class: 'visits', 'aria-hidden': 'true' });
  moves.forEach((candidate, rank) => {
    const i = geometry.indexOfMove(candidate.move, seat);
    if (i < 0 || !(candidate.share > 0)) return;
    const { x, y } = geometry.center(i);
    const radius = r2(geometry.unit * Math.max(0.12, 0.46 * Math.sqrt(candidate.share)));
    layer.append(svg('circle', { class: `visit${rank === 0 ? ' best' : ''}`, cx: x, cy: y, r: radius }));
    const text = String(Math.round(100 * candidate.share));
    const size = visitLabelSize(radius, text.length);
    if (size === null) return;
    layer.append(svg('text', {
      class: 'visit-label', x, y, 'font-size': size, 'dominant-baseline': 'central', text,
    }));
  });
  root.append(layer);
}

// The font size (board units) at which a label of `digits` bold digits fits inside a circle
// of `radius`: at most 12; null when it would have to be under 7 (too small to read), so the
// circle goes without it. A bold digit is at most 0.7 em wide and a line about 1.2 em high.
function visitLabelSize(radius, digits) {
  const size = Math.min(12, (1.7 * radius) / (0.7 * digits), (1.8 * radius) / 1.2);
  return size < 7 ? null : r2(size);
}

// ---------------------------------------------------------------------------------------
// Direction boards: no clickable cells; the visit overlay puts a direction's share on the
// cell next to the searching seat's head (Snake, Tron).

// The cell one step from cell i in `direction`, -1 off the board.
function neighbour(ctx, i, direction) {
  const { rows, cols } = ctx.board;
  if (!(i >= 0)) return -1;
  const r = ctx.rowOf(i), c = ctx.colOf(i);
  const [dr, dc] = { up: [-1, 0], right: [0, 1], down: [1, 0], left: [0, -1] }[direction] ?? [NaN, NaN];
  const nr = r + dr, nc = c + dc;
  return nr >= 0 && nr < rows && nc >= 0 && nc < cols ? nr * cols + nc : -1;
}

// A direction move's name ("u", "Up" → "up"), or null.
export function directionOf(move) {
  const m = String(move).toLowerCase();
  return DIRECTIONS.find((d) => m === d || m === d[0]) ?? null;
}

// Labels for cells written like Hex's ("c3": column letter from the left, row number from
// the TOP), as 2048's tile spawns and Snake's food are: the board's own, else generated.
function letterLabels(ctx) {
  const { rows, cols } = ctx.board;
  const colLabels = ctx.board.col_labels?.length ? ctx.board.col_labels
    : Array.from({ length: cols }, (_, c) => (c < 26 ? String.fromCharCode(97 + c) : `${c + 1}`));
  const rowLabels = ctx.board.row_labels?.length ? ctx.board.row_labels
    : Array.from({ length: rows }, (_, r) => String(r + 1));
  return { colLabels, rowLabels };
}

function drawLetterLabels(root, ctx, colX, rowY, top, left) {
  const { colLabels, rowLabels } = letterLabels(ctx);
  colLabels.forEach((text, c) => root.append(svg('text', { class: 'label small', x: colX(c), y: top, text })));
  rowLabels.forEach((text, r) => root.append(svg('text', { class: 'label small', x: left, y: rowY(r) + 4, text })));
}

// 2048: rounded tiles coloured by value on a rounded frame, the value centred.
function drawTiles(root, ctx) {
  const { rows, cols, cells } = ctx.board;
  const S = 100, gap = 10, M = 22;
  const width = M + cols * S + (cols + 1) * gap + 4, height = M + rows * S + (rows + 1) * gap + 4;
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const x0 = (c) => M + gap + c * (S + gap), y0 = (r) => M + gap + r * (S + gap);
  const center = (i) => ({ x: x0(ctx.colOf(i)) + S / 2, y: y0(ctx.rowOf(i)) + S / 2 });
  const { colLabels, rowLabels } = letterLabels(ctx);

  root.append(svg('rect', { class: 'tiles-frame', x: M, y: M, width: width - M - 4, height: height - M - 4, rx: 12 }));
  drawLetterLabels(root, ctx, (c) => x0(c) + S / 2, (r) => y0(r) + S / 2, M - 6, M / 2);
  cells.forEach((value, i) => {
    const x = x0(ctx.colOf(i)), y = y0(ctx.rowOf(i));
    const name = `${colLabels[ctx.colOf(i)] ?? ''}${rowLabels[ctx.rowOf(i)] ?? ''}`;
    root.append(svg('rect', { class: 'tile-empty', x, y, width: S, height: S, rx: 7, 'data-cell': i }));
    if (!(value > 0)) return;
    const digits = String(value).length;
    const tile = svg('g', {
      class: `tile ${tileClass(value)}${i === ctx.board.last_cell ? ' last' : ''}`,
      'data-value': value, 'data-cell': i, 'aria-label': `${name}: ${value}`,
    });
    tile.append(svg('rect', { x, y, width: S, height: S, rx: 7 }));
    tile.append(svg('text', {
      x: x + S / 2, y: y + S / 2, 'font-size': digits <= 2 ? 48 : digits === 3 ? 40 : digits === 4 ? 32 : Math.max(16, 140 / digits),
      text: value,
    }));
    root.append(tile);
  });
  return { center, unit: S, indexOfMove: () => -1 };
}

// Each power of two up to 65536 has its own colour (style.css), larger ones share one.
function tileClass(value) {
  const exponent = Math.log2(value);
  const named = Number.isInteger(exponent) && exponent >= 1 && exponent <= 16;
  return `${named ? `tile-${value}` : 'tile-super'} ${value <= 4 ? 'tile-dark-text' : 'tile-light-text'}`;
}

// Snake: a light grid, the body in green, the head darker with eyes, the food a red dot.
function drawSnake(root, ctx) {
  const { rows, cols, cells } = ctx.board;
  const S = 40, M = 24;
  root.setAttribute('viewBox', `0 0 ${M + cols * S + 4} ${M + rows * S + 4}`);
  const center = (i) => ({ x: M + (ctx.colOf(i) + 0.5) * S, y: M + (ctx.rowOf(i) + 0.5) * S });
  const head = ctx.board.heads?.[0] ?? -1;
  const food = ctx.board.food ?? -1;

  root.append(svg('rect', { class: 'snake-field', x: M, y: M, width: cols * S, height: rows * S, rx: 4 }));
  cells.forEach((_, i) => {
    const dark = (ctx.rowOf(i) + ctx.colOf(i)) % 2 === 1;
    root.append(svg('rect', {
      class: `snake-square${dark ? ' dark' : ''}`, x: M + ctx.colOf(i) * S, y: M + ctx.rowOf(i) * S, width: S, height: S,
    }));
  });
  drawLetterLabels(root, ctx, (c) => M + (c + 0.5) * S, (r) => M + (r + 0.5) * S, M - 7, M / 2);
  cells.forEach((owner, i) => {
    if (owner < 0 || i === head) return;
    root.append(svg('rect', {
      class: 'snake-body', 'data-cell': i,
      x: M + ctx.colOf(i) * S + 3, y: M + ctx.rowOf(i) * S + 3, width: S - 6, height: S - 6, rx: 8,
    }));
  });
  if (food >= 0 && food < cells.length) {
    const { x, y } = center(food);
    root.append(svg('circle', { class: 'food', 'data-cell': food, cx: x, cy: y, r: S * 0.3 }));
    root.append(svg('path', { class: 'food-leaf', d: `M${x},${y - S * 0.26} q${S * 0.08},${-S * 0.16} ${S * 0.2},${-S * 0.14}` }));
  }
  if (head >= 0 && head < cells.length) {
    const { x, y } = center(head);
    const g = svg('g', { class: 'snake-head', 'data-cell': head });
    g.append(svg('rect', { x: x - S / 2 + 2, y: y - S / 2 + 2, width: S - 4, height: S - 4, rx: 11 }));
    // The eyes look along the head's heading: away from the neck.
    const [ex, ey] = headingOf(ctx, head, cells);
    const px = -ey, py = ex;  // across the heading
    for (const side of [-1, 1]) {
      const cx = x + ex * S * 0.13 + side * px * S * 0.18, cy = y + ey * S * 0.13 + side * py * S * 0.18;
      g.append(svg('circle', { class: 'eye', cx: r2(cx), cy: r2(cy), r: S * 0.1 }));
      g.append(svg('circle', { class: 'pupil', cx: r2(cx + ex * S * 0.04), cy: r2(cy + ey * S * 0.04), r: S * 0.05 }));
    }
    root.append(g);
  }
  return {
    center, unit: S,
    indexOfMove: (move) => neighbour(ctx, head, directionOf(move)),
  };
}

// The unit vector [dx, dy] the head at cell `head` points to: away from a body cell next to
// it (the neck; with several, the first found), else right.
function headingOf(ctx, head, cells) {
  for (const [direction, vector] of [['left', [1, 0]], ['right', [-1, 0]], ['up', [0, 1]], ['down', [0, -1]]]) {
    const n = neighbour(ctx, head, direction);
    if (n >= 0 && cells[n] === 0) return vector;
  }
  return [1, 0];
}

// Tron: a dark arena, each seat's trail in its colour (head cells included), the heads
// brighter and bigger on top, a crashed head crossed out.
function drawTron(root, ctx) {
  const { rows, cols, cells } = ctx.board;
  const S = 40, M = 8;
  root.setAttribute('viewBox', `0 0 ${2 * M + cols * S} ${2 * M + rows * S}`);
  const center = (i) => ({ x: M + (ctx.colOf(i) + 0.5) * S, y: M + (ctx.rowOf(i) + 0.5) * S });
  const heads = ctx.board.heads ?? [];
  const crashed = ctx.board.crashed ?? [];

  root.append(svg('rect', { class: 'tron-arena', x: 0, y: 0, width: 2 * M + cols * S, height: 2 * M + rows * S, rx: 8 }));
  const lines = svg('g', { class: 'tron-lines' });
  for (let r = 0; r <= rows; r++) lines.append(svg('line', { x1: M, y1: M + r * S, x2: M + cols * S, y2: M + r * S }));
  for (let c = 0; c <= cols; c++) lines.append(svg('line', { x1: M + c * S, y1: M, x2: M + c * S, y2: M + rows * S }));
  root.append(lines);
  cells.forEach((seat, i) => {
    if (seat < 0) return;
    root.append(svg('rect', {
      class: `trail seat-${seat}`, 'data-seat': seat, 'data-cell': i,
      x: M + ctx.colOf(i) * S + 4, y: M + ctx.rowOf(i) * S + 4, width: S - 8, height: S - 8, rx: 5,
    }));
  });
  heads.forEach((i, seat) => {
    if (!(i >= 0 && i < cells.length)) return;
    const { x, y } = center(i);
    const dead = Boolean(crashed[seat]);
    root.append(svg('rect', {
      class: `head seat-${seat}${dead ? ' crashed' : ''}`, 'data-seat': seat, 'data-cell': i,
      x: x - S / 2 + 1.5, y: y - S / 2 + 1.5, width: S - 3, height: S - 3, rx: 10,
    }));
    if (dead) {
      const d = S * 0.3;
      root.append(svg('path', {
        class: 'crash', 'data-seat': seat, d: `M${x - d},${y - d}L${x + d},${y + d}M${x + d},${y - d}L${x - d},${y + d}`,
      }));
    }
  });
  return {
    center, unit: S,
    indexOfMove: (move, seat) => neighbour(ctx, heads[seat ?? 0] ?? -1, directionOf(move)),
  };
}
