/*
 * The active view (docs/DESIGN.md §4, §11): next action, success condition, a
 * countdown with a progress bar, +5 / +15 min (POST /extend, issue 7), the
 * current window and evidence health, the drift tiers, Complete and Abandon,
 * and the end signals (notifications, "Sound at the end").
 */

import { byId, setHidden, setText } from './dom.js';
import { allowedAppsWarning, formatClock, formatMinutes } from './format.js';
import { post, remove } from './net.js';
import { mountNotifyControl, notifyDrift, setDaemonNotify } from './notify.js';
import { mountSoundToggle } from './sound.js';
import { latestState, serverNowMs } from './store.js';
import { dismissedHeadsUp, keepDismissedHeadsUp } from './tab.js';
import { fetchVerdicts } from './verdicts.js';

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

/** The daemon's reason for a window that says nothing (empty, lock screen, away): one calm state. */
const kWindowUnknown = 'window unknown';
/** The daemon's reason while AntiDrift's own page is in front: neutral time (issue 17 item 4). */
const kOwnPage = 'this is AntiDrift';

/** The last State rendered was drifting (or the view opened on a drift): no new notification. */
let driftAnnounced = false;
/**
 * Heads-up message the person dismissed; it shows again once the message
 * changes or returns. Kept by js/tab.js in sessionStorage, so a reload of
 * the tab does not bring it back.
 */
let dismissedNudge = '';

/** Wires the freshly cloned active template. */
export function mount(state) {
  marksKey = ''; // a fresh view: the marks list is drawn again
  confirmed = null;
  // A page opened while already drifting shows the banner but raises no notification.
  driftAnnounced = Boolean(state && state.drift && state.drift.status === 'drifting');
  dismissedNudge = dismissedHeadsUp();
  peekUntil = 0;
  wirePeek();
  wireDriftTiers();
  mountNotifyControl();
  mountSoundToggle('sound-at-end');
  for (const id of ['extend-5', 'extend-15']) {
    byId(id).addEventListener('click', async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      await post('/extend', { minutes: Number(button.dataset.minutes) });
      if (button.isConnected) button.disabled = false;
    });
  }
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
    : allowedAppsWarning(Boolean(state.ai && state.ai.available)));
  updateMarks(commitment);

  const evidence = state.evidence || {};
  const windowNow = evidence.current;
  setText('window-app', windowNow ? String(windowNow.app || 'unknown') : '—');
  setText('window-title', windowNow ? String(windowNow.title || '') : 'no window seen yet');

  const health = byId('health');
  const healthName = evidence.away ? 'away' : String(evidence.health || 'unavailable');
  health.dataset.health = healthName;
  // Which source is live (x11, sway, i3, http, activitywatch): "OK · seeing your windows · sway".
  const source = evidence.source ? ` · ${String(evidence.source)}` : '';
  setText('health', healthName === 'away' ? 'Away · not at the keyboard'
    : (kHealthWords[healthName] || healthName) + source);

  const drift = state.drift || {};
  const driftStatus = byId('drift-status');
  showDriftStatus(drift);
  setDaemonNotify(state.notify);
  updateDriftBanner(drift, windowNow ? String(windowNow.title || '') : '');
  updateRemembered(drift);
  // "On task" beside a heads-up must not read as all clear (issue 17 item 4).
  const headsUp = String(updateHeadsUp(drift));
  if (driftStatus.dataset.headsUp !== headsUp) driftStatus.dataset.headsUp = headsUp;
  const extendedSecs = Number(commitment.extended_secs) || 0;
  setText('extended', extendedSecs > 0 ? `· extended by ${formatMinutes(extendedSecs)}` : '');
  setHidden(byId('extended'), extendedSecs <= 0);
  tick();
}

/**
 * Milliseconds until the judge is asked about the window in front (State
 * drift.judge_at), or null when nothing waits: the ticker wakes on each of
 * its seconds so "(in N s)" counts down.
 */
export function judgeLeftMs() {
  const state = latestState();
  const drift = state && state.drift;
  if (!drift || drift.status !== 'judging' || typeof drift.judge_at !== 'number') return null;
  const left = drift.judge_at - serverNowMs();
  return left > 0 ? left : null;
}

