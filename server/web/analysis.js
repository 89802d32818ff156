// The AI's thinking (server/README.md, "Thinking") and the value graph of the game.

import { svg, html, clear, r2, percent } from './svg.js';

// Fills the #thinking panel's parts from `thinking` (a thinking event or the state's last
// `analysis`; null: nothing to show). `live`: the search is still running.
export function renderThinking(panel, thinking, state, live) {
  const heading = panel.querySelector('#thinking-heading');
  const bar = panel.querySelector('#win-probability');
  const stats = panel.querySelector('#thinking-stats');
  const table = panel.querySelector('#top-moves tbody');
  const pv = panel.querySelector('#pv');
  panel.classList.toggle('live', live);
  panel.classList.toggle('empty', !thinking);
  clear(table);
  if (!thinking) {
    heading.textContent = 'AI analysis';
    stats.textContent = 'No AI search yet.';
    setBar(bar, null, '');
    pv.textContent = '';
    return;
  }
  const label = seatLabel(state, thinking.seat);
  heading.textContent = live ? `AI is thinking… (${label})` : `AI analysis of its last move (${label})`;
  setBar(bar, thinking.win_probability, label);
  stats.textContent = describeSearch(thinking);
  for (const candidate of thinking.moves ?? []) {
    table.append(html('tr', {}, [
      html('td', { text: candidate.move }),
      html('td', { text: percent(candidate.share ?? 0) }),
      html('td', { text: candidate.prior === undefined || candidate.prior === null ? '–' : percent(candidate.prior) }),
      html('td', { text: candidate.win_probability === undefined || candidate.win_probability === null ? '–' : percent(candidate.win_probability) }),
    ]));
  }
  pv.textContent = thinking.pv?.length ? thinking.pv.join(' ') : '–';
}

function describeSearch(t) {
  const parts = [];
  if (t.simulations !== undefined) parts.push(`${t.simulations.toLocaleString()} simulations`);
  if (t.visits !== undefined) parts.push(`${t.visits.toLocaleString()} visits`);
  if (t.seconds !== undefined) parts.push(`${Number(t.seconds).toFixed(2)} s`);
  if (t.proven) parts.push(`proven ${t.proven_result ?? ''}`.trim());
  if (t.done) parts.push('done');
  return parts.join(' · ');
}

// The bar shows the searching seat's win probability p: its width is p.
function setBar(bar, p, label) {
  const fill = bar.querySelector('.fill');
  const text = bar.querySelector('.bar-text');
  const known = typeof p === 'number' && Number.isFinite(p);
  fill.style.width = known ? `${r2(100 * p)}%` : '0';
  text.textContent = known ? `${label} win probability ${percent(p)}` : '';
  bar.setAttribute('aria-valuenow', known ? String(Math.round(100 * p)) : '');
  bar.dataset.value = known ? String(p) : '';
}

export function seatLabel(state, seat) {
  const entry = state?.seats?.find((s) => s.seat === seat);
  return entry?.label || `seat ${seat}`;
}

// The first seat's win probability after each AI move: `values` entries are each for their
// own seat, so seat 1's p becomes 1 − p (two-player games).
export function firstSeatValues(state) {
  return (state.values ?? [])
    .filter((v) => typeof v.win_probability === 'number')
    .map((v) => ({ ply: v.ply, p: v.seat === 0 ? v.win_probability : 1 - v.win_probability }))
    .sort((a, b) => a.ply - b.ply);
}

// Draws the value graph into the <svg> `root`: x the ply, y the first seat's win
// probability (top: the first seat wins), a dashed line at 50%.
export function renderValueGraph(root, state) {
  clear(root);
  const W = 320, H = 140, left = 34, right = 8, top = 10, bottom = 22;
  root.setAttribute('viewBox', `0 0 ${W} ${H}`);
  const points = state ? firstSeatValues(state) : [];
  const lastPly = Math.max(1, state?.move_number ?? 0, ...points.map((p) => p.ply));
  const x = (ply) => r2(left + (W - left - right) * ply / lastPly);
  const y = (p) => r2(top + (H - top - bottom) * (1 - p));

  root.append(svg('rect', { class: 'graph-area', x: left, y: top, width: W - left - right, height: H - top - bottom }));
  root.append(svg('line', { class: 'graph-mid', x1: left, y1: y(0.5), x2: W - right, y2: y(0.5) }));
  const first = seatLabel(state, 0);
  root.append(svg('text', { class: 'graph-label', x: left - 4, y: y(1) + 4, text: '100%' }));
  root.append(svg('text', { class: 'graph-label', x: left - 4, y: y(0.5) + 4, text: '50%' }));
  root.append(svg('text', { class: 'graph-label', x: left - 4, y: y(0) + 4, text: '0%' }));
  root.append(svg('text', { class: 'graph-axis', x: left, y: H - 6, text: `ply → (${first}'s win probability)` }));
  if (!points.length) return;
  root.append(svg('polyline', {
    class: 'graph-line', points: points.map((p) => `${x(p.ply)},${y(p.p)}`).join(' '),
  }));
  for (const p of points) {
    root.append(svg('circle', { class: 'graph-point', cx: x(p.ply), cy: y(p.p), r: 2.5 }, [
      svg('title', { text: `ply ${p.ply}: ${first} ${percent(p.p)}` }),
    ]));
  }
}
