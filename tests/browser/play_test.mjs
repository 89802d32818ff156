// End-to-end test of the play page of `polyzero serve` in headless Chromium.
// Usage: node play_test.mjs http://127.0.0.1:PORT   (or POLYZERO_URL=... node play_test.mjs)
// Plays Connect Four, Go 9×9, Hex 5×5 and Othello against a fast AI by clicking the board,
// checks what the page shows after each move (the analysis panel against the server's,
// errors, resigning), watches a slower AI think live, swaps in Hex, plays a `random` AI,
// plays on a 390×844 phone screen, then plays the direction games: 2048 and Snake alone (arrow keys, W A S D and the direction buttons)
// and Tron 7×7 against an AI (simultaneous moves), and leaves screenshots in artifacts/.
// BROWSER_TEST_GAMES=2048,snake,tron (names of the functions below, comma-separated) runs
// only those.
// Exit status 0 when every check passed, 1 with the failed check's message otherwise.

import { chromium } from 'playwright-core';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const base = (process.argv[2] ?? process.env.POLYZERO_URL ?? '').replace(/\/+$/, '');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const totalLimitMs = Number(process.env.BROWSER_TEST_LIMIT_MS ?? 60_000);
const artifacts = path.join(path.dirname(fileURLToPath(import.meta.url)), 'artifacts');
const fastAi = 'mcts:sims=50';

let checks = 0;
function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
  checks++;
  console.log(`  ok  ${what}`);
}

// ---------------------------------------------------------------------------------------
// Page helpers: they rely on the page's stable ids and data attributes.

const moveCount = (page) => page.locator('#move-list li').count();
const moveTexts = (page) => page.$$eval('#move-list li', (items) => items.map((li) => li.dataset.move));

// Fills the new-game form (unfolding it first where a narrow screen folded it away) and
// starts the game; waits until the page shows the new session.
async function startGame(page, { game, options = {}, side = 'first', spec = fastAi }) {
  const before = new URL(page.url()).hash;
  if (!(await page.locator('#game-select').isVisible())) await page.click('#new-game-button');
  await page.selectOption('#game-select', game);
  for (const [key, value] of Object.entries(options)) {
    await page.fill(`#option-${key}`, String(value));
  }
  await page.selectOption('#side-select', side);
  await page.fill('#ai-spec', spec);
  await page.click('#start-button');
  await page.waitForFunction((old) => /session=[0-9a-f]+/.test(location.hash) && location.hash !== old, before);
  const id = /session=([0-9a-f]+)/.exec(new URL(page.url()).hash)[1];
  await page.waitForFunction((session) => document.body.dataset.session === session &&
    !document.querySelector('#board').hasAttribute('hidden'), id);
  console.log(`${game}: session ${id}`);
  return id;
}

// Waits until a human may move (or the game is over); returns whether a human may move.
async function waitForHumanTurn(page) {
  await page.waitForFunction(() => ['your-turn', 'finished'].includes(document.querySelector('#status').dataset.state));
  return (await page.getAttribute('#status', 'data-state')) === 'your-turn';
}

// Clicks the first of `preferred` that is clickable on the board now (else the first
// clickable cell), then waits for the move and the AI's reply in the move list.
async function clickMove(page, preferred) {
  check(await waitForHumanTurn(page), 'the human is to move');
  const clickable = await page.$$eval('#board [data-move]', (els) => els.map((el) => el.dataset.move));
  check(clickable.length > 0, `the board has clickable moves (${clickable.length})`);
  const move = preferred.find((m) => clickable.includes(m)) ?? clickable[0];
  const before = await moveCount(page);
  await page.click(`#board [data-move="${move}"]`);
  await page.waitForFunction((n) => document.querySelectorAll('#move-list li').length >= n &&
    ['your-turn', 'finished'].includes(document.querySelector('#status').dataset.state), before + 2);
  const moves = await moveTexts(page);
  check(moves[before] === move, `clicked ${move}; the move list shows it as move ${before + 1}`);
  console.log(`      AI replied ${moves.slice(before + 1).join(' ')}`);
  return move;
}

// Every piece on the board sits on a cell that is not clickable.
async function checkOccupiedNotClickable(page) {
  const bad = await page.$$eval('#board .stone', (stones) => stones.filter((stone) => {
    const hit = document.querySelector(`#board .hit[data-cell="${stone.dataset.cell}"]`);
    return hit && hit.hasAttribute('data-move');
  }).length);
  check(bad === 0, 'occupied cells are not clickable');
}