/** The Focus line from State.drift; "(in N s)" while a page waits for the judge. */
function showDriftStatus(drift) {
  const driftStatus = byId('drift-status');
  if (!driftStatus) return;
  const reason = drift.reason ? String(drift.reason) : '';
  if (drift.status === 'unknown' && reason === kWindowUnknown) {
    driftStatus.dataset.status = 'window-unknown';
    setText('drift-status', 'Window unknown');
  } else if (drift.status === 'unknown' && reason === kOwnPage) {
    driftStatus.dataset.status = 'neutral';
    setText('drift-status', 'Neutral · this is AntiDrift, not counted either way');
  } else {
    driftStatus.dataset.status = String(drift.status || '');
    const words = kDriftWords[drift.status] || '';
    // A page waiting for the judge says when it will be judged (issue 16 item 2).
    let when = '';
    if (drift.status === 'judging' && typeof drift.judge_at === 'number') {
      const secs = Math.max(0, Math.ceil((drift.judge_at - serverNowMs()) / 1000));
      when = secs > 0 ? ` (in ${secs} s)` : '';
    }
    setText('drift-status',
      words && reason ? `${words} · ${reason}${when}` : (words || reason || '—'));
  }
}

/**
 * The remembered-verdict line (issue 17, re-walk A; docs/API.md "Remembered
 * verdicts"): a mark the person just made ("This is on task", "Back to task")
 * is remembered for later sessions whose work shares words with this one,
 * and a verdict remembered from such a session may decide now. Either way the
 * line says so and offers Forget (DELETE /verdicts?key=).
 * `confirmed`: {key, text, app, reason} of the last mark's verdict and the
 * Focus line it was made on, or null once another window is in front.
 */
let confirmed = null;
/** Keys forgotten from this page: the session's cache may still show them. */
const forgottenKeys = new Set();

/** Shows the remembered line for `state.drift` and the last confirmed mark. */
function updateRemembered(drift) {
  const stateKey = typeof drift.memory_key === 'string' ? drift.memory_key : '';
  let key = '';
  let text = '';
  if (stateKey !== '') {
    key = stateKey;
    text = forgottenKeys.has(key)
      ? 'Forgotten: later sessions will not reuse this verdict.'
      : 'This verdict is remembered from an earlier session whose work shares words with this one.';
  } else if (confirmed && (String(drift.app || '') !== confirmed.app
      || String(drift.reason || '') !== confirmed.reason)) {
    confirmed = null; // another window is in front: "This page" would name it (re-walk)
  }
  if (stateKey === '' && confirmed) {
    key = confirmed.key;
    text = forgottenKeys.has(key)
      ? 'Forgotten: it counts for this session only.'
      : confirmed.text;
  }
  setText('remembered-text', text);
  const forget = byId('remembered-forget');
  if (forget) forget.dataset.key = key;
  setHidden(forget, key === '' || forgottenKeys.has(key));
  setHidden(byId('remembered'), text === '');
}

/**
 * After a mark (`onTask` true: This is on task; false: Back to task) made at
 * `sinceMs` (server UTC ms): finds the person's verdict the daemon remembered
 * for it (GET /verdicts, most recently used first) and confirms it with Forget.
 * Nothing is shown when nothing was remembered (drift.memory off).
 */
async function confirmRemembered(onTask, sinceMs, markedDrift) {
  const data = await fetchVerdicts();
  const verdicts = data && Array.isArray(data.verdicts) ? data.verdicts : [];
  const verdict = verdicts.find((item) => item && item.source === 'you' && item.on_task === onTask
    && Number(item.last_used) >= sinceMs);
  if (!verdict || !byId('remembered')) return;
  const what = verdict.kind === 'page' ? 'This page' : String(verdict.label || 'This');
  forgottenKeys.delete(String(verdict.key));
  confirmed = {
    key: String(verdict.key),
    // The window it is about: the line goes once the Focus line speaks of another.
    app: String(markedDrift.app || ''),
    reason: String(markedDrift.reason || ''),
    text: `${what} ${onTask ? 'is on task' : 'is drift'} this session, and is remembered `
      + 'for later sessions whose work shares words with this one.',
  };
  updateRemembered((latestState() || {}).drift || {});
}

/** The key of the marks list last drawn: it is redrawn only when it changed. */
let marksKey = '';

/**
 * The pages and sites marked on task this session (issue 17 item 4), each
 * with an Undo button; hidden when there are none.
 */
function updateMarks(commitment) {
  const marks = [];
  for (const title of Array.isArray(commitment.allowed_titles) ? commitment.allowed_titles : []) {
    marks.push({ kind: 'title', app: String(title.app || ''), mark: String(title.title || ''),
      text: `this page: “${String(title.title || '')}” (${String(title.app || '')})` });
  }
  for (const site of Array.isArray(commitment.allowed_sites) ? commitment.allowed_sites : []) {
    marks.push({ kind: 'site', app: String(site.app || ''), mark: String(site.site || ''),
      text: `all of ${String(site.site || '')} this session (${String(site.app || '')})` });
  }
  const key = JSON.stringify(marks);
  if (key === marksKey) return;
  marksKey = key;
  const list = byId('active-marks-list');
  list.replaceChildren(...marks.map((item) => {
    const row = document.createElement('li');
    const label = document.createElement('span');
    label.className = 'mark-text';
    label.textContent = item.text;
    const undo = document.createElement('button');
    undo.type = 'button';
    undo.className = 'quiet small';
    undo.textContent = 'Undo';
    undo.dataset.kind = item.kind;
    undo.dataset.app = item.app;
    undo.dataset.mark = item.mark;
    undo.setAttribute('aria-label', `Undo: ${item.text}`);
    row.append(label, ' ', undo);
    return row;
  }));
  setHidden(byId('active-marks'), marks.length === 0);
}

