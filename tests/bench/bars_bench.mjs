// What the person keeps open all day, side by side in one run (issue 20
// items 1-3): the real antidriftd on an ephemeral port, the AntiDrift page
// and a blank page each in its own headless chromium (Debian's, the same
// flags as the browser tests), `antidrift watch --format waybar`, and the
// old 5 s polling snippet `while sleep 5; do antidrift status --format
// waybar; done`. Over each window (BENCH_BARS_S seconds, default 60), for
// each: % of a core (CPU time of all its processes and threads, from
// /proc/PID/task/*/schedstat) and wake-ups per minute (voluntary context
// switches, /proc/PID/task/*/status), locked and with an active session,
// with the page visible and in front (focused), visible behind another tab
// (not focused: the page kept open beside the work), and hidden. The polling snippet runs under getrusage(RUSAGE_CHILDREN)
// (python3), which sums every process it started. Then the bars' latency:
// BENCH_BARS_SWITCHES windows posted to POST /evidence/window, timed from the
// post and from the State's SSE event (a stream of this script's own) to the
// watch's output line. Exits 1 when a target of issue 20 is missed.
// BENCH_BARS_COMPOSITOR=1 adds two references whose seconds are drawn by the
// compositor alone (a steps() transform animation, an animated PNG).
//
// Run: scripts/bench.sh bars (builds what it needs), or
//   ANTIDRIFT_BIN=build/antidriftd ANTIDRIFT_CLI=build/antidrift node tests/bench/bars_bench.mjs
// Needs tests/e2e/browser's node_modules (npm ci there) and /usr/bin/chromium.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

import { launchBrowser, makeTempDir, startDaemon } from '../e2e/browser/harness.mjs';

const kWindowS = Number(process.env.BENCH_BARS_S || 60);
const kSwitches = Number(process.env.BENCH_BARS_SWITCHES || 200);
const kCli = process.env.ANTIDRIFT_CLI || path.resolve('build/antidrift');
const kTargets = {
  pageActivePct: 0.3, pageLockedPct: 0.1, watchPct: 0.05, watchRssKiB: 5 * 1024, latencyP99Ms: 50,
};

const now = () => Number(process.hrtime.bigint()) / 1e6;  // ms, monotonic
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long the pages settle after loading before the first window (ms). */
const kSettleMs = 20000;

// ---- /proc -------------------------------------------------------------

function readOr(file, fallback) {
  try { return fs.readFileSync(file, 'utf8'); } catch { return fallback; }
}

/** pid → parent pid of every process. */
function parents() {
  const map = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readOr(`/proc/${name}/stat`, null);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    map.set(Number(name), Number(fields[1]));
  }
  return map;
}