// The analysis panel against the server's `analysis` of the AI's last move: the bar and the
// graph show the first player's win probability and say so; the table's Visits column shows
// visit counts and its Share column the shares; the search time is never "0.00 s"; the
// principal variation is the server's, cut where visits run out.
async function checkAnalysisShown(page) {
  const { analysis, seats } = await serverState(page);
  const value = await page.getAttribute('#win-probability', 'data-value');
  check(value !== null && value !== '' && Number(value) >= 0 && Number(value) <= 1,
    `#win-probability shows the AI's estimate (${value})`);
  const first = analysis.seat === 0 ? analysis.win_probability : 1 - analysis.win_probability;
  check(Math.abs(Number(value) - first) < 1e-9 && await page.getAttribute('#win-probability', 'data-seat') === '0',
    `the bar is the first player's win probability (${value}; the AI, seat ${analysis.seat}, said ${analysis.win_probability})`);
  const barText = await page.textContent('#win-probability .bar-text');
  check(barText.startsWith(`${seats[0].label} (first player): `) && barText.endsWith('% to win'), `the bar is labelled: "${barText}"`);
  const points = await page.$$eval('#value-graph .graph-point', (ps) => ps.map((p) => Number(p.dataset.p)));
  check(points.length > 0, `the value graph has points (${points.length})`);
  check(Math.abs(points[points.length - 1] - Number(value)) < 1e-9,
    `the graph's last point is the bar's value (${points[points.length - 1]})`);
  const graphHeading = await page.textContent('#graph-heading');
  check(graphHeading.includes(`${seats[0].label} (first player)`), `the graph is labelled: "${graphHeading}"`);

  const rows = await page.$$eval('#top-moves tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  check(rows.length > 0, `the top-moves table has rows (${rows.length})`);
  const headers = await page.$$eval('#top-moves thead th', (ths) => ths.map((th) => th.textContent));
  check(headers[1] === 'Visits' && headers[2] === 'Share' && headers[4] === `Win for ${seats[analysis.seat].label}`,
    `the columns are labelled (${headers.join(', ')})`);
  const shown = rows.map((r) => `${r[0]}:${r[1].replace(/,/g, '')}`).join(' ');
  const served = analysis.moves.map((m) => `${m.move}:${m.visits}`).join(' ');
  check(shown === served, `the Visits column shows the visit counts (${shown})`);
  const shares = rows.map((r) => parseFloat(r[2]));
  check(rows.every((r) => r[2].endsWith('%')) && shares.every((s, k) => Math.abs(s - 100 * analysis.moves[k].share) <= 0.5),
    `the Share column shows the shares (${rows.map((r) => r[2]).join(' ')})`);

  const stats = await page.textContent('#thinking-stats');
  const expected = analysis.seconds >= 0.01 ? /\d+\.\d\d s/ : /(\d ms|< 1 ms)/;
  check(!stats.includes('0.00 s') && expected.test(stats), `the search time reads well (${analysis.seconds} s: "${stats}")`);
  const pv = await page.textContent('#pv');
  check(pv === analysis.pv.join(' ') && analysis.pv.length < 12,
    `the principal variation is the server's, cut below the visit threshold (${pv})`);
}

// The colour a hovered column takes is the human's: the rgb of the seat's swatch (its discs'
// colour) in the list of seats.
async function checkHoverColour(page, seat) {
  const column = page.locator('#board .column[data-move]').first();
  await column.hover();
  const [hover, swatch] = await page.evaluate((s) => [
    getComputedStyle(document.querySelector('#board .column[data-move]:hover')).fill,
    getComputedStyle(document.querySelector(`#seats li[data-seat="${s}"] .swatch`)).backgroundColor,
  ], seat);
  const rgb = (colour) => (colour.match(/[\d.]+/g) ?? []).slice(0, 3).join(',');
  check(rgb(hover) === rgb(swatch), `a hovered column shows the human's colour (${hover}; seat ${seat}'s is ${swatch})`);
  await page.mouse.move(0, 0);
}

// Every share label drawn inside a visit circle fits in it (small circles go without).
async function checkVisitLabelsFit(page) {
  const { circles, labels, misfits } = await page.evaluate(() => {
    const cs = [...document.querySelectorAll('#board .visit')];
    const ls = [...document.querySelectorAll('#board .visit-label')];
    const bad = ls.filter((label) => {
      const b = label.getBBox(), x = Number(label.getAttribute('x')), y = Number(label.getAttribute('y'));
      const circle = cs.find((c) => Number(c.getAttribute('cx')) === x && Number(c.getAttribute('cy')) === y);
      const r = circle ? Number(circle.getAttribute('r')) : 0;
      return !circle || b.x < x - r - 0.5 || b.x + b.width > x + r + 0.5 || b.y < y - r - 0.5 || b.y + b.height > y + r + 0.5;
    }).map((label) => `${label.textContent}@${label.getAttribute('font-size')}`);
    return { circles: cs.length, labels: ls.length, misfits: bad };
  });
  check(circles > 0 && labels <= circles && misfits.length === 0,
    `${labels} share labels on ${circles} visit circles, each inside its circle${misfits.length ? ` (not: ${misfits.join(' ')})` : ''}`);
}

async function screenshot(page, name) {
  const file = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`      screenshot ${path.relative(process.cwd(), file)}`);
}

