/*
 * The latest State the page accepted, and the server's clock. Every State
 * carries a version; only a newer one is accepted (the stream, /state and
 * POST answers can arrive out of order).
 */

/** Latest accepted State; null until the first one arrives. */
let current = null;
/** Version of the last accepted State; only newer ones are accepted. */
let lastVersion = -1;
/** Server clock minus browser clock, ms (from state.now). */
let clockOffsetMs = 0;

/**
 * Keeps `state` when it is a State newer than the last one; returns true
 * then, false for anything else (stale, or not a State).
 */
export function acceptNewer(state) {
  if (!state || typeof state.runtime !== 'string') return false;
  const version = typeof state.version === 'number' ? state.version : 0;
  if (version <= lastVersion) return false;
  lastVersion = version;
  current = state;
  if (typeof state.now === 'number') clockOffsetMs = state.now - Date.now();
  document.documentElement.dataset.stateVersion = String(version);
  return true;
}

/** Forgets the last version: a restarted daemon counts versions from scratch. */
export function forgetVersion() {
  lastVersion = -1;
}

/** The latest accepted State, or null. */
export function latestState() {
  return current;
}

/** Browser estimate of the server's clock, UTC ms. */
export function serverNowMs() {
  return Date.now() + clockOffsetMs;
}
