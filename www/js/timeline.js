/*
 * The session timeline (issue 7): a strip over the session's time with one
 * block per span of `timeline` ({start, end, app, status}, UTC ms, oldest
 * first), coloured by drift status, the app and times in each block's
 * tooltip, start and end times under it and a legend of the statuses shown.
 * Used by the review view and by every session in the history.
 */

import { formatClock, formatTime } from './format.js';
import { finiteOr, svgElement, withTitle } from './svg.js';

/** The statuses a span can have, in legend order, with their words. */
export const kSpanStatusWords = {
  ontask: 'On task',
  drifting: 'Drifting',
  unknown: 'Not judged',
  away: 'Away',
  neutral: 'AntiDrift itself',
};

/**
 * A gap between two spans: AntiDrift was not running (a stop or a crash and
 * a restart). The daemon records spans end to end while it runs (core
 * evidence/timeline.cpp: only a restart leaves time that is no span), so any
 * gap is downtime; it is drawn and named in the legend with its length
 * (issue 17, re-walk B).
 */
export const kDownWords = 'AntiDrift not running';
/** Shortest gap between spans drawn as downtime, in ms. */
const kDownMinimumMs = 1;

/** A downtime's length as m:ss, a part second counted as a whole one (never "0:00"). */
function downLength(ms) {
  return formatClock(Math.ceil(ms / 1000));
}

/** The gaps of sanitized `spans` (oldest first): [{start, end}] in UTC ms. Pure. */
export function downtimeGaps(spans) {
  const gaps = [];
  for (let i = 1; i < spans.length; i += 1) {
    const start = spans[i - 1].end;
    const end = spans[i].start;
    if (end - start >= kDownMinimumMs) gaps.push({ start, end });
  }
  return gaps;
}

/** Width of the strip in SVG units; the strip is stretched to its box. */
const kStripUnits = 1000;
/** Narrowest block drawn, in SVG units, so a short span is still visible. */
const kMinimumBlockUnits = 2;

/**
 * The usable spans of `timeline`: those with numeric start ≤ end; an unknown
 * status counts as "unknown", a missing app as "unknown". Never throws.
 */
export function sanitizeSpans(timeline) {
  if (!Array.isArray(timeline)) return [];
  const spans = [];
  for (const span of timeline) {
    if (!span || typeof span !== 'object') continue;
    const start = finiteOr(span.start, NaN);
    const end = finiteOr(span.end, NaN);
    if (!(start <= end)) continue;
    const status = Object.hasOwn(kSpanStatusWords, span.status) ? span.status : 'unknown';
    const app = typeof span.app === 'string' && span.app !== '' ? span.app : 'unknown';
    spans.push({ start, end, app, status });
  }
  return spans;
}

/**
 * A <figure class="timeline"> for `timeline` over [startMs, endMs] (UTC ms;
 * either may be missing, then the spans' own extent is used), or null when
 * there is no usable span. `label` names the strip for screen readers;
 * `withLegend` false leaves the legend out (a list shows one for all).
 */
export function timelineFigure(timeline, {
  startMs, endMs, label = 'Session timeline', withLegend = true,
} = {}) {
  const spans = sanitizeSpans(timeline);
  if (spans.length === 0) return null;
  let from = finiteOr(startMs, spans[0].start);
  let to = finiteOr(endMs, spans[spans.length - 1].end);
  from = Math.min(from, spans[0].start);
  to = Math.max(to, spans[spans.length - 1].end, from + 1);
  const scale = kStripUnits / (to - from);

  const svg = svgElement('svg', {
    class: 'timeline-strip',
    viewBox: `0 0 ${kStripUnits} 10`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': `${label}, ${formatTime(from)} to ${formatTime(to)}`,
  });
  svg.append(svgElement('rect', { class: 'timeline-track', x: 0, y: 0, width: kStripUnits, height: 10 }));
  for (const span of spans) {
    const x = (span.start - from) * scale;
    const width = Math.max(kMinimumBlockUnits, (span.end - span.start) * scale);
    const block = svgElement('rect', {
      class: `timeline-span span-${span.status}`,
      'data-status': span.status,
      'data-app': span.app,
      x: Math.min(x, kStripUnits - width).toFixed(2),
      y: 0,
      width: width.toFixed(2),
      height: 10,
    });
    const minutes = formatClock((span.end - span.start) / 1000);
    withTitle(block, `${span.app} · ${kSpanStatusWords[span.status]} · `
      + `${formatTime(span.start)}–${formatTime(span.end)} (${minutes})`);
    svg.append(block);
  }
  const gaps = downtimeGaps(spans);
  for (const gap of gaps) {
    const x = (gap.start - from) * scale;
    const width = Math.max(kMinimumBlockUnits, (gap.end - gap.start) * scale);
    const block = svgElement('rect', {
      class: 'timeline-gap span-down',
      'data-status': 'down',
      x: Math.min(x, kStripUnits - width).toFixed(2),
      y: 0,
      width: width.toFixed(2),
      height: 10,
    });
    withTitle(block, `${kDownWords} · ${formatTime(gap.start)}–${formatTime(gap.end)} `
      + `(${downLength(gap.end - gap.start)})`);
    svg.append(block);
  }

  const axis = document.createElement('div');
  axis.className = 'timeline-axis muted small';
  const first = document.createElement('span');
  first.textContent = formatTime(from);
  const last = document.createElement('span');
  last.textContent = formatTime(to);
  axis.append(first, last);

  const figure = document.createElement('figure');
  figure.className = 'timeline';
  figure.append(svg, axis);
  if (withLegend) {
    const downMs = gaps.reduce((total, gap) => total + (gap.end - gap.start), 0);
    figure.append(timelineLegend(spans.map((span) => span.status), { downMs }));
  }
  return figure;
}

/**
 * The legend: one swatch per status in `statuses`, in kSpanStatusWords order;
 * with `downMs` > 0, one more, "AntiDrift not running (m:ss)", for the gaps
 * (`null` for a legend shared by several strips: the entry without a length).
 */
export function timelineLegend(statuses, { downMs = 0 } = {}) {
  const present = new Set(statuses);
  const list = document.createElement('ul');
  list.className = 'legend muted small';
  for (const [status, words] of Object.entries(kSpanStatusWords)) {
    if (!present.has(status)) continue;
    const item = document.createElement('li');
    item.dataset.status = status;
    const swatch = document.createElement('span');
    swatch.className = `swatch span-${status}`;
    swatch.setAttribute('aria-hidden', 'true');
    const text = document.createElement('span');
    text.textContent = words;
    item.append(swatch, text);
    list.append(item);
  }
  if (downMs === null || downMs > 0) {
    const item = document.createElement('li');
    item.dataset.status = 'down';
    const swatch = document.createElement('span');
    swatch.className = 'swatch span-down';
    swatch.setAttribute('aria-hidden', 'true');
    const text = document.createElement('span');
    text.textContent = downMs === null ? kDownWords : `${kDownWords} (${downLength(downMs)})`;
    item.append(swatch, text);
    list.append(item);
  }
  return list;
}
