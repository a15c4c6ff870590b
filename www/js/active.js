/*
 * The active view (DESIGN §4, §11): next action, success condition, a
 * countdown with a progress bar, the current window and evidence health, the
 * drift tiers, Complete and Abandon.
 */

import { byId, setHidden, setText } from './dom.js';
import { formatClock } from './format.js';
import { post } from './net.js';
import { latestState, serverNowMs } from './store.js';

const kHealthWords = {
  ok: 'OK · seeing your windows',
  stale: 'Stale · no recent window evidence',
  unavailable: 'Unavailable · no window source',
};

const kDriftWords = {
  ontask: 'On task',
  unknown: 'Not judged',
  judging: 'Checking…',
  drifting: 'Drifting',
};

/** Wires the freshly cloned active template. */
export function mount() {
  byId('complete').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    await post('/complete', {});
    if (button.isConnected) button.disabled = false;
  });
  const confirmBox = byId('abandon-confirm');
  byId('abandon').addEventListener('click', () => {
    confirmBox.hidden = false;
    byId('abandon-no').focus();
  });
  byId('abandon-no').addEventListener('click', () => {
    confirmBox.hidden = true;
    byId('abandon').focus();
  });
  confirmBox.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') byId('abandon-no').click();
  });
  byId('abandon-yes').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    await post('/abandon', {});
    if (button.isConnected) {
      button.disabled = false;
      confirmBox.hidden = true;
    }
  });
}

/** Partial update from a new State. */
export function update(state) {
  const commitment = state.commitment || {};
  setText('active-next-action', String(commitment.next_action || ''));
  setText('active-success', String(commitment.success_condition || ''));
  const allowed = Array.isArray(commitment.allowed_apps)
    ? commitment.allowed_apps.map(String).filter((app) => app !== '') : [];
  setText('active-allowed', allowed.length > 0
    ? `On task in: ${allowed.join(', ')}`
    : 'No allowed apps — nothing is judged on task');

  const evidence = state.evidence || {};
  const windowNow = evidence.current;
  setText('window-app', windowNow ? String(windowNow.app || 'unknown') : '—');
  setText('window-title', windowNow ? String(windowNow.title || '') : 'no window seen yet');

  const health = byId('health');
  const healthName = evidence.away ? 'away' : String(evidence.health || 'unavailable');
  health.dataset.health = healthName;
  setText('health', healthName === 'away' ? 'Away · not at the keyboard'
    : (kHealthWords[healthName] || healthName));

  const drift = state.drift || {};
  const driftStatus = byId('drift-status');
  driftStatus.dataset.status = String(drift.status || '');
  const words = kDriftWords[drift.status] || '';
  const reason = drift.reason ? String(drift.reason) : '';
  setText('drift-status', words && reason ? `${words} · ${reason}` : (words || reason || '—'));
  updateDriftTiers(drift);
  tick();
}

/**
 * The two drift tiers of the active view. DESIGN §4: status "drifting"
 * shows the hard banner (reason; Back to task, This is on task, End
 * session). DESIGN §5 / seed 000: a non-empty drift.nudge shows the soft
 * "Heads up" line with a Dismiss control only, dismissed client-side and
 * keyed on the message text. Both arrive with later issues; until then the
 * State carries neither and both containers stay hidden.
 */
function updateDriftTiers(drift) {
  void drift;
  setHidden(byId('drift-banner'), true);
  setHidden(byId('heads-up'), true);
}

/** Countdown and progress bar, computed locally from the last State; run every 250 ms. */
export function tick() {
  const current = latestState();
  if (!current || !current.commitment || !byId('countdown')) return;
  const commitment = current.commitment;
  const now = serverNowMs();
  let remainingMs;
  if (typeof commitment.deadline === 'number') {
    remainingMs = Math.max(0, commitment.deadline - now);
  } else {
    remainingMs = Math.max(0, (commitment.remaining_secs || 0) * 1000);
  }
  const remainingSecs = Math.ceil(remainingMs / 1000);
  const text = formatClock(remainingSecs);
  setText('countdown', text);
  setText('countdown-label', remainingSecs > 0 ? 'left' : "time's up");
  // Not mirrored into document.title: the X11 source would see the browser's
  // window title change every second and report each change as evidence.

  const totalMs = (commitment.timebox_secs || 0) * 1000;
  const startedAt = typeof commitment.started_at === 'number'
    ? commitment.started_at : now - (totalMs - remainingMs);
  const fraction = totalMs > 0 ? Math.min(1, Math.max(0, (now - startedAt) / totalMs)) : 0;
  const percent = Math.round(fraction * 1000) / 10;
  const progress = byId('progress');
  progress.setAttribute('aria-valuenow', String(Math.round(percent)));
  progress.firstElementChild.style.width = `${percent}%`;
}
