/*
 * When the page wakes by itself (issue 20 item 1): only while a session is
 * active, and only when something shown changes. The countdown shows whole
 * minutes ("12 min") and wakes once a minute, as the status bars do, in
 * front of the person or behind another window alike: on this machine's
 * software-rendered chromium one frame a second alone costs 0.3-0.4 % of a
 * core, seconds drawn by the compositor alone 0.22-0.34 %
 * (docs/PERFORMANCE.md "Status bars and the page at rest"). It shows m:ss,
 * changing once a second on the second of the remaining time, in the last
 * minute and for a moment after the person points at or focuses the timer
 * (js/active.js), and once a second while a page waits for the judge
 * (drift.judge_dwell_s, 3 s by default) so "(in N s)" counts down. Hidden, only the tab title
 * changes, once a minute ("N min left", js/tab.js). Locked, planning and
 * review never wake the page: it redraws on a State only.
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
 * whole second of the remaining time while the countdown shows seconds
 * (the last minute, a peek; or the peek's end, if sooner), else the next
 * whole minute (the countdown's minutes and the tab title). Call after
 * every State rendered; cheap.
 */
export function scheduleTick() {
  if (timer) window.clearTimeout(timer);
  timer = 0;
  const left = remainingMs();
  if (left === null || left <= 0) return;
  let delay;
  if (!document.hidden && active.showsSeconds(left)) {
    delay = (left % 1000) || 1000;
    // The peek's end, when sooner, brings back the minutes.
    const peekLeft = active.peekLeftMs();
    if (peekLeft > 0 && peekLeft < delay) delay = peekLeft;
  } else {
    delay = (left % 60000) || 60000;
  }
  // A page waiting for the judge counts its seconds down ("in 3 s"), only
  // for that short wait.
  const judgeLeft = document.hidden ? null : active.judgeLeftMs();
  if (judgeLeft !== null) delay = Math.min(delay, (judgeLeft % 1000) || 1000);
  timer = window.setTimeout(wake, delay + kAfterBoundaryMs);
}

/** Redraws what a change of visibility or a peek at the seconds changes, and re-arms the timer. */
function onAttentionChange() {
  if (!document.hidden) active.tick();
  refreshTab();
  scheduleTick();
}

document.addEventListener('visibilitychange', onAttentionChange);
active.onPeek(onAttentionChange);
