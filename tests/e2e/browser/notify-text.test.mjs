// The active view's notification status line (www/js/notify-text.js), a pure
// text builder, under node's test runner: no browser needed. Issue 17 item 3
// and the re-walk's D and E: the line never claims what it cannot know.
//
//   node --test notify-text.test.mjs

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { notifyStatusText } from '../../../www/js/notify-text.js';

test('the desktop notifier and a do-not-disturb switch that holds everything until the end', () => {
  assert.equal(notifyStatusText({ daemonNotifies: true, doNotDisturb: 'mako' }),
    "Desktop notifications on: drift, reminders and time up · other apps' notifications held "
    + 'until the session ends (mako)');
});

test("under dunst, which shows the held ones with AntiDrift's own, the line says so", () => {
  const text = notifyStatusText({ daemonNotifies: true, doNotDisturb: 'dunst' });
  assert.equal(text, "Desktop notifications on: drift, reminders and time up · other apps' notifications "
    + 'held until the session ends, except that they show when AntiDrift notifies you (dunst)');
});

test('with contact lost, nothing is claimed about the desktop notifier or do-not-disturb', () => {
  const text = notifyStatusText({ daemonNotifies: true, doNotDisturb: 'dunst', contactLost: true });
  assert.equal(text, 'Desktop notifications and do-not-disturb: unknown until AntiDrift is back');
  assert.doesNotMatch(text, /held|on:/);
  // The browser's own notifications do not depend on the daemon.
  assert.equal(notifyStatusText({ permission: 'granted', contactLost: true }),
    'Browser notifications on: drift and time up');
});

test('nothing to say', () => {
  assert.equal(notifyStatusText({}), '');
  assert.equal(notifyStatusText({ permission: 'unsupported' }), '');
});