/** `root` and all its descendants. */
function processTree(root) {
  const map = parents();
  const tree = [root];
  for (let i = 0; i < tree.length; ++i) {
    for (const [pid, ppid] of map) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** {cpuNs, wakeups, rssKiB} of one process, all its threads; null when gone. */
function processCounters(pid) {
  let tasks;
  try { tasks = fs.readdirSync(`/proc/${pid}/task`); } catch { return null; }
  let cpuNs = 0;
  let wakeups = 0;
  for (const tid of tasks) {
    const schedstat = readOr(`/proc/${pid}/task/${tid}/schedstat`, '0');
    cpuNs += Number(schedstat.split(' ')[0]);
    const status = readOr(`/proc/${pid}/task/${tid}/status`, '');
    const match = /voluntary_ctxt_switches:\s+(\d+)/.exec(status);
    if (match) wakeups += Number(match[1]);
  }
  const rss = /VmRSS:\s+(\d+)/.exec(readOr(`/proc/${pid}/status`, ''));
  return { cpuNs, wakeups, rssKiB: rss ? Number(rss[1]) : 0 };
}

/** Counters of every process of a group (a root pid and its descendants). */
function groupCounters(root) {
  const counters = new Map();
  for (const pid of processTree(root)) {
    const c = processCounters(pid);
    if (c) counters.set(pid, c);
  }
  return counters;
}

/** % of a core and wake-ups per minute between two groupCounters(). */
function groupDelta(before, after, seconds) {
  let cpuNs = 0;
  let wakeups = 0;
  let rssKiB = 0;
  for (const [pid, end] of after) {
    const start = before.get(pid) || { cpuNs: 0, wakeups: 0 };
    cpuNs += end.cpuNs - start.cpuNs;
    wakeups += end.wakeups - start.wakeups;
    rssKiB += end.rssKiB;
  }
  return { pct: cpuNs / 1e9 / seconds * 100, wakeupsPerMin: wakeups / seconds * 60, rssKiB };
}

/** Root pids of the chromium browsers this script started. */
function chromiumRoots() {
  const roots = [];
  for (const [pid, ppid] of parents()) {
    if (ppid !== process.pid) continue;
    const cmdline = readOr(`/proc/${pid}/cmdline`, '');
    if (cmdline.includes('chromium') && !cmdline.includes('--type=')) roots.push(pid);
  }
  return roots;
}

// ---- the parts ---------------------------------------------------------

/** `antidrift watch --format waybar`: every output line with its arrival time. */
function startWatch(baseUrl, env) {
  const child = spawn(kCli, ['--url', baseUrl, 'watch', '--format', 'waybar'],
                      { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = [];
  const waiters = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const entry = { at: now(), line };
    lines.push(entry);
    for (const waiter of waiters.splice(0)) waiter();
  });
  /** The first line from index `from` on that contains `text`. */
  async function lineWith(text, from = 0, timeoutMs = 10000) {
    const deadline = now() + timeoutMs;
    for (;;) {
      const found = lines.slice(from).find((entry) => entry.line.includes(text));
      if (found) return found;
      if (now() > deadline) throw new Error(`watch printed no line with "${text}" in ${timeoutMs} ms`);
      await Promise.race([new Promise((resolve) => waiters.push(resolve)), delay(timeoutMs)]);
    }
  }
  return { child, lines, lineWith };
}

/** This script's own SSE stream: the arrival time of each `state` event. */
function startSse(baseUrl) {
  const events = [];
  const request = http.get(baseUrl + '/events', { headers: { Accept: 'text/event-stream' } }, (response) => {
    let buffer = '';
    response.setEncoding('utf8');
    response.on('data', (chunk) => {
      const at = now();
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('\n');
        if (data) events.push({ at, data });
      }
    });
  });
  request.on('error', () => {});
  return { events, close: () => request.destroy() };
}

/**
 * The old snippet for `seconds`, under getrusage(RUSAGE_CHILDREN) so every
 * `sleep` and `antidrift status` it started is counted. Resolves to
 * {pct, wakeupsPerMin, runs}.
 */
function runPollingSnippet(baseUrl, env, seconds) {
  const loop = `n=0; while sleep 5 && [ $SECONDS -lt ${seconds} ]; do ` +
               `"$0" --url "$1" status --format waybar >/dev/null; n=$((n+1)); done; echo "runs $n" >&2`;
  const probe = 'import resource, subprocess, sys\n' +
                'subprocess.run(sys.argv[1:])\n' +
                'r = resource.getrusage(resource.RUSAGE_CHILDREN)\n' +
                'print(r.ru_utime + r.ru_stime, r.ru_nvcsw)\n';
  const child = spawn('python3', ['-c', probe, 'bash', '-c', loop, kCli, baseUrl],
                      { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  child.stderr.on('data', (chunk) => { err += chunk; });
  const started = now();
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const [cpuS, wakeups] = out.trim().split(' ').map(Number);
      if (code !== 0 || !Number.isFinite(cpuS)) {
        reject(new Error(`polling snippet: exit ${code}: ${out} ${err}`));
        return;
      }
      const elapsedS = (now() - started) / 1000;
      resolve({ pct: cpuS / elapsedS * 100, wakeupsPerMin: wakeups / elapsedS * 60,
                runs: Number((/runs (\d+)/.exec(err) || [])[1]) });
    });
  });
}

