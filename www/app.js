/*
 * AntiDrift browser UI (DESIGN §11). Plain JavaScript, no build step, no
 * framework, nothing loaded from elsewhere.
 *
 * One EventSource per tab receives the whole State on every change (DESIGN
 * §10). Each runtime state has a <template> in index.html. A view is mounted
 * (cloned) only when the runtime changes, or for active/review when the
 * session changes; every later State only updates fields in place. So the
 * planning inputs are never rebuilt while the person types (seed 003,
 * "Partial-update requirement"), and focus is never moved by an update.
 *
 * Everything from the State is written with textContent. Window titles are
 * private: they are displayed and never sent anywhere.
 */
'use strict';

(function antidrift() {
  const tokenMeta = document.querySelector('meta[name="antidrift-token"]');
  const kToken = tokenMeta ? tokenMeta.getAttribute('content') : '';
  const kDefaultMinutes = 25;
  const kMaxMinutes = 720;  // 12 h, DESIGN §2
  const kSseRetryMs = 2000;
  const kCoachErrorLead = 'The coach could not help this time:';

  /** Latest accepted State; null until the first one arrives. */
  let current = null;
  /** Version of the last accepted State; only newer ones are rendered. Reset
   *  to -1 when the event stream (re)connects: a restarted daemon counts anew. */
  let lastVersion = -1;
  /** Key of the mounted view: runtime, plus the commitment id in active/review. */
  let mountedKey = '';
  /** Runtime of the mounted view. */
  let mountedRuntime = '';
  /** Server clock minus browser clock, ms (from state.now). */
  let clockOffsetMs = 0;
  /** Content key of the coach proposal already written into the inputs. */
  let appliedProposalKey = '';
  /** A /coach request is in flight. */
  let sharpenInFlight = false;
  /** Why the last /coach request was refused; shown until the next Sharpen. */
  let sharpenError = '';
  /** Key of the rendered task list, so it is rebuilt only when it changes. */
  let renderedTasksKey = '';
  /** Key of the rendered bucket chart. */
  let renderedBucketsKey = '';
  let eventSource = null;

  const byId = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- helpers

  function setText(id, text) {
    const element = byId(id);
    if (element && element.textContent !== text) element.textContent = text;
  }

  function setHidden(element, hidden) {
    if (element && element.hidden !== hidden) element.hidden = hidden;
  }

  /** Seconds as m:ss, or h:mm:ss from one hour. */
  function formatClock(totalSecs) {
    const secs = Math.max(0, Math.floor(totalSecs));
    const hours = Math.floor(secs / 3600);
    const minutes = Math.floor((secs % 3600) / 60);
    const seconds = String(secs % 60).padStart(2, '0');
    if (hours > 0) return `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`;
    return `${minutes}:${seconds}`;
  }

  /** A session length: "5 s" under a minute, otherwise whole minutes ("12 min"). */
  function formatDuration(totalSecs) {
    const secs = Math.max(1, Math.round(totalSecs));
    if (secs < 60) return `${secs} s`;
    return `${Math.round(secs / 60)} min`;
  }

  /** Browser estimate of the server's clock, UTC ms. */
  function serverNowMs() {
    return Date.now() + clockOffsetMs;
  }

  function formatWhen(utcMs) {
    if (typeof utcMs !== 'number' || utcMs <= 0) return '';
    const date = new Date(utcMs);
    const today = new Date();
    const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    if (date.toDateString() === today.toDateString()) return `today ${time}`;
    return `${date.toLocaleDateString([], { month: 'short', day: 'numeric' })} ${time}`;
  }

  /** The .error line of the mounted view (each template has one). */
  function errorElement() {
    return byId('view').querySelector('.error');
  }

  function showError(message, element) {
    const target = element || errorElement();
    if (!target) return;
    target.textContent = message;
    target.hidden = false;
  }

  function clearError(element) {
    const target = element || errorElement();
    if (target) {
      target.textContent = '';
      target.hidden = true;
    }
  }

  // ---------------------------------------------------------------- network

  /**
   * POSTs `body` as JSON with the page's token. A State in the answer is
   * rendered at once (the event stream brings the same State shortly after).
   * On failure the {"error"} sentence goes to `onError` (default: the mounted
   * view's error line) and null is returned.
   */
  async function post(path, body, onError) {
    const errorLine = errorElement();
    const report = onError || ((message) => showError(message, errorLine));
    if (!onError) clearError(errorLine);
    let response;
    try {
      response = await fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-AntiDrift-Token': kToken },
        body: JSON.stringify(body || {}),
        cache: 'no-store',
        credentials: 'same-origin',
      });
    } catch (error) {
      report('Cannot reach the AntiDrift daemon.');
      return null;
    }
    let data = null;
    try {
      data = await response.json();
    } catch (error) {
      data = null;
    }
    if (!response.ok) {
      const message = data && typeof data.error === 'string' && data.error
        ? data.error
        : `The daemon refused this (HTTP ${response.status}).`;
      report(message);
      return null;
    }
    if (data && typeof data.runtime === 'string') accept(data);
    return data || {};
  }

  async function loadState() {
    try {
      const response = await fetch('/state', { cache: 'no-store' });
      if (response.ok) accept(await response.json());
    } catch (error) {
      // The event stream reports the connection problem.
    }
  }

  function setConnection(text) {
    const element = byId('connection');
    element.textContent = text;
    element.dataset.status = text ? 'problem' : 'ok';
  }

  function connect() {
    if (eventSource) eventSource.close();
    eventSource = new EventSource('/events');
    eventSource.addEventListener('open', () => {
      // A restarted daemon may count versions from scratch.
      lastVersion = -1;
      setConnection('');
    });
    eventSource.addEventListener('state', (event) => {
      let state;
      try {
        state = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      accept(state);
    });
    eventSource.addEventListener('error', () => {
      setConnection('reconnecting…');
      if (eventSource.readyState === EventSource.CLOSED) {
        // The browser gave up (e.g. 503 when too many tabs are open): retry ourselves.
        window.setTimeout(connect, kSseRetryMs);
      }
    });
  }

  // ---------------------------------------------------------------- render

  /** Takes a State from the stream, /state or a POST answer; stale ones are ignored. */
  function accept(state) {
    if (!state || typeof state.runtime !== 'string') return;
    const version = typeof state.version === 'number' ? state.version : 0;
    if (version <= lastVersion) return;
    lastVersion = version;
    current = state;
    if (typeof state.now === 'number') clockOffsetMs = state.now - Date.now();
    document.documentElement.dataset.stateVersion = String(version);
    render(state);
  }

  function viewKey(state) {
    const session = state.commitment && state.commitment.id ? state.commitment.id : '';
    return state.runtime === 'active' || state.runtime === 'review'
      ? `${state.runtime}:${session}` : state.runtime;
  }

  const views = {
    locked: { mount: mountLocked, update: updateLocked },
    planning: { mount: mountPlanning, update: updatePlanning },
    active: { mount: mountActive, update: updateActive },
    review: { mount: mountReview, update: updateReview },
  };

  function render(state) {
    const view = views[state.runtime];
    if (!view) return;
    const key = viewKey(state);
    if (key !== mountedKey) {
      const template = byId(`tpl-${state.runtime}`);
      const root = byId('view');
      root.replaceChildren(template.content.cloneNode(true));
      root.dataset.view = state.runtime;
      mountedKey = key;
      mountedRuntime = state.runtime;
      view.mount(state);
    }
    view.update(state);
  }

  function updateCarry(id, text) {
    const element = byId(id);
    if (!element) return;
    const line = typeof text === 'string' ? text.trim() : '';
    const span = element.querySelector('.carry-text');
    if (span.textContent !== line) span.textContent = line;
    setHidden(element, line === '');
  }

  // ---------------------------------------------------------------- locked

  function mountLocked() {
    byId('plan-button').addEventListener('click', async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      await post('/planning', {});
      button.disabled = false;
    });
    byId('plan-button').focus();
    loadHistory();
  }

  function updateLocked(state) {
    updateCarry('locked-carry', state.last_carry_forward);
  }

  const kOutcomeWords = {
    completed: 'Completed',
    expired: "Time's up",
    abandoned: 'Ended early',
  };

  async function loadHistory() {
    const list = byId('history-list');
    const empty = byId('history-empty');
    let sessions = [];
    try {
      const response = await fetch('/history?n=10', { cache: 'no-store' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      sessions = Array.isArray(data.sessions) ? data.sessions : [];
    } catch (error) {
      if (empty.isConnected) empty.textContent = 'History is unavailable right now.';
      return;
    }
    if (!list.isConnected) return;  // the view changed meanwhile
    list.replaceChildren(...sessions.map(historyItem));
    setHidden(empty, sessions.length > 0);
  }

  function historyItem(session) {
    const item = document.createElement('li');
    const outcome = String(session.outcome || '');
    const badge = document.createElement('span');
    badge.className = 'badge';
    badge.dataset.outcome = outcome;
    badge.textContent = kOutcomeWords[outcome] || outcome || '—';
    const action = document.createElement('span');
    action.className = 'history-action';
    action.textContent = session.next_action || '';
    const meta = document.createElement('span');
    meta.className = 'history-meta muted small';
    const started = session.started_at;
    const ended = session.ended_at;
    const parts = [formatWhen(ended || started)];
    if (typeof started === 'number' && typeof ended === 'number' && ended > started) {
      parts.push(formatDuration((ended - started) / 1000));
    }
    meta.textContent = parts.filter(Boolean).join(' · ');
    item.append(badge, action, meta);
    return item;
  }

  // ---------------------------------------------------------------- planning

  function mountPlanning(state) {
    appliedProposalKey = '';
    renderedTasksKey = '';
    sharpenInFlight = false;
    sharpenError = '';
    const form = byId('commitment-form');
    for (const id of ['next-action', 'success-condition', 'minutes']) {
      byId(id).addEventListener('input', checkPlanning);
    }
    byId('minutes').value = String(kDefaultMinutes);
    // The configured defaults (drift.allowed_apps) are what an empty field
    // means; show them so the person sees and can edit what will apply.
    const defaults = Array.isArray(state.default_allowed_apps) ? state.default_allowed_apps : [];
    byId('allowed-apps').value = defaults.map(String).join(', ');
    byId('intent').addEventListener('input', () => updateSharpen(current));
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
  }

  /** Partial update: status lines, tasks, profile; inputs only for a new coach proposal. */
  function updatePlanning(state) {
    updateCarry('planning-carry', state.last_carry_forward);
    updateAiVisibility(state);
    updateProfile(state.knowledge && state.knowledge.profile);
    updateTasks(state.tasks);
    updatePlanningCoach(state.coach);
    updateSharpen(state);
  }

  /** True when the State says an AI backend is loaded and usable. */
  function aiAvailable(state) {
    return Boolean(state && state.ai && state.ai.available);
  }

  /**
   * AI off: the intent box and Sharpen are of no use, so they collapse into
   * one muted line; tasks stay and fill the next action instead.
   */
  function updateAiVisibility(state) {
    const aiOn = aiAvailable(state);
    setHidden(byId('intent-field'), !aiOn);
    setHidden(byId('ai-off'), aiOn);
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
      if (!aiAvailable(current)) {
        // AI off: no intent box and no Sharpen; the task becomes the next action.
        byId('next-action').value = text;
        checkPlanning();
        byId('success-condition').focus();
        return;
      }
      const intent = byId('intent');
      intent.value = text;
      updateSharpen(current);
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
    updatePlanningCoach(current && current.coach);
    updateSharpen(current);
    const answer = await post('/coach', { intent }, (message) => { sharpenError = message; });
    sharpenInFlight = false;
    // The daemon took the request: its next ready proposal answers it and is
    // written into the inputs even if it reads like the previous one.
    if (answer) appliedProposalKey = '';
    if (!button.isConnected) return;  // the view changed meanwhile
    updatePlanningCoach(current && current.coach);
    updateSharpen(current);
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
    const apps = byId('allowed-apps').value.split(',')
      .map((app) => app.trim().toLowerCase())
      .filter((app) => app !== '');
    if (apps.length > 0) body.allowed_apps = apps;
    start.dataset.busy = 'true';
    start.disabled = true;
    await post('/commitment', body);
    if (start.isConnected) {
      start.dataset.busy = 'false';
      checkPlanning();
    }
  }

  // ---------------------------------------------------------------- active

  function mountActive() {
    byId('complete').addEventListener('click', async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      await post('/complete', {});
      if (button.isConnected) button.disabled = false;
    });
    const confirmBox = byId('abandon-confirm');
    byId('abandon').addEventListener('click', () => {
      confirmBox.hidden = false;
      byId('abandon-no').focus();
    });
    byId('abandon-no').addEventListener('click', () => {
      confirmBox.hidden = true;
      byId('abandon').focus();
    });
    confirmBox.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') byId('abandon-no').click();
    });
    byId('abandon-yes').addEventListener('click', async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      await post('/abandon', {});
      if (button.isConnected) {
        button.disabled = false;
        confirmBox.hidden = true;
      }
    });
  }

  const kHealthWords = {
    ok: 'OK · seeing your windows',
    stale: 'Stale · no recent window evidence',
    unavailable: 'Unavailable · no window source',
  };

  const kDriftWords = {
    ontask: 'On task',
    unknown: 'Not judged',
    judging: 'Checking…',
    drifting: 'Drifting',
  };

  function updateActive(state) {
    const commitment = state.commitment || {};
    setText('active-next-action', String(commitment.next_action || ''));
    setText('active-success', String(commitment.success_condition || ''));
    const allowed = Array.isArray(commitment.allowed_apps)
      ? commitment.allowed_apps.map(String).filter((app) => app !== '') : [];
    setText('active-allowed', allowed.length > 0
      ? `On task in: ${allowed.join(', ')}`
      : 'No allowed apps — nothing is judged on task');

    const evidence = state.evidence || {};
    const windowNow = evidence.current;
    setText('window-app', windowNow ? String(windowNow.app || 'unknown') : '—');
    setText('window-title', windowNow ? String(windowNow.title || '') : 'no window seen yet');

    const health = byId('health');
    const healthName = evidence.away ? 'away' : String(evidence.health || 'unavailable');
    health.dataset.health = healthName;
    setText('health', healthName === 'away' ? 'Away · not at the keyboard'
      : (kHealthWords[healthName] || healthName));

    const drift = state.drift || {};
    const driftStatus = byId('drift-status');
    driftStatus.dataset.status = String(drift.status || '');
    const words = kDriftWords[drift.status] || '';
    const reason = drift.reason ? String(drift.reason) : '';
    setText('drift-status', words && reason ? `${words} · ${reason}` : (words || reason || '—'));
    updateDriftTiers(drift);
    tick();
  }

  /**
   * The two drift tiers of the active view. DESIGN §4: status "drifting"
   * shows the hard banner (reason; Back to task, This is on task, End
   * session). DESIGN §5 / seed 000: a non-empty drift.nudge shows the soft
   * "Heads up" line with a Dismiss control only, dismissed client-side and
   * keyed on the message text. Both arrive with later issues; until then the
   * State carries neither and both containers stay hidden.
   */
  function updateDriftTiers(drift) {
    void drift;
    setHidden(byId('drift-banner'), true);
    setHidden(byId('heads-up'), true);
  }

  /** Countdown and progress bar, computed locally from the last State. */
  function tick() {
    if (mountedRuntime !== 'active' || !current || !current.commitment) return;
    const commitment = current.commitment;
    const now = serverNowMs();
    let remainingMs;
    if (typeof commitment.deadline === 'number') {
      remainingMs = Math.max(0, commitment.deadline - now);
    } else {
      remainingMs = Math.max(0, (commitment.remaining_secs || 0) * 1000);
    }
    const remainingSecs = Math.ceil(remainingMs / 1000);
    const text = formatClock(remainingSecs);
    setText('countdown', text);
    setText('countdown-label', remainingSecs > 0 ? 'left' : "time's up");
    // Not mirrored into document.title: the X11 source would see the browser's
    // window title change every second and report each change as evidence.

    const totalMs = (commitment.timebox_secs || 0) * 1000;
    const startedAt = typeof commitment.started_at === 'number'
      ? commitment.started_at : now - (totalMs - remainingMs);
    const fraction = totalMs > 0 ? Math.min(1, Math.max(0, (now - startedAt) / totalMs)) : 0;
    const percent = Math.round(fraction * 1000) / 10;
    const progress = byId('progress');
    progress.setAttribute('aria-valuenow', String(Math.round(percent)));
    progress.firstElementChild.style.width = `${percent}%`;
  }

  // ---------------------------------------------------------------- review

  function mountReview() {
    renderedBucketsKey = '';
    byId('end').addEventListener('click', async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      await post('/end', {});
      if (button.isConnected) button.disabled = false;
    });
    byId('end').focus();
  }

  function updateReview(state) {
    const outcome = String(state.outcome || '');
    const outcomeElement = byId('outcome');
    outcomeElement.dataset.outcome = outcome;
    setText('outcome', kOutcomeWords[outcome] || outcome || 'Session over');
    const commitment = state.commitment || {};
    setText('review-next-action', String(commitment.next_action || ''));

    const stats = state.stats || {};
    const buckets = Array.isArray(stats.buckets) ? stats.buckets : [];
    const key = JSON.stringify(buckets);
    if (key !== renderedBucketsKey) {
      renderedBucketsKey = key;
      const largest = buckets.reduce((max, bucket) => Math.max(max, Number(bucket.secs) || 0), 0);
      byId('buckets').replaceChildren(...buckets.map((bucket) => bucketItem(bucket, largest)));
    }
    setHidden(byId('buckets-empty'), buckets.length > 0);
    setText('switches', String(stats.switches || 0));
    setText('drift-episodes', String(stats.drift_episodes || 0));
    setText('drift-time', formatClock(stats.drift_secs || 0));
    setText('away-time', formatClock(stats.away_secs || 0));

    updateRecap(state.reflection);
  }

  function bucketItem(bucket, largest) {
    const secs = Number(bucket.secs) || 0;
    const item = document.createElement('li');
    item.className = 'bucket';
    item.dataset.app = String(bucket.app || '');
    const app = document.createElement('span');
    app.className = 'bucket-app';
    app.textContent = String(bucket.app || 'unknown');
    const track = document.createElement('span');
    track.className = 'bar-track';
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${largest > 0 ? Math.max(2, (secs / largest) * 100) : 2}%`;
    track.append(bar);
    const time = document.createElement('span');
    time.className = 'bucket-time muted small';
    time.textContent = formatClock(secs);
    item.append(app, track, time);
    return item;
  }

  /** Recap: pending → a quiet line; ready → recap + carry-forward; otherwise nothing. */
  function updateRecap(reflection) {
    const status = reflection ? String(reflection.status || '') : '';
    const box = byId('recap');
    box.dataset.status = status;
    if (status === 'pending') {
      setText('recap-status', 'Writing a short recap…');
      setText('recap-text', '');
      updateCarry('recap-carry', '');
      setHidden(box, false);
    } else if (status === 'ready' && reflection.recap) {
      setText('recap-status', 'Recap');
      setText('recap-text', String(reflection.recap));
      updateCarry('recap-carry', reflection.carry_forward);
      setHidden(box, false);
    } else {
      setHidden(box, true);
    }
  }

  // ---------------------------------------------------------------- start

  window.setInterval(tick, 250);
  setConnection('connecting…');
  loadState();
  connect();
})();