/** The banner's three actions (docs/DESIGN.md §4) and the heads-up's Dismiss. */
function wireDriftTiers() {
  const action = (id, route) => {
    byId(id).addEventListener('click', async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      await post(route, {});
      if (button.isConnected) button.disabled = false;
    });
  };
  // A mark is remembered across sessions: confirmed with Forget (issue 17, re-walk A).
  const mark = (id, route, onTask) => {
    byId(id).addEventListener('click', async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      const since = serverNowMs() - 1000;
      const answer = await post(route, {});
      if (button.isConnected) button.disabled = false;
      if (answer) await confirmRemembered(onTask, since, answer.drift || {});
    });
  };
  mark('drift-refocus', '/drift/refocus', false);
  mark('drift-ontask', '/drift/ontask', true);
  byId('remembered-forget').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    const key = button.dataset.key || '';
    if (key === '') return;
    button.disabled = true;
    const answer = await remove(`/verdicts?key=${encodeURIComponent(key)}`);
    if (button.isConnected) button.disabled = false;
    if (answer) forgottenKeys.add(key);
    updateRemembered((latestState() || {}).drift || {});
  });
  // "All of <site> this session" (issue 17 item 4).
  byId('drift-ontask-site').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    await post('/drift/ontask', { scope: 'site' });
    if (button.isConnected) button.disabled = false;
  });
  // Undo one mark from the list beside "On task in:" (one delegated listener).
  byId('active-marks-list').addEventListener('click', async (event) => {
    const button = event.target.closest('button[data-app]');
    if (!button) return;
    button.disabled = true;
    const body = { app: button.dataset.app };
    body[button.dataset.kind] = button.dataset.mark;
    await post('/drift/ontask/undo', body);
    if (button.isConnected) button.disabled = false;
  });
  action('drift-end', '/abandon');
  byId('heads-up-dismiss').addEventListener('click', () => {
    dismissedNudge = byId('heads-up-text').textContent;
    keepDismissedHeadsUp(dismissedNudge);
    setHidden(byId('heads-up'), true);
    byId('drift-status').dataset.headsUp = 'false';
  });
}

/**
 * A site key as a person knows it (issue 17, re-walk D): a domain
 * ("youtube.com") as it is; a bare name ("youtube", the title's site suffix)
 * as the window's title or the reason writes it ("YouTube"), else with a
 * capital first letter. Pure.
 */
export function siteName(site, texts = []) {
  if (site.includes('.')) return site;
  const escaped = site.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`(^|[^\\p{L}\\p{N}])(${escaped})(?![\\p{L}\\p{N}])`, 'iu');
  for (const text of texts) {
    const match = typeof text === 'string' ? pattern.exec(text) : null;
    if (match) return match[2];
  }
  return site.charAt(0).toUpperCase() + site.slice(1);
}

/**
 * The hard tier (docs/DESIGN.md §4): status "drifting" shows the banner with the
 * daemon's reason verbatim and three actions. When it appears, focus moves
 * to it (keyboard users land on its buttons); a new drift after the view
 * mounted also raises a Web Notification when the person allowed them.
 */
function updateDriftBanner(drift, windowTitle = '') {
  const banner = byId('drift-banner');
  const drifting = drift.status === 'drifting';
  const reason = drift.reason ? String(drift.reason) : '';
  setText('drift-reason', reason);
  setText('drift-app', drift.app ? ` · ${String(drift.app)}` : '');
  // A hard rule (drift.blocked_*) is the config's to lift: no "This is on task".
  setHidden(byId('drift-ontask'), drift.blocked === true);
  // The choice (issue 17 item 4): this page, or all of the site the daemon derived.
  const site = drift.site ? String(drift.site) : '';
  setText('drift-ontask', site ? 'This page is on task' : 'This is on task');
  const siteWords = site ? siteName(site, [drift.reason, windowTitle]) : '';
  setText('drift-ontask-site', site ? `All of ${siteWords} this session` : '');
  setHidden(byId('drift-ontask-site'), drift.blocked === true || site === '');
  const appeared = drifting && banner.hidden;
  setHidden(banner, !drifting);
  if (appeared) banner.focus();
  if (drifting && !driftAnnounced) notifyDrift(reason);
  driftAnnounced = drifting;
}

