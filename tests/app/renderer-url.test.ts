import { describe, expect, it } from 'vitest';
import { chooseRendererUrl } from '../../main/renderer-url';

const builtPage = 'file:///app/out/renderer/index.html';
const devServer = 'http://localhost:5173';

describe('the page the Electron window loads', () => {
  it('uses ELECTRON_RENDERER_URL in a development build', () => {
    expect(chooseRendererUrl({ packaged: false, env: { ELECTRON_RENDERER_URL: devServer }, builtPage })).toBe(devServer);
  });

  it('ignores ELECTRON_RENDERER_URL in a packaged app', () => {
    expect(chooseRendererUrl({ packaged: true, env: { ELECTRON_RENDERER_URL: 'https://evil.example' }, builtPage })).toBe(builtPage);
  });

  it('ignores ELECTRON_RENDERER_URL in a production build that is not packaged', () => {
    const env = { ELECTRON_RENDERER_URL: 'https://evil.example', NODE_ENV: 'production' };
    expect(chooseRendererUrl({ packaged: false, env, builtPage })).toBe(builtPage);
  });

  it('loads the built page when no dev server is set', () => {
    expect(chooseRendererUrl({ packaged: false, env: {}, builtPage })).toBe(builtPage);
  });
});
