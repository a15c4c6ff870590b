// The page at rest (issue 20 item 1): the real antidriftd and chromium. Over
// a window (ANTIDRIFT_REST_S seconds, default 60) the page's own counts, from
// Chrome's Performance domain (LayoutCount, RecalcStyleCount) and the
// Performance API (long tasks): while a session runs, at most one layout per
// second (the countdown's tick) and no long task; behind another tab (visible,
// not focused) whole minutes and at most a layout a minute; while locked,
// none at all.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { openLockedPage, useDaemonAndBrowser, waitForView } from './harness.mjs';

const kWindowS = Number(process.env.ANTIDRIFT_REST_S || 60);

/** Chrome's own counters of the page: {LayoutCount, RecalcStyleCount, ...}. */
async function metrics(cdp) {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(list.map(({ name, value }) => [name, value]));
}

/** Counts of layouts, style recalcs and long tasks over `seconds`. */
async function countsOver(page, cdp, seconds) {
  await page.evaluate(() => {
    window.longTasks = 0;
    new PerformanceObserver((list) => { window.longTasks += list.getEntries().length; })
      .observe({ type: 'longtask' });
  });
  const before = await metrics(cdp);
  // The window itself is the measurement, not a wait for a condition.
  await page.waitForTimeout(seconds * 1000);
  const after = await metrics(cdp);
  return {
    layouts: after.LayoutCount - before.LayoutCount,
    styles: after.RecalcStyleCount - before.RecalcStyleCount,
    longTasks: await page.evaluate(() => window.longTasks),
  };
}

describe('AntiDrift page at rest', () => {
  const suite = useDaemonAndBrowser('antidrift-ui-rest-', () => ({ settings: { 'ai.backend': 'none' } }));

  test('locked: no layout, style or long task over the window', async () => {
    const page = await openLockedPage(suite);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const counts = await countsOver(page, cdp, Math.min(kWindowS, 20));
    assert.deepEqual(counts, { layouts: 0, styles: 0, longTasks: 0 }, JSON.stringify(counts));
    assert.deepEqual(page.pageErrors, []);
  });

  test('active: at most one layout a second, on the countdown tick, no long task', async () => {
    const page = await openLockedPage(suite);
    await page.click('#plan-button');
    await waitForView(page, 'planning');
    await page.fill('#next-action', 'Sit still');
    await page.fill('#success-condition', 'Nothing moves');
    await page.fill('#minutes', '30');
    await page.click('#start');
    await waitForView(page, 'active');
    const first = await page.textContent('#countdown');
    await page.waitForFunction((seen) => document.getElementById('countdown').textContent !== seen, first);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const counts = await countsOver(page, cdp, kWindowS);
    assert.equal(counts.longTasks, 0, JSON.stringify(counts));
    // One tick a second changes the countdown: one style recalc and layout each
    // (plus a couple at the window's edges); a 250 ms tick or a running
    // transition would give four or sixty a second.
    assert.ok(counts.layouts <= kWindowS + 2, JSON.stringify(counts));
    assert.ok(counts.styles <= kWindowS + 2, JSON.stringify(counts));
    assert.ok(counts.layouts >= kWindowS - 2, `the countdown still ticks: ${JSON.stringify(counts)}`);

    // Behind another tab, with chromium's focus emulation off, the page
    // really loses focus yet stays visible: whole minutes, one wake a minute.
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
    const other = await page.context().newPage();
    await other.goto('about:blank');
    await other.bringToFront();
    assert.equal(await page.evaluate(() => document.hasFocus()), false);
    assert.equal(await page.evaluate(() => document.hidden), false);
    await page.waitForFunction(() => /^\d+ min$/.test(document.getElementById('countdown').textContent));
    const behind = await countsOver(page, cdp, Math.min(kWindowS, 20));
    // At most one minute boundary falls in a 20 s window: one layout then.
    assert.ok(behind.layouts <= 2, `behind another tab: ${JSON.stringify(behind)}`);
    assert.equal(behind.longTasks, 0, JSON.stringify(behind));
    assert.match(await page.textContent('#countdown'), /^\d+ min$/);

    await page.bringToFront();
    await page.waitForFunction(() => /^\d+:\d\d$/.test(document.getElementById('countdown').textContent));
    await other.close();
    assert.deepEqual(page.pageErrors, []);
  });
});