/** One measured window: every part at once, nothing else happening. */
async function measureWindow(parts, baseUrl, env) {
  const snippet = runPollingSnippet(baseUrl, env, kWindowS);
  const before = Object.fromEntries(Object.entries(parts).map(([name, pid]) => [name, groupCounters(pid)]));
  const started = now();
  // The window itself is the measurement.
  await delay(kWindowS * 1000);
  const seconds = (now() - started) / 1000;
  const result = {};
  for (const [name, pid] of Object.entries(parts)) {
    result[name] = groupDelta(before[name], groupCounters(pid), seconds);
  }
  result.snippet = await snippet;
  return result;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)];
}

// ---- the run -----------------------------------------------------------

const env = { ...process.env, XDG_CONFIG_HOME: makeTempDir('antidrift-bench-config-') };
const daemon = await startDaemon({ 'ai.backend': 'none' });
const daemonPid = daemon.pid;
const blank = await launchBrowser();
const [blankRoot] = chromiumRoots();
const page = await launchBrowser();
const pageRoot = chromiumRoots().find((pid) => pid !== blankRoot);
const blankTab = blank.context.pages()[0] || await blank.context.newPage();
await blankTab.goto('about:blank');
// A reference: a blank page whose text changes once a second — what any
// page showing a per-second countdown costs at least (a frame a second).
const tick = await launchBrowser();
const tickRoot = chromiumRoots().find((pid) => pid !== blankRoot && pid !== pageRoot);
const tickTab = tick.context.pages()[0] || await tick.context.newPage();
await tickTab.goto('data:text/html,' + encodeURIComponent(
  '<p id="c"></p><script>function t(){c.textContent=Math.floor(Date.now()/1000);' +
  'setTimeout(t,1000-Date.now()%1000)}t()</script>'));
