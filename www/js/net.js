/*
 * The page's two ways to the daemon (docs/DESIGN.md §10): POSTs as JSON with the
 * page's token, and one EventSource per browser (held by a SharedWorker,
 * js/stream-worker.js; a tab's own where SharedWorker is missing) that brings
 * the whole State on every change. Every State received goes to the handler
 * set with onState(); the state of the connection ("connecting", "open",
 * "lost") to the one set with onConnection(), so the page can say at once
 * that it lost the daemon. Once the daemon's token was rotated (`antidrift
 * token --rotate`: an `event: token` on the stream, or a POST refused for
 * its token) the state is "rotated" for good: this page's token is stale
 * and only a reload brings the new one (issue 19 item 7).
 */

import { clearError, errorElement, showError } from './dom.js';

const tokenMeta = document.querySelector('meta[name="antidrift-token"]');
const kToken = tokenMeta ? tokenMeta.getAttribute('content') : '';
const kSseRetryMs = 2000;

/** What a button says when its request never reached the daemon. */
export const kUnreachable =
  'Lost contact with AntiDrift, so this did not reach it. Try again once it is back.';

let stateHandler = () => {};
let connectionHandler = () => {};
let eventSource = null;
/** The daemon no longer accepts this page's token (it was rotated). */
let tokenStale = false;

/** What the stream itself last did ("connecting", "open", "lost"), stale token or not. */
let streamStatus = 'connecting';

/** What a button says when the daemon refused this page's token: it was rotated. */
export const kKeyChanged = 'AntiDrift’s key changed; reload this page.';

/**
 * Tells the connection handler `status`, or "rotated" once the token is
 * stale; its second argument is always the stream's own status, since a
 * stream keeps bringing States after a rotation (it carries no token).
 */
function tell(status) {
  if (status !== 'rotated') streamStatus = status;
  connectionHandler(tokenStale ? 'rotated' : status, streamStatus);
}

/** This page's token was rotated away: say so until the page is reloaded. */
function markTokenStale() {
  tokenStale = true;
  tell('rotated');
}

/** Sets the function every State from the daemon (stream, /state, POST answer) goes to. */
export function onState(handler) {
  stateHandler = handler;
}

/**
 * Sets the function told about the connection: "connecting" before the
 * stream first opens, "open" when it (re)opens or delivers a State, "lost"
 * when it fails, the daemon says goodbye or a request cannot reach it;
 * "rotated" from the token's rotation on. Its second argument is the
 * stream's own status ("connecting", "open", "lost") even then.
 */
export function onConnection(handler) {
  connectionHandler = handler;
}

/**
 * POSTs `body` as JSON with the page's token. A State in the answer is
 * handed on at once (the event stream brings the same State shortly after).
 * On failure the {"error"} sentence goes to `onError` (default: the mounted
 * view's error line) and null is returned.
 */
export async function post(path, body, onError) {
  return send('POST', path, body, onError);
}

/**
 * DELETEs `path` (a query names what) with `{}` and the page's token, like
 * post(): the JSON answer, or null after reporting the {"error"} sentence.
 */
export async function remove(path, onError) {
  return send('DELETE', path, {}, onError);
}

/** One JSON request with the page's token (post and remove). */
async function send(method, path, body, onError) {
  const errorLine = errorElement();
  const report = onError || ((message) => showError(message, errorLine));
  if (!onError) clearError(errorLine);
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: { 'Content-Type': 'application/json', 'X-AntiDrift-Token': kToken },
      body: JSON.stringify(body || {}),
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch (error) {
    tell('lost');
    report(kUnreachable);
    return null;
  }
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const message = data && typeof data.error === 'string' && data.error
      ? data.error
      : `The daemon refused this (HTTP ${response.status}).`;
    // The stream's notice may have been missed (it was reconnecting).
    // The daemon's sentence is for scripts ("the X-AntiDrift-Token header
    // is not valid …"); a person is told what happened and what to do.
    if (response.status === 403 && message.includes('X-AntiDrift-Token')) {
      markTokenStale();
      report(kKeyChanged);
      return null;
    }
    report(message);
    return null;
  }
  if (data && typeof data.runtime === 'string') stateHandler(data);
  return data || {};
}

/** GETs /state once and hands it on; a failure is left to the event stream to report. */
export async function loadState() {
  try {
    const response = await fetch('/state', { cache: 'no-store' });
    if (response.ok) stateHandler(await response.json());
  } catch (error) {
    // The event stream reports the connection problem.
  }
}

/** The State text of a `state` event, parsed and handed on (nothing if it does not parse). */
function receiveState(data) {
  let state;
  try {
    state = JSON.parse(data);
  } catch (error) {
    return;
  }
  tell('open');
  stateHandler(state);
}

/**
 * Joins the browser's one shared event stream, held by js/stream-worker.js
 * (issue 8 item 3: six connections per host, one EventSource per tab would
 * lock out the seventh tab). Throws if the worker cannot be started.
 */
function connectShared(onOpen) {
  const worker = new SharedWorker('/js/stream-worker.js', { name: 'antidrift-stream' });
  worker.port.addEventListener('message', (message) => {
    const data = message.data || {};
    if (data.type === 'open') {
      onOpen();
      tell('open');
      loadState();  // joined an open stream: its last State is not replayed
    } else if (data.type === 'state') {
      receiveState(data.data);
    } else if (data.type === 'lost') {
      tell('lost');
    } else if (data.type === 'token') {
      markTokenStale();
    }
  });
  // The worker could not start (its script failed to load): a stream of our own.
  worker.addEventListener('error', () => connectOwn(onOpen));
  worker.port.start();
  window.addEventListener('pagehide', () => worker.port.postMessage({ type: 'close' }));
  // Back from the back/forward cache: join the stream again, catch up.
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    worker.port.postMessage({ type: 'join' });
    loadState();
  });
}

/**
 * Opens the event stream: the browser's shared one when SharedWorker
 * exists, else one of its own (closing an earlier one). `onOpen` runs when
 * it (re)connects, before its first State. The browser reconnects by itself
 * (every 2 s, the stream's `retry`); when it gives up (e.g. 503 with too
 * many tabs) this retries after 2 s.
 */
export function connect({ onOpen }) {
  if (typeof SharedWorker === 'function') {
    try {
      connectShared(onOpen);
      return;
    } catch (error) {
      // A worker refused (e.g. by policy): a stream of this tab's own.
    }
  }
  connectOwn(onOpen);
}

/** Opens this tab's own event stream (closing an earlier one). */
function connectOwn(onOpen) {
  if (eventSource) eventSource.close();
  eventSource = new EventSource('/events');
  eventSource.addEventListener('open', () => {
    onOpen();
    tell('open');
  });
  eventSource.addEventListener('state', (event) => receiveState(event.data));
  // The daemon is shutting down: say so now, not when the socket closes.
  eventSource.addEventListener('bye', () => tell('lost'));
  eventSource.addEventListener('token', markTokenStale);
  eventSource.addEventListener('error', () => {
    tell('lost');
    if (eventSource.readyState === EventSource.CLOSED) {
      window.setTimeout(() => connectOwn(onOpen), kSseRetryMs);
    }
  });
}
