// The server's two doors: POST /api/v1/<method> for operations, one WebSocket for events.

export class ApiError extends Error {
  constructor(message, status = 0) {
    super(message);
    this.status = status;
  }
}

let onSignedOut = () => {};
let signedOut = false;

/** Called once when any request answers 401: the login cookie is gone. */
export function setSignedOutHandler(fn) { onSignedOut = fn; }

function signOut() {
  if (signedOut) return;
  signedOut = true;
  onSignedOut();
}

/** Runs one control operation (Protocol.md §13) and returns its `result`. */
export async function api(method, params = {}, { timeout = 0, keepalive = false } = {}) {
  if (signedOut) throw new ApiError('Signed out', 401);
  let res;
  try {
    res = await fetch(`/api/v1/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(params),
      credentials: 'same-origin',
      cache: 'no-store',
      keepalive,
      signal: timeout ? AbortSignal.timeout(timeout) : undefined,
    });
  } catch {
    throw new ApiError('Cannot reach Confab. Is the node still running?');
  }
  if (res.status === 401) {
    signOut();
    throw new ApiError('Signed out', 401);
  }
  let body;
  try {
    body = await res.json();
  } catch {
    throw new ApiError(`The server answered ${res.status} ${res.statusText || ''}`.trim(), res.status);
  }
  if (!body || body.ok !== true) {
    throw new ApiError((body && body.error) || `The server answered ${res.status}`, res.status);
  }
  return body.result;
}

/**
 * The event stream. `onReady(again)` runs when the subscription is confirmed (the first
 * frame), with `again` true after a reconnection so the caller can catch up on what it missed.
 */
export class EventStream {
  constructor({ onEvent, onReady, onDown }) {
    this.onEvent = onEvent;
    this.onReady = onReady;
    this.onDown = onDown;
    this.delay = 500;
    this.everReady = false;
    this.stopped = false;
  }

  start() {
    if (this.stopped || signedOut) return;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try {
      ws = new WebSocket(`${scheme}//${location.host}/api/v1/events`);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    let subscribed = false;
    ws.onmessage = (e) => {
      let data;
      try { data = JSON.parse(e.data); } catch { return; }
      if (!subscribed) {
        if (data && data.ok === true) {
          subscribed = true;
          this.delay = 500;
          const again = this.everReady;
          this.everReady = true;
          this.onReady(again);
        } else {
          ws.close();
        }
        return;
      }
      if (data && typeof data.event === 'string') this.onEvent(data);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.onDown();
      this.retry();
    };
  }

  // 0.5 s doubling to 5 s; a closed socket may mean a signed-out browser, which
  // only an HTTP answer can tell, so ask once before each try.
  retry() {
    if (this.stopped || signedOut) return;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, 5000);
    setTimeout(async () => {
      try { await api('status', {}, { timeout: 4000 }); } catch { /* a 401 stops everything via signOut */ }
      this.start();
    }, wait);
  }

  stop() {
    this.stopped = true;
    if (this.ws) this.ws.close();
  }
}
