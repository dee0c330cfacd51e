// Which page the Electron window loads. ELECTRON_RENDERER_URL is electron-vite's dev server; it
// is honoured only in a development build, so a packaged or production app can never be pointed
// at another page (which would then get the whole API over IPC) by an environment variable.

export interface RendererUrlContext {
  /** `app.isPackaged`. */
  packaged: boolean;
  env: NodeJS.ProcessEnv;
  /** The built index.html as a file: URL. */
  builtPage: string;
}

/** Whether this process is a development build: not packaged and not NODE_ENV=production. */
export function isDevelopmentBuild(context: Pick<RendererUrlContext, 'packaged' | 'env'>): boolean {
  return !context.packaged && context.env.NODE_ENV !== 'production';
}

/** The dev server's address in a development build when set, the built page otherwise. */
export function chooseRendererUrl(context: RendererUrlContext): string {
  const devServer = context.env.ELECTRON_RENDERER_URL;
  return devServer && isDevelopmentBuild(context) ? devServer : context.builtPage;
}