// ---------------------------------------------------------------------------------------
// The games

async function connectFour(page) {
  const id = await startGame(page, { game: 'connect4' });
  check(await page.getAttribute('#board', 'data-kind') === 'columns', 'Connect Four is drawn as columns');
  check(await page.locator('#board .column[data-move]').count() === 7, 'seven clickable columns');
  for (const preferred of [['4'], ['3'], ['5']]) await clickMove(page, preferred);
  await checkHoverColour(page, 0);
  const discs = await page.locator('#board .stone').count();
  check(discs === 6, `six discs on the board (${discs})`);
  check(await page.locator('#board .stone[data-seat="0"]').count() === 3, 'three of them the human\'s');
  check(await page.locator('#board .stone.last').count() === 1, 'the last disc is marked');
  await checkAnalysisShown(page);

  // A typed illegal move: the server's error appears in the message line, dismissible.
  await page.fill('#move-input', '99');
  await page.click('#move-submit');
  await page.waitForSelector('#error:not([hidden])');
  const error = (await page.textContent('#error-text')).trim();
  check(error.length > 0, `an illegal typed move shows the server's error: "${error}"`);
  await page.click('#error-dismiss');
  check(await page.locator('#error').isHidden(), 'the error line can be dismissed');

  // A typed legal move plays like a click, and as a new action it clears an earlier error.
  await showMoveError(page);
  const before = await moveCount(page);
  await page.fill('#move-input', '1');
  await page.click('#move-submit');
  await page.waitForFunction((n) => document.querySelectorAll('#move-list li').length >= n, before + 2);
  check((await moveTexts(page))[before] === '1', 'a typed move (1) is played');
  check(await page.locator('#error').isHidden(), 'the new move cleared the old error line');

  // The browser's own validation message (a Hex size over the maximum) clears an old error
  // and starts nothing.
  await waitForHumanTurn(page);
  await showMoveError(page);
  await page.selectOption('#game-select', 'hex');
  await page.fill('#option-size', '99');
  await page.click('#start-button');
  check(await page.$eval('#option-size', (input) => input.matches(':invalid')), 'the browser flags a Hex size of 99');
  check(await page.locator('#error').isHidden(), 'the validation message cleared the old error line');
  check(new URL(page.url()).hash.includes(id), 'no game was started');
  await page.selectOption('#game-select', 'connect4');

  // A reload reopens the session from the URL hash.
  const count = await moveCount(page);
  await page.reload();
  await page.waitForFunction((n) => document.body.dataset.ready === 'true' &&
    document.querySelectorAll('#move-list li').length === n, count);
  check(new URL(page.url()).hash.includes(id), `a reload reopens session ${id.slice(0, 8)}… with its ${count} moves`);
  await screenshot(page, 'connect4');
  await resignWithConfirmation(page);
}

// Types an illegal move and waits for the server's error in the message line.
async function showMoveError(page) {
  await page.fill('#move-input', '99');
  await page.click('#move-submit');
  await page.waitForSelector('#error:not([hidden])');
}

