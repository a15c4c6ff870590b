/*
 * The end of the timebox, as people expect from a focus timer (issue 7):
 * when the daemon moves a session this page was showing from active to
 * review with outcome "expired", a Web Notification "Time is up: <next
 * action>" (when allowed) and the optional soft chime (js/sound.js). Each
 * session is announced once per browser, however many tabs are open.
 */

import { notifyTimeUp } from './notify.js';
import { chimeIfWanted } from './sound.js';

/** localStorage key: the id of the last session announced. */
const kAnnouncedKey = 'antidrift.time-up-announced';

/** True when `next` is the session `previous` showed as active, now expired in review. */
export function isTimeUp(previous, next) {
  if (!previous || !next || previous.runtime !== 'active' || next.runtime !== 'review') return false;
  if (next.outcome !== 'expired') return false;
  const before = previous.commitment && previous.commitment.id;
  const after = next.commitment && next.commitment.id;
  return Boolean(before) && before === after;
}

/** Announces the time-up once per session id, when `previous` → `next` is one. */
export function announceIfTimeUp(previous, next) {
  if (!isTimeUp(previous, next)) return;
  const id = String(next.commitment.id);
  try {
    if (window.localStorage.getItem(kAnnouncedKey) === id) return;  // another tab did
    window.localStorage.setItem(kAnnouncedKey, id);
  } catch (error) {
    // Storage blocked: announce from this tab anyway.
  }
  notifyTimeUp(String(next.commitment.next_action || ''));
  chimeIfWanted();
}
