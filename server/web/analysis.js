// The AI's thinking (server/README.md, "Thinking") and the value graph of the game.
// The win-probability bar and the graph both show the FIRST seat's win probability (an
// estimate is turned round for seat 1 of a two-player game), each labelled with that seat;
// only the table's "Win" column is the searching seat's own, and its header says so.

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
  const first = firstSeatProbability(state, thinking.seat, thinking.win_probability);
  if (first !== null) setBar(bar, first, `${seatLabel(state, 0)} (first player)`, 0);
  else setBar(bar, thinking.win_probability, `${label} (searching)`, thinking.seat);
  stats.textContent = describeSearch(thinking);
  panel.querySelector('#win-column').textContent = `Win for ${label}`;
  const known = (x) => x !== undefined && x !== null;
  for (const candidate of thinking.moves ?? []) {
    table.append(html('tr', {}, [
      html('td', { text: candidate.move }),
      html('td', { class: 'visits', text: known(candidate.visits) ? candidate.visits.toLocaleString('en') : '–' }),
      html('td', { class: 'share', text: percent(candidate.share ?? 0) }),
      html('td', { text: known(candidate.prior) ? percent(candidate.prior) : '–' }),
      html('td', { text: known(candidate.win_probability) ? percent(candidate.win_probability) : '–' }),
    ]));
  }
  pv.textContent = thinking.pv?.length ? thinking.pv.join(' ') : '–';
}

function describeSearch(t) {
  const parts = [];
  if (t.simulations !== undefined) parts.push(`${t.simulations.toLocaleString('en')} simulations`);
  if (t.visits !== undefined) parts.push(`${t.visits.toLocaleString('en')} visits`);
  if (t.seconds !== undefined) parts.push(formatDuration(Number(t.seconds)));
  if (t.proven) parts.push(`proven ${t.proven_result ?? ''}`.trim());
  if (t.done) parts.push('done');
  return parts.join(' · ');
}

// A search's duration: "1.23 s" from 10 ms on, "7 ms" below, "< 1 ms" under a millisecond
// (a search of a few milliseconds is not "0.00 s").
export function formatDuration(seconds) {
  if (!Number.isFinite(seconds)) return '';
  if (seconds >= 0.01) return `${seconds.toFixed(2)} s`;
  return seconds >= 0.001 ? `${Math.round(1000 * seconds)} ms` : '< 1 ms';
}

// The bar shows win probability p of `seat`, named by `label`: its width is p.
function setBar(bar, p, label, seat) {
  const fill = bar.querySelector('.fill');
  const text = bar.querySelector('.bar-text');
  const known = typeof p === 'number' && Number.isFinite(p);
  fill.style.width = known ? `${r2(100 * p)}%` : '0';
  text.textContent = known ? `${label}: ${percent(p)} to win` : '';
  bar.setAttribute('aria-valuenow', known ? String(Math.round(100 * p)) : '');
  bar.dataset.value = known ? String(p) : '';
  bar.dataset.seat = known ? String(seat) : '';
}

export function seatLabel(state, seat) {
  const entry = state?.seats?.find((s) => s.seat === seat);
  return entry?.label || `seat ${seat}`;
}

// The first seat's win probability from `seat`'s own estimate p: p for seat 0, 1 − p for
// seat 1 of a two-player game; null when it cannot be told (no number, more seats).
export function firstSeatProbability(state, seat, p) {
  if (typeof p !== 'number' || !Number.isFinite(p)) return null;
  if (seat === 0) return p;
  return seat === 1 && (state?.seats?.length ?? 2) === 2 ? 1 - p : null;
}

// The first seat's win probability after each evaluated AI move, by ply. A move without an
// estimate (a `random` player's) has no entry in `values` and gets no point.
export function firstSeatValues(state) {
  return (state.values ?? [])
    .map((v) => ({ ply: v.ply, p: firstSeatProbability(state, v.seat, v.win_probability) }))
    .filter((v) => v.p !== null)
    .sort((a, b) => a.ply - b.ply);
}

// Draws the value graph into the <svg> `root`: x the ply, y the first seat's win
// probability (top: the first seat wins), a dashed line at 50%; `heading` (an element) is
// given the seat the graph is for.
export function renderValueGraph(root, state, heading) {
  clear(root);
  heading.textContent = state ? `Value graph: ${seatLabel(state, 0)} (first player) win probability` : 'Value graph';
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
  root.append(svg('text', { class: 'graph-axis', x: left, y: H - 6, text: `ply → · ${first} (first player) win probability` }));
  root.setAttribute('aria-label', `Win probability of ${first} (the first player) by ply`);
  if (!points.length) return;
  root.append(svg('polyline', {
    class: 'graph-line', points: points.map((p) => `${x(p.ply)},${y(p.p)}`).join(' '),
  }));
  for (const p of points) {
    root.append(svg('circle', { class: 'graph-point', cx: x(p.ply), cy: y(p.p), r: 2.5, 'data-ply': p.ply, 'data-p': p.p }, [
      svg('title', { text: `ply ${p.ply}: ${first} ${percent(p.p)}` }),
    ]));
  }
}
