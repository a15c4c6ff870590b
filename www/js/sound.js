/*
 * The optional soft sound when the timebox runs out (issue 7): a "Sound at
 * the end" toggle, off by default and remembered in localStorage, and a
 * short two-note WebAudio chime (no audio file). Turning the toggle on plays
 * the chime once, so the person hears what it will be, and lets the browser
 * start audio later without a click (its autoplay rule wants one first).
 */

import { byId } from './dom.js';

/** localStorage key of the toggle: "on" or absent. */
export const kSoundKey = 'antidrift.sound-at-end';

/** The two notes (Hz), their spacing and length (s) and the peak volume (0..1). */
const kNotes = [659.25, 880];
const kNoteSpacingSecs = 0.22;
const kNoteLengthSecs = 1.1;
const kPeakGain = 0.08;

/** One AudioContext for the page, made on first use. */
let audioContext = null;

/** True when the person turned "Sound at the end" on in this browser. */
export function soundAtEnd() {
  try {
    return window.localStorage.getItem(kSoundKey) === 'on';
  } catch (error) {
    return false;  // storage blocked: the default, off
  }
}

function rememberSoundAtEnd(on) {
  try {
    if (on) window.localStorage.setItem(kSoundKey, 'on');
    else window.localStorage.removeItem(kSoundKey);
  } catch (error) {
    // Storage blocked: the toggle holds for this page only.
  }
}

/** Wires the checkbox `id` to the remembered setting. */
export function mountSoundToggle(id) {
  const box = byId(id);
  box.checked = soundAtEnd();
  box.addEventListener('change', () => {
    rememberSoundAtEnd(box.checked);
    if (box.checked) playChime();
  });
}

/** Plays the chime when "Sound at the end" is on; silently nothing where WebAudio is missing. */
export function chimeIfWanted() {
  if (soundAtEnd()) playChime();
}

function playChime() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (typeof Context !== 'function') return;
  try {
    if (!audioContext) audioContext = new Context();
    if (audioContext.state === 'suspended') audioContext.resume().catch(() => {});
    const start = audioContext.currentTime + 0.02;
    kNotes.forEach((frequency, index) => {
      const at = start + index * kNoteSpacingSecs;
      const oscillator = audioContext.createOscillator();
      oscillator.type = 'sine';
      oscillator.frequency.value = frequency;
      const gain = audioContext.createGain();
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(kPeakGain, at + 0.03);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + kNoteLengthSecs);
      oscillator.connect(gain).connect(audioContext.destination);
      oscillator.start(at);
      oscillator.stop(at + kNoteLengthSecs + 0.05);
    });
  } catch (error) {
    // No audio device or a refused context: the notification still says it.
  }
}
