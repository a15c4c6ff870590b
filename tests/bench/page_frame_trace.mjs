// Where a page's frames go (issue 20 item 1, docs/PERFORMANCE.md "Status
// bars and the page at rest"): a Chrome trace (CDP Tracing) of one tab in
// headless Debian chromium over TRACE_S seconds (default 10), summed per
// thread and event: the frames (BeginMainFrame), their commit, style, layout
// and paint on the renderer's main thread, thread-pool work (raster) and the
// compositors. Durations are wall time: on a loaded machine they include
// waiting for a core, so compare two runs made one after the other.
//
//   ANTIDRIFT_BIN=build/antidriftd node tests/bench/page_frame_trace.mjs
//       the AntiDrift page with a session running (a window posted)
//   PAGE=reference ...   a blank page whose text changes once a second
//   CSS='.countdown{will-change:transform}' ...   a style added to the page first
//   TOP=40 ...           also the 40 costliest thread/event pairs
// Needs tests/e2e/browser's node_modules (npm ci there).

import { launchBrowser, startDaemon } from '../e2e/browser/harness.mjs';

const kTraceS = Number(process.env.TRACE_S || 10);
const kReference = 'data:text/html,' + encodeURIComponent(
  '<p id="c"></p><script>function t(){c.textContent=Math.floor(Date.now()/1000);' +
  'setTimeout(t,1000-Date.now()%1000)}t()</script>');
const kPicked = [
  'CrRendererMain ProxyMain::BeginMainFrame',
  'CrRendererMain Commit',
  'CrRendererMain UpdateLayoutTree',
  'CrRendererMain Layout',
  'CrRendererMain Paint',
  'ThreadPoolForegroundWorker ThreadPool_RunTask',
  'Compositor Graphics.Pipeline',
  'VizCompositorThread Graphics.Pipeline',
];

const daemon = await startDaemon({ 'ai.backend': 'none' });
const browser = await launchBrowser();
try {
  const tab = browser.context.pages()[0] || await browser.context.newPage();
  if (process.env.PAGE === 'reference') {
    await tab.goto(kReference);
  } else {
    await tab.goto(daemon.baseUrl + '/');
    await tab.waitForSelector('#view[data-view="locked"]');
    await daemon.post('/planning');
    await daemon.post('/commitment', {
      next_action: 'Trace the page', success_condition: 'A trace', timebox_minutes: 120,
      allowed_apps: ['code'],
    });
    await daemon.post('/evidence/window', { app: 'code', title: 'trace.md' });
    await tab.waitForSelector('#view[data-view="active"]');
  }
  if (process.env.CSS) await tab.addStyleTag({ content: process.env.CSS });
  // Let the page settle after loading before the trace starts.
  await new Promise((resolve) => setTimeout(resolve, 3000));

  const cdp = await browser.context.newCDPSession(tab);
  const events = [];
  cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: ['toplevel', 'blink', 'cc', 'gpu', 'viz', 'v8', 'benchmark',
                                        'devtools.timeline', 'disabled-by-default-devtools.timeline'] },
    transferMode: 'ReportEvents',
  });
  await new Promise((resolve) => setTimeout(resolve, kTraceS * 1000));
  await cdp.send('Tracing.end');
  await complete;

  const threads = new Map();
  for (const e of events) if (e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
  const totals = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || !e.dur) continue;
    const key = `${threads.get(`${e.pid}:${e.tid}`) || e.tid} ${e.name}`;
    const total = totals.get(key) || { us: 0, count: 0 };
    total.us += e.dur;
    total.count += 1;
    totals.set(key, total);
  }
  const frames = (totals.get('CrRendererMain ProxyMain::BeginMainFrame') || { count: 0 }).count;
  console.log(`${process.env.PAGE === 'reference' ? 'reference page' : 'AntiDrift page, active'}` +
              `${process.env.CSS ? ` + ${process.env.CSS}` : ''}: ${frames} frames in ${kTraceS} s`);
  for (const key of kPicked) {
    const total = totals.get(key);
    if (!total) continue;
    console.log(`  ${key}: ${(total.us / 1000).toFixed(1)} ms in ${total.count}` +
                (frames ? `, ${(total.us / 1000 / frames).toFixed(2)} ms a frame` : ''));
  }
  const top = Number(process.env.TOP || 0);
  for (const [key, total] of [...totals.entries()].sort((a, b) => b[1].us - a[1].us).slice(0, top)) {
    console.log(`  ${(total.us / 1000).toFixed(1)} ms  n=${total.count}  ${key}`);
  }
} finally {
  await browser.close();
  await daemon.stop();
}
