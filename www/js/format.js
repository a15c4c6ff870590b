/*
 * Text formats shared by the views: clocks, durations, times of day and the
 * words for session outcomes. Pure functions of their arguments.
 */

/** Seconds as m:ss, or h:mm:ss from one hour. */
export function formatClock(totalSecs) {
  const secs = Math.max(0, Math.floor(totalSecs));
  const hours = Math.floor(secs / 3600);
  const minutes = Math.floor((secs % 3600) / 60);
  const seconds = String(secs % 60).padStart(2, '0');
  if (hours > 0) return `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`;
  return `${minutes}:${seconds}`;
}

/** A session length: "5 s" under a minute, otherwise whole minutes ("12 min"). */
export function formatDuration(totalSecs) {
  const secs = Math.max(1, Math.round(totalSecs));
  if (secs < 60) return `${secs} s`;
  return `${Math.round(secs / 60)} min`;
}

/** A UTC ms time as "today 14:05" or "May 3 14:05"; "" for no time. */
export function formatWhen(utcMs) {
  if (typeof utcMs !== 'number' || utcMs <= 0) return '';
  const date = new Date(utcMs);
  const today = new Date();
  const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  if (date.toDateString() === today.toDateString()) return `today ${time}`;
  return `${date.toLocaleDateString([], { month: 'short', day: 'numeric' })} ${time}`;
}

/** The words for a session outcome (State `outcome`, SessionSummary `outcome`). */
export const kOutcomeWords = {
  completed: 'Completed',
  expired: "Time's up",
  abandoned: 'Ended early',
};

/** The apps in a comma-separated field: trimmed, lower-cased, empty ones and repeats dropped. */
export function parseAppList(text) {
  const apps = String(text).split(',').map((app) => app.trim().toLowerCase()).filter((app) => app !== '');
  return [...new Set(apps)];
}

/** Apps as the field shows them: "code, qterminal". */
export function joinAppList(apps) {
  return apps.map(String).join(', ');
}

/** A UTC ms time as the local time of day, "14:05"; "" for no time. */
export function formatTime(utcMs) {
  if (typeof utcMs !== 'number' || !Number.isFinite(utcMs) || utcMs <= 0) return '';
  return new Date(utcMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** A share 0..1 as a whole percentage, "82%"; "—" when there is none (null). */
export function formatShare(share) {
  if (typeof share !== 'number' || !Number.isFinite(share)) return '—';
  return `${Math.round(Math.min(1, Math.max(0, share)) * 100)}%`;
}

/** Seconds as whole minutes, "0 min" for less than half a minute. */
export function formatMinutes(totalSecs) {
  const secs = typeof totalSecs === 'number' && Number.isFinite(totalSecs) ? Math.max(0, totalSecs) : 0;
  return `${Math.round(secs / 60)} min`;
}

/** The words for the person's answer to "Was the success condition met?". */
export const kSuccessWords = {
  yes: 'Met',
  partly: 'Partly met',
  no: 'Not met',
};

/**
 * A carry-forward shown after "Next time:" or "Last time:", without a
 * trailing "next time" of its own ("Start smaller next time." → "Start
 * smaller."): the line must not say it twice (issue 17 item 4). Pure.
 */
export function carryLine(text) {
  const line = typeof text === 'string' ? text.trim() : '';
  const cut = line.replace(/[\s,;:–—-]*\bnext time\b\s*([.!]?)$/i, '$1').trim();
  return cut === '' || cut === '.' || cut === '!' ? line : cut;
}

/** Seconds as "45 s" under a minute, else whole minutes ("5 min"); "0 s" for none. */
function shortDuration(totalSecs) {
  const secs = typeof totalSecs === 'number' && Number.isFinite(totalSecs) ? Math.max(0, Math.round(totalSecs)) : 0;
  return secs < 60 ? `${secs} s` : `${Math.round(secs / 60)} min`;
}

/**
 * One site's drift (issue 17 item 5), {where, drift_secs, visits} →
 * "youtube.com 5 min over 6 visits". Pure.
 */
export function siteDriftLine(site) {
  const visits = Number(site && site.visits) || 0;
  return `${String((site && site.where) || '')} ${shortDuration(Number(site && site.drift_secs))}`
    + ` over ${visits} ${visits === 1 ? 'visit' : 'visits'}`;
}

/** The longest on-task stretch {secs} as "Longest on-task stretch: 12 min"; unknown without one. */
export function stretchLine(stretch) {
  if (!stretch || typeof stretch.secs !== 'number') return 'Longest on-task stretch: unknown';
  return `Longest on-task stretch: ${shortDuration(stretch.secs)}`;
}

/**
 * "4 calls · 2,310 tokens in · 95 out (estimated) · 6 s waiting" from a
 * stats.ai_cost / history ai_cost object (issue 18 item 4); "" when no call
 * was made or the object is missing.
 */
export function formatAiCost(cost) {
  const calls = cost && typeof cost === 'object' ? Number(cost.calls) || 0 : 0;
  if (calls <= 0) return '';
  const number = (value) => (Number(value) || 0).toLocaleString('en');
  const seconds = Math.round((Number(cost.wall_ms) || 0) / 1000);
  return `${calls} ${calls === 1 ? 'call' : 'calls'} · `
    + `${number(cost.input_tokens)} tokens in · ${number(cost.output_tokens)} out`
    + `${cost.estimated ? ' (estimated)' : ''} · ${seconds} s waiting`;
}

/**
 * What an empty allowed-apps list means, in planning (under the field) and in
 * the active view alike, so the two never disagree, true with the AI on and off
 * (issue 17, re-walk C): with AI, each window is judged by its title; without,
 * only titles that share the next action's words count as on task.
 */
export function allowedAppsWarning(aiOn) {
  return aiOn
    ? 'No allowed apps: no app counts as on task by itself; each window is judged by its title.'
    : 'No allowed apps: only windows whose titles share words with your next action count as on '
      + 'task; known distractions still bring up the banner, other windows are left unjudged.';
}