// Resigning takes a confirming second click; a click elsewhere calls it off. The result
// banner gives the reason once.
async function resignWithConfirmation(page) {
  await waitForHumanTurn(page);
  await page.click('#resign');
  check(await page.textContent('#resign') === 'Confirm resign', 'the first click on Resign asks for confirmation');
  await page.waitForTimeout(300);
  check((await serverState(page)).status === 'playing', 'one click did not resign');
  await page.click('#status');
  check(await page.textContent('#resign') === 'Resign', 'a click elsewhere calls the resignation off');
  await page.click('#resign');
  await page.click('#resign');
  await page.waitForSelector('#result:not([hidden])');
  const banner = await page.textContent('#result');
  check((banner.match(/resign/gi) ?? []).length === 1, `the second click resigned; the banner says why once: "${banner}"`);
  check(await page.textContent('#resign') === 'Resign' && await page.isDisabled('#resign'), 'the Resign button is back and disabled');
}

async function go(page) {
  await startGame(page, { game: 'go', options: { size: 9 } });
  check(await page.getAttribute('#board', 'data-kind') === 'go', 'Go is drawn as a go board');
  check(await page.locator('#board .hit').count() === 81, '81 intersections');
  check(await page.locator('#board .hoshi').count() === 5, 'five hoshi points on 9×9');
  check(await page.locator('#pass').count() === 1, 'a Pass button while the human is to move');
  for (const preferred of [['e5'], ['c3', 'g7'], ['g3', 'c7']]) await clickMove(page, preferred);
  const moves = await moveTexts(page);
  const placed = moves.filter((m) => m !== 'pass').length;
  const stones = await page.locator('#board .stone').count();
  check(stones === placed, `${stones} stones for ${placed} placed moves (${moves.join(' ')})`);
  check(await page.locator('#board .hit[aria-label="e5"]').count() === 1, 'intersections carry aria-labels (e5)');
  await checkOccupiedNotClickable(page);
  await screenshot(page, 'go');
}

