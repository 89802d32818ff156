// The new-game form: a game (GET /api/games), its options, the person's side and the AI's
// player spec (GET /api/players's default_ai), turned into the body of POST /api/sessions.

import { html, clear } from './svg.js';

const FALLBACK_AI = 'mcts:sims=400';

export class NewGameForm {
  // form: the #new-game <form>; games, players: the answers of GET /api/games and
  // GET /api/players; onSubmit({game, seats}) is called when the person starts a game.
  constructor(form, games, players, onSubmit) {
    this.form = form;
    this.games = games.games ?? [];
    this.defaultAi = players.default_ai ?? {};
    this.gameSelect = form.querySelector('#game-select');
    this.optionsBox = form.querySelector('#game-options');
    this.sideSelect = form.querySelector('#side-select');
    this.specInput = form.querySelector('#ai-spec');
    this.strengthSelect = form.querySelector('#strength-select');
    this.fillGames();
    this.gameSelect.addEventListener('change', () => this.gameChanged());
    this.strengthSelect.addEventListener('change', () => this.applyStrength());
    this.specInput.addEventListener('input', () => { this.strengthSelect.value = ''; });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      onSubmit(this.request());
    });
    this.gameChanged();
  }

  game() {
    return this.games.find((g) => g.name === this.gameSelect.value);
  }

  // Games grouped by family, in the server's order within each family.
  fillGames() {
    clear(this.gameSelect);
    const families = new Map();
    for (const game of this.games) {
      const family = game.family || 'other';
      if (!families.has(family)) families.set(family, []);
      families.get(family).push(game);
    }
    for (const [family, games] of families) {
      const group = html('optgroup', { label: family });
      for (const game of games) {
        // Games with simultaneous moves (Tron) are played too: both sides choose, then move.
        const note = game.board === false ? ' (text)' : '';
        group.append(html('option', { value: game.name, text: `${game.long_name || game.name}${note}` }));
      }
      this.gameSelect.append(group);
    }
    if (this.games.some((g) => g.name === 'connect4')) this.gameSelect.value = 'connect4';
  }

  gameChanged() {
    const game = this.game();
    if (!game) return;
    this.fillOptions(game);
    this.fillSides(game);
    this.specInput.value = this.defaultAi[game.name] ?? FALLBACK_AI;
    this.applyStrength();
  }

  fillOptions(game) {
    clear(this.optionsBox);
    for (const option of game.options ?? []) this.optionsBox.append(optionField(option));
    this.optionsBox.hidden = !(game.options ?? []).length;
  }

  // Sides: each seat for the person (first, second, …) or "watch" (AI against AI); in a
  // one-player game "I play" or "AI plays (watch)".
  fillSides(game) {
    const previous = this.sideSelect.value;
    clear(this.sideSelect);
    const players = Math.max(1, game.players ?? 2);
    const ordinals = ['first', 'second', 'third', 'fourth'];
    if (players === 1) {
      this.sideSelect.append(html('option', { value: 'first', text: 'I play' }));
      this.sideSelect.append(html('option', { value: 'watch', text: 'AI plays (watch)' }));
    } else {
      for (let seat = 0; seat < players; seat++) {
        const name = ordinals[seat] ?? `seat ${seat + 1}`;
        this.sideSelect.append(html('option', { value: name, text: `I play ${name}` }));
      }
      this.sideSelect.append(html('option', { value: 'watch', text: 'Watch: AI against AI' }));
    }
    if ([...this.sideSelect.options].some((o) => o.value === previous)) this.sideSelect.value = previous;
  }

  // Rewrites the spec's budget: "sims=N" or "seconds=S" (sims=0, which makes seconds count).
  applyStrength() {
    const choice = this.strengthSelect.value;
    if (!choice) return;
    const [key, value] = choice.split('=');
    this.specInput.value = withBudget(this.specInput.value.trim() || FALLBACK_AI, key, value);
  }

  // {game: "hex:size=5", seats: ["human", "mcts:sims=400"]}
  request() {
    const game = this.game();
    const values = [];
    for (const option of game.options ?? []) {
      const value = readOption(this.optionsBox, option);
      if (value !== null && value !== String(option.default)) values.push(`${optionKey(option)}=${value}`);
    }
    const spec = this.specInput.value.trim() || FALLBACK_AI;
    const players = Math.max(1, game.players ?? 2);
    const side = this.sideSelect.value;
    const humanSeat = side === 'watch' ? -1 : ['first', 'second', 'third', 'fourth'].indexOf(side);
    const seats = Array.from({ length: players }, (_, seat) => (seat === humanSeat ? 'human' : spec));
    return { game: values.length ? `${game.name}:${values.join(',')}` : game.name, seats };
  }
}

// The contract names an option's key `key`; `polyzero games --json` calls it `name`.
const optionKey = (option) => option.key ?? option.name;

// Option types drawn as number fields: "int", and "number" or "double" for real numbers.
const NUMBER_TYPES = ['int', 'number', 'double', 'float'];

const isTrue = (value) => value === true || value === 'true' || value === 1 || value === '1';

function optionField(option) {
  const key = optionKey(option);
  const id = `option-${key}`;
  const label = html('label', { for: id, text: key.replaceAll('_', ' ') });
  const help = option.help ? html('small', { class: 'help', text: option.help }) : null;
  let input;
  if (option.type === 'bool') {
    input = html('input', { id, type: 'checkbox', name: key });
    input.checked = isTrue(option.default);
    return html('div', { class: 'option option-bool', title: option.help ?? '' }, [input, label, help]);
  }
  if (option.choices?.length) {
    input = html('select', { id, name: key });
    for (const choice of option.choices) input.append(html('option', { value: choice, text: choice }));
    input.value = String(option.default ?? option.choices[0]);
  } else if (NUMBER_TYPES.includes(option.type)) {
    input = html('input', {
      id, name: key, type: 'number', required: true,
      step: option.type === 'int' ? 1 : 'any',
      min: option.min ?? null, max: option.max ?? null,
    });
    input.value = String(option.default ?? '');
  } else {
    input = html('input', { id, name: key, type: 'text' });
    input.value = String(option.default ?? '');
  }
  return html('div', { class: 'option', title: option.help ?? '' }, [label, input, help]);
}

// An option's value as the game spec writes it, null when the field is empty.
function readOption(box, option) {
  const input = box.querySelector(`[name="${CSS.escape(optionKey(option))}"]`);
  if (!input) return null;
  if (option.type === 'bool') return input.checked ? 'true' : 'false';
  const value = input.value.trim();
  return value === '' ? null : value;
}

// withBudget("mcts:model=a.pt,sims=400", "seconds", "5") → "mcts:model=a.pt,sims=0,seconds=5".
// Only search players (mcts, uct) have a budget; other specs are returned unchanged.
export function withBudget(spec, key, value) {
  const [kind, rest = ''] = splitOnce(spec, ':');
  if (!['mcts', 'uct'].includes(kind)) return spec;
  const params = rest.split(',').filter((p) => p && !/^(sims|seconds)=/.test(p));
  params.push(...(key === 'seconds' ? ['sims=0', `seconds=${value}`] : [`sims=${value}`]));
  return `${kind}:${params.join(',')}`;
}

function splitOnce(text, separator) {
  const at = text.indexOf(separator);
  return at < 0 ? [text] : [text.slice(0, at), text.slice(at + 1)];
}
