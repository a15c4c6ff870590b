/*
 * Web Notifications on a new drift (docs/DESIGN.md §4: the banner is in a tab the
 * person has just left) and when the timebox runs out (issue 7). The page
 * never asks unprompted: a small "Notify me" control asks for permission
 * when clicked.
 *
 * One notification per drift (issue 17 item 2): when the daemon raises
 * desktop notifications itself (State notify.desktop), the page's own step
 * aside, the control is hidden and the page says which one is on.
 */

import { byId, setHidden, setText } from './dom.js';
import { notifyStatusText } from './notify-text.js';

const kSupported = typeof window.Notification === 'function';

/** The daemon's notification sinks from the latest State (notify.desktop, notify.do_not_disturb). */
let daemonNotifies = false;
let doNotDisturb = '';
/** Contact with the daemon is lost: what it notifies or holds cannot be known (issue 17, re-walk D). */
let contactLost = false;

/**
 * While contact with the daemon is lost (`lost` true) the status line makes
 * no claim about desktop notifications or do-not-disturb: the daemon may have
 * stopped and released them. Called by app.js on each connection change.
 */
export function setContactLost(lost) {
  if (Boolean(lost) === contactLost) return;
  contactLost = Boolean(lost);
  showPermission();
}

/**
 * Follows State.notify: while the daemon notifies on the desktop, the page's
 * Web Notifications are off and the status line says so; the do-not-disturb
 * switch in use is named too.
 */
export function setDaemonNotify(notify) {
  const live = Boolean(notify && notify.desktop === true);
  const dnd = notify && typeof notify.do_not_disturb === 'string' ? notify.do_not_disturb : '';
  if (live === daemonNotifies && dnd === doNotDisturb) return;
  daemonNotifies = live;
  doNotDisturb = dnd;
  showPermission();
}

/** Wires the "Notify me" control of the active view and shows the current permission. */
export function mountNotifyControl() {
  const button = byId('notify-drift');
  button.addEventListener('click', async () => {
    try {
      await Notification.requestPermission();
    } catch (error) {
      // An old callback-only implementation: the permission is read below anyway.
    }
    showPermission();
  });
  showPermission();
}

/** The control while permission is undecided; one quiet line once decided. */
function showPermission() {
  const permission = kSupported ? Notification.permission : 'unsupported';
  setHidden(byId('notify-drift'), daemonNotifies || permission !== 'default');
  const text = notifyStatusText({ daemonNotifies, permission, doNotDisturb, contactLost });
  setText('notify-status', text);
  setHidden(byId('notify-status'), text === '');
}

/**
 * Raises one notification for a new drift with the daemon's reason (shown
 * verbatim: notification bodies are plain text). Nothing without permission,
 * nor while the daemon notifies on the desktop. Clicking it brings this tab forward.
 */
export function notifyDrift(reason) {
  if (daemonNotifies || !kSupported || Notification.permission !== 'granted') return;
  const notification = new Notification('Drifting · AntiDrift', {
    body: reason,
    tag: 'antidrift-drift',
  });
  notification.addEventListener('click', () => {
    window.focus();
    notification.close();
  });
}

/**
 * Raises one notification "Time is up: <next action>" (the daemon moved
 * the session to review with outcome expired). Nothing without permission.
 * Clicking it brings this tab forward, where the review waits.
 */
export function notifyTimeUp(nextAction) {
  if (daemonNotifies || !kSupported || Notification.permission !== 'granted') return;
  const notification = new Notification(`Time is up: ${nextAction}`, {
    body: 'Review the session in AntiDrift.',
    tag: 'antidrift-time-up',
  });
  notification.addEventListener('click', () => {
    window.focus();
    notification.close();
  });
}
