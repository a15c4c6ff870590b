/*
 * The two small charts of the history (issue 7) over `days` ({date
 * "YYYY-MM-DD", focused_secs, on_task_share 0..1 or null, sessions}, oldest
 * first): focused minutes per day and the on-task share per day, both as
 * bars with the value in each bar's tooltip. Plain SVG, no framework.
 */

import { formatShare } from './format.js';
import { finiteOr, svgElement, withTitle } from './svg.js';

/** Geometry in SVG units; the chart scales to its box keeping its proportions. */
const kSlotWidth = 40;
const kBarWidth = 26;
const kPlotHeight = 60;
const kTopMargin = 16;
const kLabelHeight = 18;

/** A "YYYY-MM-DD" local date as a Date, or null. */
function parseDay(text) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(text || ''));
  if (!match) return null;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
}

/** The usable days of `days`: a valid date each; numbers sanitised. Never throws. */
export function sanitizeDays(days) {
  if (!Array.isArray(days)) return [];
  const result = [];
  for (const day of days) {
    if (!day || typeof day !== 'object') continue;
    const date = parseDay(day.date);
    if (!date) continue;
    const share = finiteOr(day.on_task_share, null);
    result.push({
      date,
      focusedSecs: Math.max(0, finiteOr(day.focused_secs, 0)),
      share: share === null ? null : Math.min(1, Math.max(0, share)),
      sessions: Math.max(0, Math.round(finiteOr(day.sessions, 0))),
    });
  }
  return result;
}

function dayName(date) {
  return date.toLocaleDateString([], { weekday: 'short', month: 'short', day: 'numeric' });
}

function sessionsText(count) {
  return count === 1 ? '1 session' : `${count} sessions`;
}

/**
 * An <svg> bar chart, one slot per day: `value(day)` is the bar's height as
 * a fraction 0..1 (0: no bar; null: a dash on the base line), `text(day)` the
 * short label above a bar ("" for none), `tooltip(day)` its title.
 */
function dayBars(days, { className, label, value, text, tooltip }) {
  const width = Math.max(1, days.length) * kSlotWidth;
  const height = kTopMargin + kPlotHeight + kLabelHeight;
  const base = kTopMargin + kPlotHeight;
  const svg = svgElement('svg', {
    class: `day-chart ${className}`,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': label,
  });
  svg.append(svgElement('line', { class: 'chart-base', x1: 0, y1: base, x2: width, y2: base }));
  const today = new Date().toDateString();
  days.forEach((day, index) => {
    const center = index * kSlotWidth + kSlotWidth / 2;
    const slot = withTitle(svgElement('g', { class: 'chart-day' }), tooltip(day));
    const fraction = value(day);
    if (fraction === null) {
      slot.append(svgElement('line', {
        class: 'chart-none', x1: center - 4, y1: base - 2, x2: center + 4, y2: base - 2,
      }));
    } else {
      const barHeight = fraction > 0 ? Math.max(2, fraction * kPlotHeight) : 0;
      if (barHeight > 0) {
        slot.append(svgElement('rect', {
          class: 'chart-bar',
          x: center - kBarWidth / 2,
          y: (base - barHeight).toFixed(2),
          width: kBarWidth,
          height: barHeight.toFixed(2),
          rx: 3,
        }));
      }
      const words = text(day);
      if (words) {
        const valueLabel = svgElement('text', {
          class: 'chart-value', x: center, y: (base - barHeight - 4).toFixed(2), 'text-anchor': 'middle',
        });
        valueLabel.textContent = words;
        slot.append(valueLabel);
      }
    }
    // A transparent hit area, so the whole slot shows the tooltip.
    slot.append(svgElement('rect', {
      class: 'chart-hit', x: index * kSlotWidth, y: 0, width: kSlotWidth, height: base,
    }));
    const dayLabel = svgElement('text', {
      class: day.date.toDateString() === today ? 'chart-label today' : 'chart-label',
      x: center,
      y: height - 4,
      'text-anchor': 'middle',
    });
    dayLabel.textContent = String(day.date.getDate());
    slot.append(dayLabel);
    svg.append(slot);
  });
  return svg;
}

/** Focused (on-task) minutes per day as bars, scaled to the busiest day. */
export function focusedMinutesChart(days) {
  const largest = days.reduce((max, day) => Math.max(max, day.focusedSecs), 0);
  return dayBars(days, {
    className: 'focused-chart',
    label: 'Focused minutes per day',
    value: (day) => (largest > 0 ? day.focusedSecs / largest : 0),
    text: (day) => (day.focusedSecs >= 30 ? String(Math.round(day.focusedSecs / 60)) : ''),
    tooltip: (day) => `${dayName(day.date)}: ${Math.round(day.focusedSecs / 60)} min focused, `
      + sessionsText(day.sessions),
  });
}

/** The on-task share per day as bars from 0 to 100%; a day without evidence has none. */
export function onTaskShareChart(days) {
  return dayBars(days, {
    className: 'share-chart',
    label: 'On-task share per day',
    value: (day) => day.share,
    text: (day) => (day.share === null ? '' : formatShare(day.share)),
    tooltip: (day) => (day.share === null
      ? `${dayName(day.date)}: no window evidence`
      : `${dayName(day.date)}: ${formatShare(day.share)} on task, ${sessionsText(day.sessions)}`),
  });
}
