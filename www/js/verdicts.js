/*
 * The "Remembered verdicts" list of the planning view (issue 16 item 3,
 * docs/API.md "Remembered verdicts"): GET /verdicts when the details element
 * is opened, a Clear button per verdict (DELETE /verdicts?key=…) and Clear
 * all (DELETE /verdicts). Everything is written with textContent.
 */

import { byId, clearError, setHidden, setText, showError } from './dom.js';
import { kUnreachable, remove } from './net.js';

/** Wires the details element of the freshly cloned planning template. */
export function mountVerdicts() {
  const details = byId('verdicts');
  if (!details) return;
  details.addEventListener('toggle', () => {
    if (details.open) loadVerdicts();
  });
  byId('verdicts-clear-all').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    await forget('/verdicts');
    if (button.isConnected) button.disabled = false;
  });
}

/**
 * GET /verdicts (docs/API.md "Remembered verdicts"): the parsed body, or null
 * when the daemon cannot be reached or refuses. Never throws.
 */
export async function fetchVerdicts() {
  try {
    const response = await fetch('/verdicts', { cache: 'no-store' });
    return response.ok ? await response.json() : null;
  } catch (error) {
    return null;
  }
}

/** Fetches the list and renders it; a failure is said in the list's status line. */
export async function loadVerdicts() {
  setText('verdicts-status', 'Loading…');
  const data = await fetchVerdicts();
  if (!byId('verdicts')) return;  // the view changed meanwhile
  if (!data || !Array.isArray(data.verdicts)) {
    setText('verdicts-status', kUnreachable);
    return;
  }
  render(data.verdicts);
}

function render(verdicts) {
  setText('verdicts-status', verdicts.length === 0
    ? 'Nothing remembered yet.'
    : `${verdicts.length} remembered, most recently used first.`);
  byId('verdicts-list').replaceChildren(...verdicts.map(verdictItem));
  setHidden(byId('verdicts-clear-all'), verdicts.length === 0);
}

/** What a verdict is about, as a person reads it. */
function subject(verdict) {
  const label = String(verdict.label || '');
  if (verdict.kind === 'site') return `${label} (every page, ${verdict.app})`;
  if (verdict.kind === 'page') return `${label} (${verdict.app})`;
  return label;
}

function verdictItem(verdict) {
  const item = document.createElement('li');
  const mark = document.createElement('span');
  mark.className = verdict.on_task ? 'verdict-on' : 'verdict-off';
  mark.textContent = verdict.on_task ? 'on task' : 'drift';
  const text = document.createElement('span');
  text.className = 'verdict-text';
  // The person's reasons already say "you …"; the judge's are its own sentence.
  const said = verdict.source === 'you'
    ? String(verdict.reason || 'your correction')
    : `the judge: ${verdict.reason || (verdict.on_task ? 'fits the work' : 'not the work')}`;
  text.textContent = `${subject(verdict)} · ${said}`;
  const clear = document.createElement('button');
  clear.type = 'button';
  clear.className = 'quiet small-button';
  clear.textContent = 'Clear';
  clear.setAttribute('aria-label', `Clear the remembered verdict about ${subject(verdict)}`);
  clear.addEventListener('click', async () => {
    clear.disabled = true;
    await forget(`/verdicts?key=${encodeURIComponent(String(verdict.key))}`);
    if (clear.isConnected) clear.disabled = false;
  });
  item.append(mark, text, clear);
  return item;
}

/** DELETEs `path`, then shows the list as it now is. */
async function forget(path) {
  const errorLine = byId('verdicts-error');
  clearError(errorLine);
  const answer = await remove(path, (message) => showError(message, errorLine));
  if (answer && byId('verdicts')) await loadVerdicts();
}