// With BENCH_BARS_COMPOSITOR=1, two more references, each in its own
// chromium: seconds drawn by the compositor alone, with no main-thread frame
// and no raster of text a second (issue 20 item 1). "steps": a strip of the
// digits 59..00 moved by a CSS animation of transform with steps(60) timing;
// "animated image": an animated PNG of those digits, one frame a second
// (built in the page from canvas PNGs), which chromium animates on the
// compositor thread.
const compositor = process.env.BENCH_BARS_COMPOSITOR === '1' ? {} : null;
if (compositor) {
  const digits = Array.from({ length: 60 }, (_, i) => String(59 - i).padStart(2, '0'));
  const face = '<div style="font:600 42px monospace">12:<span style="display:inline-block;' +
               'height:1.2em;line-height:1.2em;overflow:hidden;vertical-align:bottom">';
  const kSteps = face + '<span id="s" style="display:block;will-change:transform;' +
    'animation:t 60s steps(60,end) infinite">' + digits.join('<br>') + '</span></span></div>' +
    '<style>@keyframes t{to{transform:translateY(-72em)}}</style>' +
    '<script>s.style.animationDelay=-(Date.now()%60000)+"ms"</script>';
  // An APNG: the first canvas PNG's IHDR, acTL, then per frame an fcTL
  // (1/1 s) and its IDAT data (as fdAT after the first), CRC-32 per chunk.
  const kImage = face + '<img id="i"></span></div><script>(async()=>{' +
    'const T=new Uint32Array(256).map((_,n)=>{for(let k=0;k<8;k++)n=n&1?0xedb88320^(n>>>1):n>>>1;return n>>>0});' +
    'const crc=(b)=>{let c=~0;for(const x of b)c=T[(c^x)&255]^(c>>>8);return~c>>>0};' +
    'const chunk=(type,data)=>{const o=new Uint8Array(12+data.length),v=new DataView(o.buffer);v.setUint32(0,data.length);' +
    'for(let i=0;i<4;i++)o[4+i]=type.charCodeAt(i);o.set(data,8);v.setUint32(8+data.length,crc(o.subarray(4,8+data.length)));return o};' +
    'const c=document.createElement("canvas");c.width=56;c.height=50;const g=c.getContext("2d");' +
    'const parts=[new Uint8Array([137,80,78,71,13,10,26,10])];let seq=0;' +
    `const d=${JSON.stringify(digits)};` +
    'for(let f=0;f<60;f++){g.clearRect(0,0,56,50);g.font="600 42px monospace";g.fillText(d[f],0,40);' +
    'const png=new Uint8Array(await(await new Promise((r)=>c.toBlob(r,"image/png"))).arrayBuffer());const v=new DataView(png.buffer);' +
    'for(let p=8;p<png.length;){const n=v.getUint32(p),t=String.fromCharCode(...png.subarray(p+4,p+8)),data=png.subarray(p+8,p+8+n);p+=12+n;' +
    'if(t==="IHDR"&&f===0){parts.push(chunk(t,data));const a=new Uint8Array(8);new DataView(a.buffer).setUint32(0,60);parts.push(chunk("acTL",a));' +
    'const fc=new Uint8Array(26),w=new DataView(fc.buffer);w.setUint32(0,seq++);w.setUint32(4,56);w.setUint32(8,50);w.setUint16(20,1);w.setUint16(22,1);parts.push(chunk("fcTL",fc))}' +
    'if(t==="IHDR"&&f>0){const fc=new Uint8Array(26),w=new DataView(fc.buffer);w.setUint32(0,seq++);w.setUint32(4,56);w.setUint32(8,50);w.setUint16(20,1);w.setUint16(22,1);parts.push(chunk("fcTL",fc))}' +
    'if(t==="IDAT"){if(f===0)parts.push(chunk(t,data));else{const x=new Uint8Array(4+data.length);new DataView(x.buffer).setUint32(0,seq++);x.set(data,4);parts.push(chunk("fdAT",x))}}}}' +
    'parts.push(chunk("IEND",new Uint8Array(0)));' +
    'setTimeout(()=>{i.src=URL.createObjectURL(new Blob(parts,{type:"image/png"}))},1000-Date.now()%1000)})()</script>';
  for (const [name, html] of [['steps', kSteps], ['image', kImage]]) {
    const known = chromiumRoots();
    compositor[name] = await launchBrowser();
    compositor[`${name}Root`] = chromiumRoots().find((pid) => !known.includes(pid));
    const tab = compositor[name].context.pages()[0] || await compositor[name].context.newPage();
    await tab.goto('data:text/html,' + encodeURIComponent(html));
  }
}
const pageTab = page.context.pages()[0] || await page.context.newPage();
await pageTab.goto(daemon.baseUrl + '/');
await pageTab.waitForSelector('#view[data-view="locked"]');
const watch = startWatch(daemon.baseUrl, env);
await watch.lineWith('"locked"');

const parts = { daemon: daemonPid, page: pageRoot, blank: blankRoot, tick: tickRoot, watch: watch.child.pid };
if (compositor) Object.assign(parts, { steps: compositor.stepsRoot, image: compositor.imageRoot });

/**
 * Hides the tabs as far as headless chromium allows: a background tab stays
 * "visible" there (bringToFront of another tab changes nothing), so the
 * page is told it is hidden — document.hidden and visibilityState
 * overridden, visibilitychange dispatched — and runs its hidden code path
 * (the tab title once a minute). Chromium's own throttling of background
 * tabs is not emulated, so the hidden figures are an upper bound.
 */
async function setHidden(hidden) {
  for (const tab of [pageTab, blankTab, tickTab]) {
    await tab.evaluate((value) => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => value });
      Object.defineProperty(document, 'visibilityState', {
        configurable: true, get: () => (value ? 'hidden' : 'visible') });
      document.dispatchEvent(new Event('visibilitychange'));
    }, hidden);
  }
}

/**
 * Puts another tab in front of the AntiDrift page in its own window (or the
 * page back in front): with chromium's focus emulation off, the page then
 * really loses focus (document.hasFocus() false, window "blur") while it
 * stays visible — the page kept open all day beside the work. The blank and
 * reference pages are left as they are.
 */