async function hex(page) {
  await startGame(page, { game: 'hex', options: { size: 5 } });
  check(await page.getAttribute('#board', 'data-kind') === 'hex', 'Hex is drawn as hexagons');
  check(await page.locator('#board .hex-cell').count() === 25, '25 cells on 5×5');
  check(await page.locator('#board .hex-edge.seat-0').count() === 2 &&
        await page.locator('#board .hex-edge.seat-1').count() === 2, 'both sides\' edges are coloured');
  for (const preferred of [['c3'], ['b4', 'd2'], ['d3', 'b3']]) await clickMove(page, preferred);
  const moves = await moveTexts(page);
  const placed = moves.filter((m) => m !== 'swap').length;
  const stones = await page.locator('#board .stone').count();
  check(stones === placed, `${stones} stones for ${placed} placing moves (${moves.join(' ')})`);
  await checkOccupiedNotClickable(page);
  await screenshot(page, 'hex');
  await page.selectOption('#game-select', 'hex');
  const help = await page.textContent('#option-swap ~ .help');
  check(/second move/.test(help) && /mirror cell/.test(help) && !/White's second move/.test(help),
    `the swap option's help says what the rule does: "${help}"`);

  // A narrow window: the board scales down to fit.
  await page.setViewportSize({ width: 420, height: 800 });
  const box = await page.locator('#board').boundingBox();
  check(box && box.width <= 420 && box.width > 200, `the board fits a 420 px window (${Math.round(box?.width)} px wide)`);
  await screenshot(page, 'hex-narrow');
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function othello(page) {
  await startGame(page, { game: 'othello' });
  check(await page.getAttribute('#board', 'data-look') === 'othello', 'Othello is drawn as green squares');
  check(await page.locator('#board .stone').count() === 4, 'four discs to start');
  for (const preferred of [['d3', 'c4', 'f5', 'e6'], ['c3', 'e3', 'c5', 'f4']]) await clickMove(page, preferred);
  const before = await moveCount(page);
  check(before === 4, `four moves played (${before})`);
  await page.click('#undo');
  await page.waitForFunction((n) => document.querySelectorAll('#move-list li').length < n, before);
  const after = await moveCount(page);
  check(after === 2, `undo took back the last human move and the AI's reply (${before} → ${after})`);
  await waitForHumanTurn(page);
  const discs = await page.locator('#board .stone').count();
  check(discs === 6, `six discs after undo (${discs})`);
  await screenshot(page, 'othello');
}

// ---------------------------------------------------------------------------------------
// Direction games: no clickable cells, four direction buttons and the arrow keys.

const ARROWS = { up: 'ArrowUp', right: 'ArrowRight', down: 'ArrowDown', left: 'ArrowLeft' };
const WASD = { up: 'w', right: 'd', down: 's', left: 'a' };
const sessionId = (page) => /session=([0-9a-f]+)/.exec(new URL(page.url()).hash)[1];

async function serverState(page) {
  const response = await fetch(`${base}/api/sessions/${sessionId(page)}`, { signal: AbortSignal.timeout(3000) });
  return response.json();
}

const DIRECTIONS = ['up', 'right', 'down', 'left'];
const enabledDirections = async (page) => {
  const enabled = await page.$$eval('#direction-pad button:not([disabled])', (buttons) => buttons.map((b) => b.dataset.direction));
  return DIRECTIONS.filter((d) => enabled.includes(d));
};

// The direction buttons: all four shown, enabled exactly for the server's other_moves while
// the human is to move, each carrying the exact move string.
async function checkDirectionPad(page) {
  check(await page.locator('#direction-pad').isVisible(), 'the direction buttons are shown');
  for (const id of ['#move-up', '#move-right', '#move-down', '#move-left']) {
    check(await page.locator(id).count() === 1, `the button ${id} exists`);
  }
  check(await page.locator('#board [data-move]').count() === 0, 'no clickable cells on a direction board');
  const state = await serverState(page);
  const otherMoves = state.board?.other_moves ?? [];
  const enabled = await enabledDirections(page);
  const expected = DIRECTIONS.filter((d) => otherMoves.some((m) => m === d || m === d[0]));
  check(enabled.join() === expected.join(),
    `the enabled buttons (${enabled.join(' ')}) are the server's other_moves (${otherMoves.join(' ')})`);
  const sent = await page.$$eval('#direction-pad button:not([disabled])', (b) => b.map((x) => x.dataset.move));
  check(sent.every((m) => otherMoves.includes(m)), `the buttons play the exact move strings (${sent.join(' ')})`);
}

// Plays one direction: the first of `preferred` that is enabled now, by `how` ('arrow',
// 'wasd' or 'click'); waits until the move list grows by at least `grows` and a human may
// move again (or the game is over). Returns the direction and the new moves.
async function playDirection(page, preferred, how, grows = 1) {
  check(await waitForHumanTurn(page), 'the human is to move');
  await page.waitForFunction(() => document.querySelectorAll('#direction-pad button:not([disabled])').length > 0);
  const enabled = await enabledDirections(page);
  const direction = preferred.find((d) => enabled.includes(d)) ?? enabled[0];
  const before = await moveCount(page);
  if (how === 'click') await page.click(`#move-${direction}`);
  else await page.keyboard.press(how === 'wasd' ? WASD[direction] : ARROWS[direction]);
  await page.waitForFunction((n) => document.querySelectorAll('#move-list li').length >= n &&
    ['your-turn', 'finished'].includes(document.querySelector('#status').dataset.state), before + grows);
  const moves = (await moveTexts(page)).slice(before);
  check(moves[0] === direction, `${how === 'click' ? 'clicked' : `pressed ${how === 'wasd' ? WASD[direction] : ARROWS[direction]} for`} ` +
    `${direction}; the move list shows it as move ${before + 1} (then ${moves.slice(1).join(' ') || 'nothing'})`);
  return { direction, moves };
}

const nonEmptyTiles = (page) => page.locator('#board .tile').count();

async function game2048(page) {
  await page.selectOption('#game-select', '2048');
  const sides = await page.$$eval('#side-select option', (options) => options.map((o) => `${o.value}:${o.textContent}`));
  check(sides.join('|') === 'first:I play|watch:AI plays (watch)', `a one-player game offers "I play" and "AI plays (watch)" (${sides.join(', ')})`);
  await startGame(page, { game: '2048', spec: fastAi });
  check(await page.getAttribute('#board', 'data-kind') === 'tiles', '2048 is drawn as tiles');
  check(await page.locator('#board .tile-empty').count() === 16, '16 cells on 4×4');
  const tiles = await nonEmptyTiles(page);
  check(tiles >= 2, `at least two tiles to start (${tiles})`);
  const value = await page.getAttribute('#board .tile', 'data-value');
  check(['2', '4'].includes(value) && (await page.textContent('#board .tile text')) === value, `a tile shows its value (${value})`);
  await checkDirectionPad(page);

  // Arrow keys typed into the move field edit the text, they do not play.
  const before = await moveCount(page);
  await page.focus('#move-input');
  await page.keyboard.press('ArrowUp');
  await page.waitForTimeout(300);
  check(await moveCount(page) === before, 'an arrow key in the move field plays nothing');

  await page.focus('#board');
  await playDirection(page, ['left', 'up', 'right', 'down'], 'arrow');
  await playDirection(page, ['up', 'left', 'down', 'right'], 'arrow');
  await page.click('#status');  // the focus leaves the board: the keys still play
  await playDirection(page, ['right', 'down', 'left', 'up'], 'wasd');
  await playDirection(page, ['down', 'right', 'up', 'left'], 'click');
  const count = await moveCount(page);
  check(count >= before + 4, `the move list grew by four moves and their tiles (${before} → ${count})`);
  const after = await nonEmptyTiles(page);
  check(after >= 2, `at least two tiles after four moves (${after})`);
  const state = await serverState(page);
  const drawn = await page.$$eval('#board .tile', (ts) => ts.map((t) => `${t.dataset.cell}:${t.dataset.value}`).join());
  const served = state.board.cells.map((v, i) => (v > 0 ? `${i}:${v}` : null)).filter(Boolean).join();
  check(drawn === served, 'the tiles drawn are the server\'s cells');
  await screenshot(page, '2048');
}

async function snake(page) {
  await startGame(page, { game: 'snake' });
  check(await page.getAttribute('#board', 'data-kind') === 'snake', 'Snake is drawn as a snake board');
  check(await page.locator('#board .snake-head').count() === 1, 'the snake has a head');
  check(await page.locator('#board .snake-head .eye').count() === 2, 'the head has eyes');
  const body = await page.locator('#board .snake-body').count();
  check(body === 2, `the body is two cells behind the head (${body})`);
  check(await page.locator('#board .food').count() === 1, 'the food is on the board');
  await checkDirectionPad(page);
  let head = await page.getAttribute('#board .snake-head', 'data-cell');
  for (const [preferred, how] of [[['right'], 'click'], [['up'], 'click'], [['left', 'up'], 'arrow']]) {
    const { moves } = await playDirection(page, preferred, how);
    if (await page.getAttribute('#status', 'data-state') === 'finished') {
      check(await page.locator('#result').isVisible(), `the game ended (${moves.join(' ')}): a result banner`);
      break;
    }
    const now = await page.getAttribute('#board .snake-head', 'data-cell');
    check(now !== head, `the head moved (cell ${head} → ${now})`);
    head = now;
  }
  await screenshot(page, 'snake');
}

// Tron against an AI: both choose at once; each step adds two entries (seat 0, seat 1).
async function tron(page) {
  const option = await page.$eval('#game-select option[value="tron"]', (o) => ({ disabled: o.disabled, text: o.textContent }));
  check(!option.disabled, `Tron can be chosen in the game list ("${option.text}")`);
  await startGame(page, { game: 'tron', options: { rows: 7, columns: 7 }, spec: 'mcts:sims=30' });
  check(await page.getAttribute('#board', 'data-kind') === 'tron', 'Tron is drawn as an arena');
  check(await page.locator('#board .head').count() === 2, 'two heads');
  check(await page.locator('#board .trail[data-seat="0"]').count() === 1 &&
        await page.locator('#board .trail[data-seat="1"]').count() === 1, 'each trail starts with one cell');
  await waitForHumanTurn(page);
  const status = await page.textContent('#status');
  check(status.includes('choose your move (both players move at once)'), `the status asks for a simultaneous choice: "${status}"`);
  await checkDirectionPad(page);
  await page.focus('#board');
  let steps = 0;
  for (const [preferred, how] of [[['up'], 'arrow'], [['up'], 'wasd'], [['right'], 'arrow']]) {
    const { direction, moves } = await playDirection(page, preferred, how, 2);
    steps++;
    const entries = await page.$$eval('#move-list li', (items) => items.map((li) => `${li.dataset.seat}:${li.dataset.move}`));
    check(entries.length === 2 * steps, `${steps} joint move(s) are ${entries.length} entries (${entries.join(' ')})`);
    check(entries[2 * steps - 2] === `0:${direction}` && entries[2 * steps - 1].startsWith('1:'),
      `step ${steps}: seat 0's ${direction} then seat 1's ${moves[1]}`);
    if (await page.getAttribute('#status', 'data-state') === 'finished') {
      check(await page.locator('#result').isVisible(), `a crash ended the game: "${await page.textContent('#result')}"`);
      check(await page.locator('#board .crash').count() >= 1, 'the crashed head is crossed out');
      break;
    }
    const trails = [0, 1].map((seat) => page.locator(`#board .trail[data-seat="${seat}"]`).count());
    const [t0, t1] = await Promise.all(trails);
    check(t0 === steps + 1 && t1 === steps + 1, `both trails grew to ${steps + 1} cells (${t0}, ${t1})`);
  }
  await screenshot(page, 'tron');
}

// What the page shows and what the server says about the session, for a failure report.
async function describeFailure(page) {
  console.log(`      page status: ${await page.textContent('#status')}`);
  if (await page.locator('#error').isVisible()) console.log(`      page error line: ${await page.textContent('#error-text')}`);
  console.log(`      page move list: ${(await moveTexts(page)).join(' ')}`);
  const id = /session=([0-9a-f]+)/.exec(new URL(page.url()).hash)?.[1];
  if (!id) return;
  const response = await fetch(`${base}/api/sessions/${id}`, { signal: AbortSignal.timeout(3000) });
  const state = await response.json();
  console.log(`      server: HTTP ${response.status}, move ${state.move_number}, to_move ${state.to_move}, ` +
              `thinking ${state.thinking}, status ${state.status}, moves ${(state.moves ?? []).map((m) => m.move).join(' ')}`);
}

// The AI moves first with a 1.5 s budget: the page shows its search while it runs.
async function liveThinking(page) {
  await startGame(page, { game: 'connect4', side: 'second', spec: 'mcts:sims=0,seconds=1.5' });
  await page.waitForSelector('#thinking.live');
  check(await page.getAttribute('#status', 'data-state') === 'thinking',
    `the status says the AI is thinking: "${await page.textContent('#status')}"`);
  await page.waitForSelector('#board .visit');
  check(await page.locator('#board .visit').count() > 0, 'visit shares are drawn on the board while it searches');
  await checkVisitLabelsFit(page);
  check(await page.locator('#board [data-move]').count() === 0, 'no column is clickable while the AI is to move');
  await page.waitForFunction(() => document.querySelectorAll('#move-list li').length === 1 &&
    document.querySelector('#status').dataset.state === 'your-turn');
  check(await page.locator('#thinking.live').count() === 0 && await page.locator('#board .visit').count() === 0,
    'after its move the live view ends');
  const stats = await page.textContent('#thinking-stats');
  check(/\b1\.\d\d s\b/.test(stats), `a search of 1.5 s reads in seconds ("${stats}")`);
  await checkHoverColour(page, 1);
  await screenshot(page, 'connect4-second');
}

// Hex's swap between two people (a session made through the API, opened by its URL): Red
// opens off the diagonal at b1; the help beside Blue's Swap button names the seats, that
// stone and its mirror cell a2, and the board after the swap agrees with it.
async function hexSwap(page) {
  const created = await fetch(`${base}/api/sessions`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ game: 'hex:size=5', seats: ['human', 'human'] }), signal: AbortSignal.timeout(3000),
  }).then((r) => r.json());
  await page.goto(`${base}/#session=${created.id}`);
  await page.waitForFunction((id) => document.body.dataset.session === id, created.id);
  const [red, blue] = created.seats.map((s) => s.label);
  await page.click('#board [data-move="b1"]');
  await page.waitForFunction(() => document.querySelectorAll('#move-list li').length === 1);
  check(await page.locator('#swap').isVisible(), `a Swap button once ${red} has opened`);
  const help = await page.textContent('#swap-help');
  check(help.includes(`${red}'s stone on b1 is removed`) && help.includes(`a ${blue} stone goes on its mirror cell a2`) &&
        help.includes(`then ${red} moves again`), `the swap help names the move, the cells and the colours: "${help}"`);
  check(await page.getAttribute('#swap', 'aria-describedby') === 'swap-help', 'the Swap button is described by it');
  await page.click('#swap');
  await page.waitForFunction(() => document.querySelectorAll('#move-list li').length === 2);
  check((await moveTexts(page))[1] === 'swap', 'the move list shows the swap');
  const stones = await page.$$eval('#board .stone', (ss) => ss.map((s) => `${s.dataset.seat}@${s.dataset.cell}`));
  check(stones.join() === '1@5', `after the swap the only stone is ${blue}'s on a2 (${stones.join()})`);
  const status = await page.textContent('#status');
  check(status.includes(`${red} to move`), `then ${red} moves again: "${status}"`);
  check(await page.locator('#swap').count() === 0, 'no second swap');
  await screenshot(page, 'hex-swap');
}

