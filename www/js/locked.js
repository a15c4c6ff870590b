/*
 * The locked view (docs/DESIGN.md §11): "Plan next session", the last carry-forward
 * and the history.
 */

import { byId, updateCarry } from './dom.js';
import { loadHistory } from './history.js';
import { post } from './net.js';

/** Wires the freshly cloned locked template. */
export function mount() {
  byId('plan-button').addEventListener('click', async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    await post('/planning', {});
    button.disabled = false;
  });
  byId('plan-button').focus();
  loadHistory();
}

/** Partial update from a new State. */
export function update(state) {
  updateCarry('locked-carry', state.last_carry_forward);
}
