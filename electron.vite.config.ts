import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import vue from '@vitejs/plugin-vue';

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/main',
      rollupOptions: { input: { index: resolve(__dirname, 'main/index.ts') } },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/preload',
      // Sandboxed preload scripts must be CommonJS: Electron cannot load an ES module there.
      rollupOptions: {
        input: { index: resolve(__dirname, 'preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    plugins: [vue()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      // Minified: `turnlab serve` sends these files over the network (compressed, see main/http.ts).
      minify: 'esbuild',
      // The charts chunk (ECharts, about 550 kB, 171 kB compressed) loads only with a chart view.
      chunkSizeWarningLimit: 600,
      rollupOptions: {
        input: { index: resolve(__dirname, 'renderer/index.html') },
        // The charts library in a chunk of its own name, loaded with the first view that draws charts.
        output: { manualChunks: (id: string) => (/node_modules\/(echarts|zrender)\//.test(id) ? 'charts' : undefined) },
      },
    },
  },
});