// A `random` AI evaluates nothing: its moves put no point on the value graph.
async function randomAi(page) {
  await startGame(page, { game: 'connect4', spec: 'random' });
  for (const preferred of [['4'], ['4']]) await clickMove(page, preferred);
  const state = await serverState(page);
  check(state.values.length === 0, `the server keeps no value for random moves (${JSON.stringify(state.values)})`);
  check(await page.locator('#value-graph .graph-point').count() === 0 && await page.locator('#value-graph .graph-line').count() === 0,
    'the value graph plots no point for them');
}

// A phone (390×844): before a game the form is there; once a game starts the board comes
// first and fits the first screen, the form folded away until "New game" unfolds it.
async function phone(page) {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(`${base}/`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    check(await page.locator('#game-select').isVisible(), 'on a phone without a game the new-game form is shown');
    await startGame(page, { game: 'connect4' });
    check(!(await page.$eval('#setup-fold', (d) => d.open)) && !(await page.locator('#game-select').isVisible()),
      'once the game starts the form is folded away');
    const board = await page.locator('#board').boundingBox();
    const setup = await page.locator('.setup').boundingBox();
    check(board.y >= 0 && board.y + board.height <= 844 && board.width <= 390,
      `the board is within the first screen (${Math.round(board.y)}–${Math.round(board.y + board.height)} px of 844)`);
    check(setup.y > board.y + board.height, 'the folded form comes after the board');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    check(overflow <= 390, `nothing is wider than the screen (${overflow} px)`);
    await clickMove(page, ['4']);
    await screenshot(page, 'phone');
    await page.click('#new-game-button');
    await page.waitForFunction(() => document.querySelector('#setup-fold').open);
    await page.locator('#game-select').waitFor({ state: 'visible' });
    check(await page.locator('#game-select').isVisible(), '"New game" unfolds the form');
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

// ---------------------------------------------------------------------------------------

async function main() {
  if (!/^https?:\/\//.test(base)) {
    throw new Error('usage: node play_test.mjs http://HOST:PORT (or set POLYZERO_URL)');
  }
  await rm(artifacts, { recursive: true, force: true });  // no stale screenshots
  await mkdir(artifacts, { recursive: true });
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
  const pageErrors = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // Diagnostics: requests that got no answer (the event stream's ends are expected).
    page.on('requestfailed', (request) => {
      if (!request.url().endsWith('/events')) {
        console.log(`      request failed: ${request.method()} ${request.url()}: ${request.failure()?.errorText}`);
      }
    });
    console.log(`page ${base}/ in Chromium ${browser.version()}`);
    await page.goto(`${base}/`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    const games = await page.$$eval('#game-select option', (options) => options.map((o) => o.value));
    for (const game of ['connect4', 'go', 'hex', 'othello']) check(games.includes(game), `the game list offers ${game}`);
    check(await page.inputValue('#ai-spec') !== '', `the AI spec is prefilled (${await page.inputValue('#ai-spec')})`);

    check(games.includes('2048') && games.includes('snake') && games.includes('tron'), 'the game list offers 2048, snake and tron');
    const only = (process.env.BROWSER_TEST_GAMES ?? '').split(',').filter(Boolean);
    const all = [connectFour, go, hex, othello, liveThinking, hexSwap, randomAi, phone, game2048, snake, tron];
    for (const game of all.filter((g) => !only.length || only.includes(g.name) || only.includes(g.name.replace(/^game/, '')))) {
      try {
        await game(page);
      } catch (error) {
        await screenshot(page, `failed-${game.name}`).catch(() => {});
        await describeFailure(page).catch((e) => console.log(`      (no diagnostics: ${e.message})`));
        throw error;
      }
    }
    check(pageErrors.length === 0, `no uncaught errors in the page${pageErrors.length ? `: ${pageErrors.join('; ')}` : ''}`);
  } finally {
    await browser.close();
  }
}

const timer = setTimeout(() => {
  console.error(`FAIL: the browser test ran over ${totalLimitMs / 1000} s`);
  process.exit(1);
}, totalLimitMs);

const started = Date.now();
main().then(() => {
  clearTimeout(timer);
  console.log(`PASS: ${checks} checks in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, (error) => {
  clearTimeout(timer);
  console.error(`FAIL: ${error.message}`);
  process.exit(1);
});
