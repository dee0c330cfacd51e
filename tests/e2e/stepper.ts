import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** The turn counter's text at a stepper position: one per turn, then the state after the last. */
export function counterText(position: number, turns: number): string {
  return position < turns ? `turn ${position + 1} / ${turns}` : `after turn ${turns} / ${turns}`;
}

/**
 * Steps forward with the arrow key to a position, one press at a time: each press navigates
 * from the position shown, so a press before the last one has landed would be lost.
 */
export async function stepTo(page: Page, position: number, turns: number): Promise<void> {
  const shown = await page.locator('.turn-counter').innerText();
  let at = [...Array(turns + 1).keys()].find((p) => counterText(p, turns) === shown);
  if (at === undefined) throw new Error(`the turn counter reads "${shown}", not a position of ${turns} turns`);
  while (at < position) {
    await page.keyboard.press('ArrowRight');
    at++;
    await expect.poll(() => page.locator('.turn-counter').innerText()).toBe(counterText(at!, turns));
  }
}
