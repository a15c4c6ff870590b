/*
 * The planning view (docs/DESIGN.md §6, §11; seed 003): open tasks, the profile
 * indicator, "Last time: …", the intent box with Sharpen, the three inputs
 * and the allowed apps, Start. The inputs are filled once on mount and
 * afterwards only by a new coach proposal: a State never rebuilds them under
 * the person's fingers.
 */

import { byId, setHidden, setText, updateCarry } from './dom.js';
import { allowedAppsWarning, joinAppList, parseAppList } from './format.js';
import { post } from './net.js';
import { latestState } from './store.js';
import { mountVerdicts } from './verdicts.js';

const kDefaultMinutes = 25;
const kMaxMinutes = 720;  // 12 h, docs/DESIGN.md §2
const kCoachErrorLead = 'The coach could not help this time:';

/** Content key of the coach proposal already written into the inputs. */
let appliedProposalKey = '';
/** A /coach request is in flight. */
let sharpenInFlight = false;
/** Why the last /coach request was refused; shown until the next Sharpen. */
let sharpenError = '';
/** Key of the rendered task list, so it is rebuilt only when it changes. */
let renderedTasksKey = '';
/** Key of the rendered app choices, so the chips are rebuilt only when they change. */
let renderedChoicesKey = '';

/** Wires the freshly cloned planning template and fills its inputs once. */
export function mount(state) {
  appliedProposalKey = '';
  renderedTasksKey = '';
  renderedChoicesKey = '';
  sharpenInFlight = false;
  sharpenError = '';
  const form = byId('commitment-form');
  for (const id of ['next-action', 'success-condition', 'minutes']) {
    byId(id).addEventListener('input', checkPlanning);
  }
  byId('minutes').value = String(kDefaultMinutes);
  // The list used last time, else the configured defaults (drift.allowed_apps):
  // shown so the person sees and can edit what will apply.
  const last = Array.isArray(state.last_allowed_apps) ? state.last_allowed_apps : [];
  const defaults = Array.isArray(state.default_allowed_apps) ? state.default_allowed_apps : [];
  byId('allowed-apps').value = joinAppList(last.length > 0 ? last : defaults);
  byId('allowed-apps').addEventListener('input', updateAllowedApps);
  byId('intent').addEventListener('input', () => updateSharpen(latestState()));
  byId('intent').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      sharpen();
    }
  });
  byId('sharpen').addEventListener('click', sharpen);
  byId('cancel').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    await post('/planning/cancel', {});
    if (button.isConnected) button.disabled = false;
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    startCommitment();
  });
  byId(aiAvailable(state) ? 'intent' : 'next-action').focus();
  checkPlanning();
  updateAllowedApps();
  mountVerdicts();
}

/** Partial update: status lines, tasks, profile; inputs only for a new coach proposal. */
export function update(state) {
  updateCarry('planning-carry', state.last_carry_forward);
  updateAiVisibility(state);
  updateProfile(state.knowledge && state.knowledge.profile);
  updateTasks(state.tasks);
  updateAppChoices(state.app_choices);
  updatePlanningCoach(state.coach);
  updateSharpen(state);
}

/** True when the State says an AI backend is loaded and usable. */
function aiAvailable(state) {
  return Boolean(state && state.ai && state.ai.available);
}

/**
 * Says up front which AI is in use (ai.backend). AI off: the intent box and
 * Sharpen are of no use, so they collapse into one muted line with the
 * reason and what to do (ai.detail); tasks stay and fill the next action.
 */
function updateAiVisibility(state) {
  const aiOn = aiAvailable(state);
  const ai = (state && state.ai) || {};
  const backend = typeof ai.backend === 'string' && ai.backend ? ai.backend : 'none';
  const detail = typeof ai.detail === 'string' ? ai.detail.trim() : '';
  setHidden(byId('intent-field'), !aiOn);
  setHidden(byId('ai-on'), !aiOn);
  setHidden(byId('ai-off'), aiOn);
  setText('ai-backend', backend);
  let why = detail;
  if (!why && backend === 'none') why = 'No AI backend is configured (ai.backend = none).';
  else if (!why) why = `The ${backend} backend is not available.`;
  // The backend's name once: a detail that starts with it ("claude not found
  // on PATH: …") is not prefixed again (issue 17 item 4).
  else if (backend !== 'none' && !detail.toLowerCase().startsWith(backend.toLowerCase())) {
    why = `${backend}: ${detail}`;
  }
  setText('ai-detail', aiOn ? '' : why);
  // Issue 18 items 2 and 3: what auto found, and where the titles go.
  const found = typeof ai.found === 'string' ? ai.found : '';
  setText('ai-found', aiOn ? `${found ? ` (${found})` : ''}${ai.auto ? ' — auto' : ''}` : '');
  setText('ai-where', aiOn ? titlesGo(ai) : '');
  setHidden(byId('ai-where'), !aiOn);
}

