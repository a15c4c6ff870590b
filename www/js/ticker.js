/*
 * When the page wakes by itself (issue 20 item 1): only while a session is
 * active, and only when something shown changes. While the person looks at
 * the page (its window has focus) and in the last minute, the countdown shows
 * seconds and changes once a second, on the second of the remaining time.
 * Visible but behind another window — the page kept open all day beside the
 * work — it shows whole minutes ("12 min") and wakes once a minute, as the
 * status bars do: on this machine's software-rendered chromium one frame a
 * second alone costs about 0.4 % of a core (docs/PERFORMANCE.md "The page and
 * the bars"). Hidden, only the tab title changes, once a minute ("N min
 * left", js/tab.js). Locked, planning and review never wake the page: it
 * redraws on a State only.
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

/** The last minute always counts down in seconds, ms (as js/active.js's tick). */
const kSecondsBelowMs = 60000;

/** One wake-up: the countdown and bar when visible, the tab always; then the next. */
function wake() {
  timer = 0;
  if (!document.hidden) active.tick();
  refreshTab();
  scheduleTick();
}

/**
 * (Re)arms the one timer for the next change of what is shown: the next
 * whole second of the remaining time (visible and focused, or the last
 * minute) or whole minute (hidden, or behind another window). Call after
 * every State rendered; cheap.
 */
export function scheduleTick() {
  if (timer) window.clearTimeout(timer);
  timer = 0;
  const left = remainingMs();
  if (left === null || left <= 0) return;
  const unitMs = !document.hidden && (document.hasFocus() || left <= kSecondsBelowMs) ? 1000 : 60000;
  const delay = (left % unitMs) || unitMs;
  timer = window.setTimeout(wake, delay + kAfterBoundaryMs);
}

/** Redraws what a change of visibility or focus changes, and re-arms the timer. */
function onAttentionChange() {
  if (!document.hidden) active.tick();
  refreshTab();
  scheduleTick();
}

document.addEventListener('visibilitychange', onAttentionChange);
window.addEventListener('focus', onAttentionChange);
window.addEventListener('blur', onAttentionChange);