const otherTab = await page.context.newPage();
await otherTab.goto('about:blank');
await pageTab.bringToFront();
const pageCdp = await page.context.newCDPSession(pageTab);
await pageCdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
async function setBehind(behind) {
  await (behind ? otherTab : pageTab).bringToFront();
  const focused = await pageTab.evaluate(() => document.hasFocus());
  if (focused === behind) throw new Error(`the page's focus did not follow: hasFocus ${focused}`);
}

const windows = {};
console.log(`window ${kWindowS} s each; daemon pid ${daemonPid}, page chromium ${pageRoot}, ` +
            `blank chromium ${blankRoot}, 1 Hz reference chromium ${tickRoot}, watch ${watch.child.pid}`);
// At rest, not loading: the pages, the tabs and the CDP sessions above were
// just created, and the AntiDrift page's first seconds (its modules, the
// first State, the history and its charts) are not what it costs while it
// stays open. Every window after this one follows a settled page already.
await delay(kSettleMs);
windows['locked, visible'] = await measureWindow(parts, daemon.baseUrl, env);
await setHidden(true);
windows['locked, hidden'] = await measureWindow(parts, daemon.baseUrl, env);
await setHidden(false);

if ((await daemon.post('/planning')).status !== 200) throw new Error('POST /planning failed');
const commitment = await daemon.post('/commitment', {
  next_action: 'Measure the bars', success_condition: 'A table', timebox_minutes: 120,
  allowed_apps: ['code'],
});
if (commitment.status !== 200) throw new Error(`POST /commitment: ${commitment.text}`);
await daemon.post('/evidence/window', { app: 'code', title: 'bench.md' });
await pageTab.waitForSelector('#view[data-view="active"]');
await watch.lineWith('bench.md');
windows['active, visible'] = await measureWindow(parts, daemon.baseUrl, env);
await setBehind(true);
windows['active, visible, behind another window'] = await measureWindow(parts, daemon.baseUrl, env);
await setBehind(false);
await setHidden(true);
windows['active, hidden'] = await measureWindow(parts, daemon.baseUrl, env);
await setHidden(false);

// Latency: a window switch to the bar's line.
const sse = startSse(daemon.baseUrl);
await delay(500);  // its first event (the current State) is not timed
const fromPost = [];
const fromSse = [];
for (let i = 0; i < kSwitches; ++i) {
  const title = `switch-${i}.cpp`;
  const from = watch.lines.length;
  const posted = now();
  const answer = await daemon.post('/evidence/window', { app: 'code', title });
  if (answer.status !== 202) throw new Error(`POST /evidence/window: ${answer.status} ${answer.text}`);
  const line = await watch.lineWith(title, from);
  fromPost.push(line.at - posted);
  for (let wait = 0; wait < 100 && !sse.events.some((e) => e.data.includes(title)); ++wait) await delay(10);
  const event = sse.events.find((e) => e.data.includes(title));
  if (event) fromSse.push(line.at - event.at);
  await delay(50);
}
sse.close();

const rssKiB = processCounters(watch.child.pid).rssKiB;
// RSS counts every resident page of the shared libraries (libstdc++, Poco,
// libc) the process has touched, though the daemon and every other program
// using them share those pages; RssAnon is the memory of its own, Pss its
// fair share.
const watchStatus = readOr(`/proc/${watch.child.pid}/status`, '');
const rssAnonKiB = Number((/RssAnon:\s+(\d+)/.exec(watchStatus) || [])[1]);
const pssKiB = Number((/^Pss:\s+(\d+)/m.exec(readOr(`/proc/${watch.child.pid}/smaps_rollup`, '')) || [])[1]);
watch.child.kill('SIGTERM');
const watchExit = await new Promise((resolve) => watch.child.once('exit', (code, signal) => resolve({ code, signal })));
await page.close();
await blank.close();
await tick.close();
if (compositor) for (const name of ['steps', 'image']) await compositor[name].close();
await daemon.stop();

// ---- the figures -------------------------------------------------------

