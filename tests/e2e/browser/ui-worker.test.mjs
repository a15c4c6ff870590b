// Browser test of the Service Worker guard (issue 19 item 2, docs/SECURITY.md
// M2): a page another user served on the daemon's origin while the port was
// theirs could have registered a worker there. The daemon answers a worker's
// script fetch (`Service-Worker: script`, which the browser sends past any
// worker) with one that removes itself; here chromium registers a worker as
// such a page would, and the registration must be gone and the page work.
//
//   ANTIDRIFT_BIN=/path/to/build/antidriftd node --test ui-worker.test.mjs
//
// No fixed sleeps: every wait is on a condition with Playwright's deadline.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { openLockedPage, openPage, useDaemonAndBrowser, waitForView } from './harness.mjs';

describe('AntiDrift page and Service Workers', () => {
  const suite = useDaemonAndBrowser('antidrift-ui-worker-', () => ({ settings: { 'ai.backend': 'none' } }));

  test('a worker registered on the origin removes itself; the page runs without one', async () => {
    const page = await openLockedPage(suite);
    const scope = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.register('/sw.js');
      return registration.scope;
    });
    assert.equal(scope, suite.daemon.baseUrl + '/');
    // It installs, activates and unregisters itself.
    await page.waitForFunction(
      async () => (await navigator.serviceWorker.getRegistrations()).length === 0,
      null, { timeout: 15000 });
    // A fresh page of the origin is not controlled and works.
    const fresh = await openPage(suite.browser.context);
    await fresh.goto(suite.daemon.baseUrl + '/');
    await waitForView(fresh, 'locked');
    assert.equal(await fresh.evaluate(() => navigator.serviceWorker.controller), null);
    await fresh.click('#plan-button');
    await waitForView(fresh, 'planning');
    await fresh.click('#cancel');
    await waitForView(fresh, 'locked');
    assert.deepEqual(fresh.pageErrors, []);
  });
});