/** "Titles stay on this machine (local 127.0.0.1:11434)." from state.ai.prompts/.destination. */
function titlesGo(ai) {
  const prompts = typeof ai.prompts === 'string' ? ai.prompts : '';
  const destination = typeof ai.destination === 'string' ? ai.destination : '';
  const where = prompts === 'local' ? 'Window titles stay on this machine'
    : prompts === 'remote' ? 'Window titles leave this machine'
      : 'Window titles go where the plugin sends them';
  const detail = destination && destination !== prompts ? ` (${destination})` : '';
  return `${where}${detail}.`;
}

/**
 * Apps seen in the last minutes and in recent sessions (state.app_choices,
 * most recent first) as chips that add or remove the app in the allowed-apps
 * field. The chips are rebuilt only when the choices change; the field is
 * written only when the person clicks one.
 */
function updateAppChoices(choices) {
  const apps = Array.isArray(choices) ? choices.map(String).filter((app) => app !== '') : [];
  const key = JSON.stringify(apps);
  if (key !== renderedChoicesKey) {
    renderedChoicesKey = key;
    byId('app-choices-list').replaceChildren(...apps.map(appChoice));
    setHidden(byId('app-choices'), apps.length === 0);
    updateAllowedApps();
  }
}

function appChoice(app) {
  const item = document.createElement('li');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'app-choice';
  button.dataset.app = app.toLowerCase();
  button.textContent = app;
  button.addEventListener('click', () => {
    const field = byId('allowed-apps');
    const apps = parseAppList(field.value);
    const name = button.dataset.app;
    field.value = joinAppList(apps.includes(name) ? apps.filter((other) => other !== name) : [...apps, name]);
    updateAllowedApps();
  });
  item.append(button);
  return item;
}

/**
 * After the allowed-apps field changed: each chip pressed when its app is
 * in the field, and a warning (not a block) when the field is empty.
 */
function updateAllowedApps() {
  const apps = parseAppList(byId('allowed-apps').value);
  for (const chip of byId('app-choices-list').querySelectorAll('.app-choice')) {
    const pressed = String(apps.includes(chip.dataset.app));
    if (chip.getAttribute('aria-pressed') !== pressed) chip.setAttribute('aria-pressed', pressed);
  }
  setText('allowed-apps-empty', allowedAppsWarning(aiAvailable(latestState())));
  setHidden(byId('allowed-apps-empty'), apps.length > 0);
}


/** Status "none" (no profile configured or readable) shows nothing. */
function updateProfile(profile) {
  const element = byId('profile');
  let text = '';
  if (profile && profile.status === 'ready') {
    const bytes = typeof profile.bytes === 'number' ? ` · ${profile.bytes} bytes` : '';
    text = `Profile loaded${bytes}`;
  } else if (profile && profile.status === 'pending') {
    text = 'Loading profile…';
  }
  element.dataset.status = profile ? String(profile.status || '') : '';
  setText('profile', text);
  setHidden(element, text === '');
}

function updateTasks(tasks) {
  const area = byId('tasks');
  const status = byId('tasks-status');
  const items = tasks && Array.isArray(tasks.items) ? tasks.items : [];
  let statusText = '';
  if (tasks && tasks.status === 'pending') statusText = 'Loading tasks…';
  setText('tasks-status', statusText);
  setHidden(status, statusText === '');
  const key = JSON.stringify(items);
  if (key !== renderedTasksKey) {
    renderedTasksKey = key;
    byId('tasks-list').replaceChildren(...items.map(taskItem));
  }
  setHidden(area, items.length === 0 && statusText === '');
}

function taskItem(task) {
  const item = document.createElement('li');
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'task';
  const text = String(task.text || '');
  if (task.priority) {
    const priority = document.createElement('span');
    priority.className = 'priority';
    priority.textContent = String(task.priority);
    button.append(priority);
  }
  const label = document.createElement('span');
  label.className = 'task-text';
  label.textContent = text;
  button.append(label);
  if (task.due) {
    const due = document.createElement('span');
    due.className = 'due muted small';
    due.textContent = `due ${task.due}`;
    button.append(due);
  }
  button.addEventListener('click', () => {
    if (!aiAvailable(latestState())) {
      // AI off: no intent box and no Sharpen; the task becomes the next action.
      byId('next-action').value = text;
      checkPlanning();
      byId('success-condition').focus();
      return;
    }
    const intent = byId('intent');
    intent.value = text;
    updateSharpen(latestState());
    intent.focus();
  });
  item.append(button);
  return item;
}

