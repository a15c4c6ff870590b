/*
 * When the page wakes by itself (issue 20 item 1): only while a session is
 * active, and only when something shown changes. Visible, the countdown
 * changes once a second, on the second of the remaining time; hidden, only
 * the tab title changes, once a minute ("N min left", js/tab.js). Locked,
 * planning and review never wake the page: it redraws on a State only.
 */

import * as active from './active.js';
import { latestState, serverNowMs } from './store.js';
import { refreshTab } from './tab.js';

/** Margin after the boundary, ms, so Math.ceil already gives the new second. */
const kAfterBoundaryMs = 5;

let timer = 0;

/** Milliseconds left of the active session's deadline, or null when nothing counts down. */
function remainingMs() {
  const state = latestState();
  if (!state || state.runtime !== 'active' || !state.commitment) return null;
  const deadline = state.commitment.deadline;
  if (typeof deadline !== 'number') return null;
  return deadline - serverNowMs();
}

/** One wake-up: the countdown and bar when visible, the tab always; then the next. */
function wake() {
  timer = 0;
  if (!document.hidden) active.tick();
  refreshTab();
  scheduleTick();
}

/**
 * (Re)arms the one timer for the next change of what is shown: the next
 * whole second of the remaining time (visible) or whole minute (hidden).
 * Call after every State rendered; cheap.
 */
export function scheduleTick() {
  if (timer) window.clearTimeout(timer);
  timer = 0;
  const left = remainingMs();
  if (left === null || left <= 0) return;
  const unitMs = document.hidden ? 60000 : 1000;
  const delay = (left % unitMs) || unitMs;
  timer = window.setTimeout(wake, delay + kAfterBoundaryMs);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) active.tick();
  refreshTab();
  scheduleTick();
});
