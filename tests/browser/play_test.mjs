// End-to-end test of the play page of `polyzero serve` in headless Chromium.
// Usage: node play_test.mjs http://127.0.0.1:PORT   (or POLYZERO_URL=... node play_test.mjs)
// Plays Connect Four, Go 9×9, Hex 5×5 and Othello against a fast AI by clicking the board,
// checks what the page shows after each move, watches a slower AI think live, and leaves
// screenshots in artifacts/.
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

// Fills the new-game form and starts the game; waits until the page shows the new session.
async function startGame(page, { game, options = {}, side = 'first', spec = fastAi }) {
  const before = new URL(page.url()).hash;
  await page.selectOption('#game-select', game);
  for (const [key, value] of Object.entries(options)) {
    await page.fill(`#option-${key}`, String(value));
  }
  await page.selectOption('#side-select', side);
  await page.fill('#ai-spec', spec);
  await page.click('#start-button');
  await page.waitForFunction((old) => /session=[0-9a-f]+/.test(location.hash) && location.hash !== old, before);
  await page.waitForFunction(() => document.querySelector('#move-list').children.length === 0 &&
    !document.querySelector('#board').hasAttribute('hidden'));
  const id = /session=([0-9a-f]+)/.exec(new URL(page.url()).hash)[1];
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

async function checkAnalysisShown(page) {
  const value = await page.getAttribute('#win-probability', 'data-value');
  check(value !== null && value !== '' && Number(value) >= 0 && Number(value) <= 1,
    `#win-probability shows the AI's estimate (${value})`);
  const rows = await page.locator('#top-moves tbody tr').count();
  check(rows > 0, `the top-moves table has rows (${rows})`);
  const points = await page.locator('#value-graph .graph-point').count();
  check(points > 0, `the value graph has points (${points})`);
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

  // A typed legal move plays like a click.
  const before = await moveCount(page);
  await page.fill('#move-input', '1');
  await page.click('#move-submit');
  await page.waitForFunction((n) => document.querySelectorAll('#move-list li').length >= n, before + 2);
  check((await moveTexts(page))[before] === '1', 'a typed move (1) is played');

  // A reload reopens the session from the URL hash.
  const count = await moveCount(page);
  await page.reload();
  await page.waitForFunction((n) => document.body.dataset.ready === 'true' &&
    document.querySelectorAll('#move-list li').length === n, count);
  check(new URL(page.url()).hash.includes(id), `a reload reopens session ${id.slice(0, 8)}… with its ${count} moves`);
  await screenshot(page, 'connect4');
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
  check(await page.locator('#board [data-move]').count() === 0, 'no column is clickable while the AI is to move');
  await page.waitForFunction(() => document.querySelectorAll('#move-list li').length === 1 &&
    document.querySelector('#status').dataset.state === 'your-turn');
  check(await page.locator('#thinking.live').count() === 0 && await page.locator('#board .visit').count() === 0,
    'after its move the live view ends');
  await screenshot(page, 'connect4-second');
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

    for (const game of [connectFour, go, hex, othello, liveThinking]) {
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