/**
 * The coach status line, and the three inputs filled once per ready
 * proposal (keyed by its content), so later edits are never overwritten.
 */
function updatePlanningCoach(coach) {
  const status = coach ? String(coach.status || '') : '';
  const line = byId('coach-status');
  let text = '';
  let shownStatus = status;
  if (status === 'pending' || sharpenInFlight) {
    text = 'thinking…';
    shownStatus = 'pending';
  } else if (sharpenError) {
    text = coachErrorText(sharpenError);
    shownStatus = 'error';
  } else if (status === 'ready') {
    text = 'Proposal filled in below. Change anything before you start.';
  } else if (status === 'error') {
    text = coachErrorText(coach.error);
  }
  line.dataset.status = shownStatus;
  setText('coach-status', text);

  // While a Sharpen request is on its way, a ready proposal is the old one.
  if (status === 'ready' && coach.proposal && !sharpenInFlight) {
    const proposal = coach.proposal;
    const key = JSON.stringify([proposal.next_action, proposal.success_condition, proposal.timebox_secs]);
    if (key !== appliedProposalKey) {
      appliedProposalKey = key;
      if (typeof proposal.next_action === 'string') byId('next-action').value = proposal.next_action;
      if (typeof proposal.success_condition === 'string') {
        byId('success-condition').value = proposal.success_condition;
      }
      if (typeof proposal.timebox_secs === 'number' && proposal.timebox_secs > 0) {
        byId('minutes').value = String(Math.max(1, Math.round(proposal.timebox_secs / 60)));
      }
      checkPlanning();
    }
  }
}

/** The daemon's reason, after a friendly lead-in; manual planning stays open. */
function coachErrorText(reason) {
  const detail = typeof reason === 'string' ? reason.trim() : '';
  return detail ? `${kCoachErrorLead} ${detail}` : kCoachErrorLead.replace(/:$/, '.');
}

function updateSharpen(state) {
  const button = byId('sharpen');
  if (!button) return;
  const aiOn = aiAvailable(state);
  const pending = Boolean(state && state.coach && state.coach.status === 'pending');
  const hasIntent = byId('intent').value.trim() !== '';
  button.disabled = !aiOn || pending || sharpenInFlight || !hasIntent;
  button.title = aiOn ? '' : 'AI off';
  button.dataset.ai = aiOn ? 'on' : 'off';
}

async function sharpen() {
  const button = byId('sharpen');
  const intent = byId('intent').value.trim();
  if (button.disabled || intent === '') return;
  sharpenInFlight = true;
  sharpenError = '';
  updatePlanningCoach(latestState() && latestState().coach);
  updateSharpen(latestState());
  const answer = await post('/coach', { intent }, (message) => { sharpenError = message; });
  sharpenInFlight = false;
  // The daemon took the request: its next ready proposal answers it and is
  // written into the inputs even if it reads like the previous one.
  if (answer) appliedProposalKey = '';
  if (!button.isConnected) return;  // the view changed meanwhile
  updatePlanningCoach(latestState() && latestState().coach);
  updateSharpen(latestState());
}

function readMinutes() {
  const raw = byId('minutes').value.trim();
  if (!/^\d+$/.test(raw)) return NaN;
  return Number(raw);
}

/**
 * Enables Start once next action, success condition and minutes are valid;
 * until then the hint under it names what is missing.
 */
function checkPlanning() {
  const start = byId('start');
  if (!start) return;
  const minutes = readMinutes();
  const missing = [];
  if (byId('next-action').value.trim() === '') missing.push('next action');
  if (byId('success-condition').value.trim() === '') missing.push('done when');
  if (!(Number.isInteger(minutes) && minutes > 0 && minutes <= kMaxMinutes)) {
    missing.push(`minutes between 1 and ${kMaxMinutes}`);
  }
  const busy = start.dataset.busy === 'true';
  start.disabled = missing.length > 0 || busy;
  const hint = missing.length > 0 && !busy ? `Still needed: ${missing.join(', ')}.` : '';
  setText('start-hint', hint);
  setHidden(byId('start-hint'), hint === '');
}

async function startCommitment() {
  const start = byId('start');
  checkPlanning();
  if (start.disabled) return;
  const body = {
    next_action: byId('next-action').value.trim(),
    success_condition: byId('success-condition').value.trim(),
    timebox_minutes: readMinutes(),
  };
  // Sent even when empty: the field starts with the defaults, so an empty
  // one means the person removed them (the warning under it says so).
  body.allowed_apps = parseAppList(byId('allowed-apps').value);
  start.dataset.busy = 'true';
  start.disabled = true;
  await post('/commitment', body);
  if (start.isConnected) {
    start.dataset.busy = 'false';
    checkPlanning();
  }
}
