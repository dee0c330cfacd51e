// `turnlab play` prints an observation as the model reads it: an env's escape codes are shown, not obeyed by the terminal.
import { describe, expect, it } from 'vitest';
import { visibleControls } from '../../main/cli/format';

describe('visibleControls', () => {
  it('shows control characters as their pictures and keeps line breaks, tabs and other text', () => {
    expect(visibleControls('\x1b[31mP\x1b[0m_\x07\r\x7f')).toBe('␛[31mP␛[0m_␇␍␡');
    expect(visibleControls('a\tb\nc é 🧊')).toBe('a\tb\nc é 🧊');
  });
});
