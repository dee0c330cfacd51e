// Keyboard control of the turn stepper: left/right step, space plays or pauses.

export type StepperCommand = 'previous' | 'next' | 'toggle-play';

const EDITABLE = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

/** The command a key press means, or null when it is not one or is typed into a form field. */
export function stepperCommand(key: string, targetTag: string | undefined, modifiers = false): StepperCommand | null {
  if (modifiers || (targetTag !== undefined && EDITABLE.has(targetTag.toUpperCase()))) return null;
  if (key === 'ArrowLeft') return 'previous';
  if (key === 'ArrowRight') return 'next';
  if (key === ' ' || key === 'Spacebar') return 'toggle-play';
  return null;
}

/** The turn after a command, kept within [0, count - 1]. */
export function clampTurn(turn: number, count: number): number {
  if (count <= 0) return 0;
  return Math.min(count - 1, Math.max(0, turn));
}