/**
 * The soft tier (docs/DESIGN.md §5, seed 000 "Surfacing"): when not drifting and
 * drift.nudge is non-empty, a muted "Heads up" line with Dismiss only.
 * Dismissal is client-side and keyed on the message text, kept in
 * sessionStorage over a reload: a different message, or the same one after
 * it cleared, shows again. Returns whether the heads-up shows.
 */
function updateHeadsUp(drift) {
  const nudge = typeof drift.nudge === 'string' ? drift.nudge.trim() : '';
  if (dismissedNudge && nudge !== dismissedNudge) {
    dismissedNudge = '';
    keepDismissedHeadsUp('');
  }
  const show = drift.status !== 'drifting' && nudge !== '' && nudge !== dismissedNudge;
  if (show) setText('heads-up-text', nudge);
  setHidden(byId('heads-up'), !show);
  return show;
}

/**
 * How long the countdown shows seconds after the person points at, focuses
 * or clicks it, ms (issue 20 item 1): "for a moment", so a pointer left
 * resting on the timer does not bring back a frame a second for good.
 */
const kPeekMs = 10000;
/** The last minute always counts down in seconds, ms (as the status bars do). */
const kSecondsBelowMs = 60000;
/** performance.now() until which the countdown shows seconds; 0 when it does not. */
let peekUntil = 0;
/** Called when a peek starts (js/ticker.js re-arms its timer for seconds). */
let peekListener = () => {};

/** Registers the function called when the person asks for the seconds. */
export function onPeek(listener) {
  peekListener = listener;
}

/**
 * Whether the countdown shows m:ss for `remainingMs` left: in the last minute,
 * and for a moment after the person pointed at or focused the timer; whole
 * minutes otherwise (issue 20 item 1: a frame a second costs this
 * software-rendered chromium 0.3-0.4 % of a core, docs/PERFORMANCE.md).
 */
export function showsSeconds(remainingMs) {
  return remainingMs <= kSecondsBelowMs || performance.now() < peekUntil;
}

/** Milliseconds left of the current peek at the seconds, 0 when none runs. */
export function peekLeftMs() {
  return Math.max(0, peekUntil - performance.now());
}

/** The timer shows m:ss for kPeekMs when pointed at, focused or clicked (touch). */
function wirePeek() {
  const peek = () => {
    peekUntil = performance.now() + kPeekMs;
    tick();
    peekListener();
  };
  const countdown = byId('countdown');
  for (const type of ['pointerenter', 'focus', 'click']) countdown.addEventListener(type, peek);
}

/**
 * Countdown and progress bar, computed locally from the last State;
 * js/ticker.js runs it on each second while seconds show, else on each
 * minute: whole minutes ("12 min") above the last minute, m:ss in it and
 * for a moment when the person points at or focuses the timer (issue 20
 * item 1).
 */
export function tick() {
  const current = latestState();
  if (!current || !current.commitment || !byId('countdown')) return;
  showDriftStatus(current.drift || {});
  const commitment = current.commitment;
  const now = serverNowMs();
  let remainingMs;
  if (typeof commitment.deadline === 'number') {
    remainingMs = Math.max(0, commitment.deadline - now);
  } else {
    remainingMs = Math.max(0, (commitment.remaining_secs || 0) * 1000);
  }
  const remainingSecs = Math.ceil(remainingMs / 1000);
  const text = showsSeconds(remainingMs) ? formatClock(remainingSecs)
    : `${Math.ceil(remainingSecs / 60)} min`;
  setText('countdown', text);
  setText('countdown-label', remainingSecs > 0 ? 'left' : "time's up");
  // document.title shows whole minutes only (js/tab.js): a window source
  // would see a per-second title change and report each one as evidence.

  // The whole timebox, extensions included (POST /extend moves the deadline).
  const plannedMs = ((commitment.timebox_secs || 0) + (Number(commitment.extended_secs) || 0)) * 1000;
  const startedAt = typeof commitment.started_at === 'number'
    ? commitment.started_at : now - (plannedMs - remainingMs);
  const totalMs = typeof commitment.deadline === 'number' && commitment.deadline > startedAt
    ? commitment.deadline - startedAt : plannedMs;
  const fraction = totalMs > 0 ? Math.min(1, Math.max(0, (now - startedAt) / totalMs)) : 0;
  const percent = Math.round(fraction * 1000) / 10;
  const progress = byId('progress');
  progress.setAttribute('aria-valuenow', String(Math.round(percent)));
  progress.firstElementChild.style.width = `${percent}%`;
}
