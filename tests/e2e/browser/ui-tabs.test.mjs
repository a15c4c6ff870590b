// Browser test of many tabs (issue 8 item 3): chromium allows six HTTP/1.1
// connections per host and an EventSource holds one for good, so with one
// stream per tab the seventh tab could neither load nor act. The page shares
// one stream per browser through a SharedWorker (www/js/stream-worker.js).
//
//   ANTIDRIFT_BIN=/path/to/build/antidriftd node --test ui-tabs.test.mjs
//
// No fixed sleeps: every wait is on a DOM condition with Playwright's deadline.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { openLockedPage, openPage, useDaemonAndBrowser, waitForView } from './harness.mjs';

const kTabs = 10;

describe('AntiDrift UI in many tabs', () => {
  const suite = useDaemonAndBrowser('antidrift-ui-tabs-', () => ({ settings: { 'ai.backend': 'none' } }));

  test('ten tabs share one stream: each shows the state, the buttons act, an 11th tab loads', async () => {
    const pages = [];
    for (let i = 0; i < kTabs; i += 1) pages.push(await openLockedPage(suite));

    // A button in the last tab acts, and every tab follows over the shared stream.
    await pages[kTabs - 1].click('#plan-button');
    for (const page of pages) await waitForView(page, 'planning');
    await pages[0].click('#cancel');
    for (const page of pages) await waitForView(page, 'locked');

    // An 11th tab loads and acts too: the connections are not all taken.
    const eleventh = await openLockedPage(suite);
    await eleventh.click('#plan-button');
    for (const page of [...pages, eleventh]) await waitForView(page, 'planning');
    await eleventh.click('#cancel');
    for (const page of [...pages, eleventh]) await waitForView(page, 'locked');

    for (const page of [...pages, eleventh]) {
      // The stream is the worker's: no tab opened one of its own.
      assert.equal(page.requestedPaths.includes('/events'), false);
      assert.deepEqual(page.pageErrors, []);
      assert.deepEqual(page.consoleErrors, []);
    }
  });

  test('a closed tab leaves the shared stream working for the others', async () => {
    const first = await openLockedPage(suite);
    const second = await openLockedPage(suite);
    await first.close({ runBeforeUnload: true });
    await second.click('#plan-button');
    await waitForView(second, 'planning');
    const third = await openPage(suite.browser.context);  // joins the stream already open
    await third.goto(suite.daemon.baseUrl + '/');
    await waitForView(third, 'planning');
    await third.click('#cancel');
    await waitForView(second, 'locked');
  });
});
