/*
 * The active view's notification status line as words (issue 17 item 2 and
 * item 3; re-walk C, D and E). Pure: no DOM, so node's test runner checks it
 * (tests/e2e/browser/notify-text.test.mjs).
 */

/**
 * Do-not-disturb switches that hold AntiDrift's own notifications too:
 * dunst 1.9 (Debian 12's) has no pause levels, so the daemon un-pauses it
 * while its own notification shows and the held ones appear with it
 * (docs/API.md focus.do_not_disturb). The line says exactly that.
 */
const kHoldsOwnNotifications = new Set(['dunst']);

/**
 * The status line: `daemonNotifies` (State notify.desktop), `permission`
 * (the browser's Notification.permission, or "unsupported"),
 * `doNotDisturb` (State notify.do_not_disturb, "" for none) and
 * `contactLost` (the event stream is down: the daemon may have stopped and
 * released both, so nothing is claimed). "" when there is nothing to say.
 */
export function notifyStatusText({
  daemonNotifies = false, permission = 'default', doNotDisturb = '', contactLost = false,
} = {}) {
  if (contactLost && (daemonNotifies || doNotDisturb)) {
    return 'Desktop notifications and do-not-disturb: unknown until AntiDrift is back';
  }
  let text = '';
  if (daemonNotifies) text = 'Desktop notifications on: drift, reminders and time up';
  else if (permission === 'granted') text = 'Browser notifications on: drift and time up';
  else if (permission === 'denied') text = 'Notifications blocked in this browser';
  if (doNotDisturb) {
    const release = kHoldsOwnNotifications.has(doNotDisturb)
      ? 'until the session ends, except that they show when AntiDrift notifies you'
      : 'until the session ends';
    text += `${text ? ' · ' : ''}other apps' notifications held ${release} (${doNotDisturb})`;
  }
  return text;
}
