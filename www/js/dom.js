/*
 * DOM helpers shared by every view: look-ups, text and visibility updates
 * that touch the document only when something changed, and the error line
 * each view template carries. Everything is written with textContent.
 */

import { carryLine } from './format.js';

/** The element with this id, or null. */
export const byId = (id) => document.getElementById(id);

/** Sets the text of element `id` when it differs (no needless DOM writes). */
export function setText(id, text) {
  const element = byId(id);
  if (element && element.textContent !== text) element.textContent = text;
}

/** Shows or hides `element` when its state differs. */
export function setHidden(element, hidden) {
  if (element && element.hidden !== hidden) element.hidden = hidden;
}

/** The .error line of the mounted view (each template has one). */
export function errorElement() {
  return byId('view').querySelector('.error');
}

/** Shows `message` in `element` (default: the mounted view's error line). */
export function showError(message, element) {
  const target = element || errorElement();
  if (!target) return;
  target.textContent = message;
  target.hidden = false;
}

/** Empties and hides `element` (default: the mounted view's error line). */
export function clearError(element) {
  const target = element || errorElement();
  if (target) {
    target.textContent = '';
    target.hidden = true;
  }
}

/** A "Last time: …" style line: its .carry-text span, hidden when empty. */
export function updateCarry(id, text) {
  const element = byId(id);
  if (!element) return;
  const line = carryLine(text);
  const span = element.querySelector('.carry-text');
  if (span.textContent !== line) span.textContent = line;
  setHidden(element, line === '');
}
