// The JSON API of `polyzero serve` (server/README.md) as functions. Every function returns
// the answer's JSON, or throws an ApiError carrying the server's {"error": ...} text.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;  // HTTP status, 0 when the server could not be reached
  }
}

async function request(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(`cannot reach the server (${error.message})`, 0);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported below
  }
  if (!response.ok) {
    const reason = data && typeof data.error === 'string' ? data.error : `HTTP ${response.status}`;
    throw new ApiError(reason, response.status);
  }
  if (data === null) throw new ApiError(`${method} ${path}: the answer is not JSON`, response.status);
  return data;
}

const sessionPath = (id) => `/api/sessions/${encodeURIComponent(id)}`;

export const listGames = () => request('GET', '/api/games');
export const listPlayers = () => request('GET', '/api/players');
export const createSession = (game, seats) => request('POST', '/api/sessions', { game, seats });
export const getSession = (id) => request('GET', sessionPath(id));
export const playMove = (id, move) => request('POST', `${sessionPath(id)}/move`, { move });
export const askAi = (id) => request('POST', `${sessionPath(id)}/ai`, {});
export const undo = (id) => request('POST', `${sessionPath(id)}/undo`, {});
export const resign = (id, seat) =>
  request('POST', `${sessionPath(id)}/resign`, seat === undefined ? {} : { seat });
export const getRecord = (id) => request('GET', `${sessionPath(id)}/record`);

// Subscribes to a session's server-sent events: `state` (the session state after every
// change), `thinking` (an AI search in progress) and `ai_error` ({"error": ...}: the AI
// could not move; an `event: error` with data is taken the same way). EventSource reconnects
// by itself after a network error or a server restart; onOpen runs on every
// (re)connection, onError(closed) when the connection is lost. Returns a function that
// closes the stream.
export function subscribe(id, { onState, onThinking, onServerError, onOpen, onError }) {
  const source = new EventSource(`${sessionPath(id)}/events`);
  const parsed = (handler) => (event) => {
    let data;
    try {
      data = JSON.parse(event.data);
    } catch {
      return;  // a malformed event is ignored; the next state event resynchronises
    }
    handler(data);
  };
  source.addEventListener('state', parsed(onState));
  source.addEventListener('thinking', parsed(onThinking));
  source.addEventListener('ai_error', parsed((data) => onServerError?.(data)));
  source.addEventListener('open', () => onOpen?.());
  // The same event name carries both the server's `event: error` messages (a MessageEvent
  // with data) and EventSource's own connection errors (a plain Event).
  source.addEventListener('error', (event) => {
    if (typeof event.data === 'string') parsed((data) => onServerError?.(data))(event);
    else onError?.(source.readyState === EventSource.CLOSED);
  });
  return () => source.close();
}