const fmtPct = (value) => `${value.toFixed(3)} %`;
const fmtWake = (value) => value.toFixed(1);
const columns = Object.keys(windows);
const rows = [
  ['antidriftd', (w) => w.daemon],
  ['AntiDrift page (all chromium processes)', (w) => w.page],
  ['blank page (all chromium processes)', (w) => w.blank],
  ['page − blank: what the page adds', (w) => ({
    pct: w.page.pct - w.blank.pct, wakeupsPerMin: w.page.wakeupsPerMin - w.blank.wakeupsPerMin })],
  ['reference: blank page, text changed once a second', (w) => w.tick],
  ['reference − blank: one frame a second', (w) => ({
    pct: w.tick.pct - w.blank.pct, wakeupsPerMin: w.tick.wakeupsPerMin - w.blank.wakeupsPerMin })],
  ...(compositor ? [
    ['compositor reference − blank: CSS steps() transform of a digit strip', (w) => ({
      pct: w.steps.pct - w.blank.pct, wakeupsPerMin: w.steps.wakeupsPerMin - w.blank.wakeupsPerMin })],
    ['compositor reference − blank: animated PNG, a frame a second', (w) => ({
      pct: w.image.pct - w.blank.pct, wakeupsPerMin: w.image.wakeupsPerMin - w.blank.wakeupsPerMin })],
  ] : []),
  ['antidrift watch --format waybar', (w) => w.watch],
  ['old snippet: while sleep 5; antidrift status', (w) => w.snippet],
];
console.log(`\n% of a core / wake-ups per minute, ${kWindowS} s windows ` +
            '(hidden: document.visibilityState emulated, chromium does not throttle)');
console.log(`| | ${columns.join(' | ')} |`);
console.log(`|---|${columns.map(() => '---|').join('')}`);
for (const [name, pick] of rows) {
  console.log(`| ${name} | ${columns.map((c) => `${fmtPct(pick(windows[c]).pct)} / ${fmtWake(pick(windows[c]).wakeupsPerMin)}`).join(' | ')} |`);
}
const stats = (values) => `p50 ${percentile(values, 50).toFixed(1)} ms, p99 ${percentile(values, 99).toFixed(1)} ms, ` +
                          `max ${Math.max(...values).toFixed(1)} ms (n=${values.length})`;
console.log(`\nwindow switch → watch's line, from the POST: ${stats(fromPost)}`);
console.log(`window switch → watch's line, from the SSE event: ${stats(fromSse)}`);
console.log(`old snippet: up to 5 s (its interval), a process started every 5 s ` +
            `(${windows['active, visible'].snippet.runs} runs of antidrift status in ${kWindowS} s)`);
console.log(`watch at the end: RSS ${(rssKiB / 1024).toFixed(1)} MiB, of it its own (RssAnon) ` +
            `${(rssAnonKiB / 1024).toFixed(1)} MiB; PSS ${(pssKiB / 1024).toFixed(1)} MiB; ` +
            `exit on SIGTERM: ${JSON.stringify(watchExit)}`);

const misses = [];
for (const [name, w] of Object.entries(windows)) {
  const added = w.page.pct - w.blank.pct;
  const limit = name.startsWith('active') ? kTargets.pageActivePct : kTargets.pageLockedPct;
  if (added > limit) misses.push(`page adds ${fmtPct(added)} (${name}) > ${limit} %`);
  if (w.watch.pct > kTargets.watchPct) misses.push(`watch ${fmtPct(w.watch.pct)} (${name}) > ${kTargets.watchPct} %`);
}
if (rssKiB > kTargets.watchRssKiB) misses.push(`watch RSS ${rssKiB} KiB > ${kTargets.watchRssKiB} KiB`);
if (percentile(fromSse, 99) > kTargets.latencyP99Ms) misses.push(`p99 from the SSE event > ${kTargets.latencyP99Ms} ms`);
if (watchExit.code !== 0) misses.push(`watch exited ${JSON.stringify(watchExit)} on SIGTERM`);
console.log(misses.length ? `\ntargets missed:\n  ${misses.join('\n  ')}` : '\nall targets of issue 20 met');
fs.rmSync(env.XDG_CONFIG_HOME, { recursive: true, force: true });
process.exit(misses.length ? 1 : 0);
