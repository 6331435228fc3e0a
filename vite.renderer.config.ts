// The window's build on its own (`npm run build:renderer`): what the headless shell serves and
// what the end-to-end test builds when out/renderer is missing. electron-vite uses the same options.
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig, type UserConfig } from 'vite';

const root = fileURLToPath(new URL('./src-renderer', import.meta.url));
const outDir = fileURLToPath(new URL('./out/renderer', import.meta.url));

export const rendererOptions: UserConfig = {
  root,
  // Relative asset paths: the same build loads from file:// in Electron and from / over HTTP.
  base: './',
  plugins: [vue()],
  build: {
    outDir,
    emptyOutDir: true,
    rollupOptions: { input: fileURLToPath(new URL('./src-renderer/index.html', import.meta.url)) },
  },
};

export default defineConfig(rendererOptions);
