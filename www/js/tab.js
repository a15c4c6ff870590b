/*
 * The page's face outside its own content: the tab title, the favicon and
 * the alarm colour of the whole page. The title always ENDS with
 * "AntiDrift <tag>", where <tag> is the daemon's own-page tag injected into
 * index.html with the token: the daemon recognises a browser window whose
 * title ends so as its own page and never calls it drift (issue 6) — and no
 * other page can, as none knows the tag (issue 19 item 3). It changes at most once a
 * minute while a session runs, so a window source does not see a new title
 * every second.
 */

import { latestState, serverNowMs } from './store.js';

const tagMeta = document.querySelector('meta[name="antidrift-page-tag"]');
const kTag = tagMeta ? tagMeta.getAttribute('content') : '';
const kName = /^[0-9a-f]{8}$/.test(kTag) ? `AntiDrift ${kTag}` : 'AntiDrift';

/** Calm (accent ring), alarm (red disc with "!") and lost (grey ring) icons. */
const kIcons = {
  calm: svgIcon('<circle cx="16" cy="16" r="11" fill="none" stroke="#2e6f8e" stroke-width="6"/>'),
  alarm: svgIcon('<circle cx="16" cy="16" r="15" fill="#c0392b"/>'
    + '<rect x="14" y="6" width="4" height="13" rx="2" fill="#fff"/>'
    + '<circle cx="16" cy="24.5" r="2.5" fill="#fff"/>'),
  lost: svgIcon('<circle cx="16" cy="16" r="11" fill="none" stroke="#8a9299" stroke-width="6"/>'),
};

/** Connection as reported by net.js: "connecting", "open", "lost" or "rotated". */
let connection = 'connecting';

/** sessionStorage key of the heads-up message the person dismissed (issue 17 item 4). */
const kDismissedHeadsUpKey = 'antidrift.headsUpDismissed';

/**
 * The heads-up message the person dismissed in this tab, '' when none (or
 * storage is off). Kept in sessionStorage, so a reload of the tab does not
 * bring it back; a dismissed heads-up no longer names the tab either.
 */
export function dismissedHeadsUp() {
  try {
    return window.sessionStorage.getItem(kDismissedHeadsUpKey) || '';
  } catch (error) {
    return dismissedInMemory;
  }
}

/** The dismissal while storage is off: it lasts until the page is reloaded. */
let dismissedInMemory = '';

/** Keeps `message` as the dismissed heads-up ('' forgets it) and refreshes the tab. */
export function keepDismissedHeadsUp(message) {
  dismissedInMemory = message;
  try {
    if (message) window.sessionStorage.setItem(kDismissedHeadsUpKey, message);
    else window.sessionStorage.removeItem(kDismissedHeadsUpKey);
  } catch (error) {
    // Storage off: dismissedInMemory holds it.
  }
  refreshTab();
}

/** An SVG favicon as a data: URL (the daemon's CSP allows img-src data:). */
function svgIcon(body) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${body}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** Remembers the connection state and refreshes the tab. */
export function setTabConnection(status) {
  connection = status;
  refreshTab();
}

/** True while the latest State is an active session whose drift status is "drifting". */
export function isDrifting(state) {
  return Boolean(state && state.runtime === 'active' && state.drift
    && state.drift.status === 'drifting');
}

/** The title before " · AntiDrift <tag>", or "" for the name alone. */
function titlePrefix(state) {
  if (connection === 'lost') return 'Lost contact';
  if (connection === 'rotated') return 'Reload this page';
  if (!state) return '';
  if (isDrifting(state)) return 'Drifting';
  if (state.runtime === 'planning') return 'Planning';
  if (state.runtime === 'review') return 'Review';
  if (state.runtime === 'active' && state.commitment) {
    // The heads-up (issue 17 item 2) shows in the title as the banner does,
    // and leaves it when the person dismissed it (issue 17 item 4).
    const nudge = state.drift && typeof state.drift.nudge === 'string' ? state.drift.nudge.trim() : '';
    if (nudge !== '' && nudge !== dismissedHeadsUp()) return 'Heads up';
    const deadline = state.commitment.deadline;
    const remainingSecs = typeof deadline === 'number'
      ? Math.max(0, (deadline - serverNowMs()) / 1000) : Number(state.commitment.remaining_secs) || 0;
    return remainingSecs > 0 ? `${Math.ceil(remainingSecs / 60)} min left` : "Time's up";
  }
  return '';
}

/**
 * Title, favicon and data-alarm on <html> from the latest State and the
 * connection. Cheap when nothing changed (writes only differences); called
 * on every State, on connection changes and on the countdown tick.
 */
export function refreshTab() {
  const state = latestState();
  const prefix = titlePrefix(state);
  const title = prefix ? `${prefix} · ${kName}` : kName;
  if (document.title !== title) document.title = title;

  let look = 'calm';
  if (connection === 'lost' || connection === 'rotated') look = 'lost';
  else if (isDrifting(state)) look = 'alarm';
  const root = document.documentElement;
  if (root.dataset.alarm !== String(look === 'alarm')) root.dataset.alarm = String(look === 'alarm');
  const icon = document.querySelector('link[rel="icon"]');
  if (icon && icon.dataset.look !== look) {
    icon.dataset.look = look;
    icon.href = kIcons[look];
  }
}
