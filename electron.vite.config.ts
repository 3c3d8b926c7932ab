import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

const root = import.meta.dirname;
const rendererRoot = resolve(root, 'renderer');

/**
 * The renderer's HTML entries, each served by the embedded server (server/http/pages.ts):
 * the staff back office at /backoffice/ and the payer pages at /checkout/:reference.
 * An entry whose index.html is absent is skipped with a warning so one half can be built
 * while the other is being written.
 */
function rendererInputs(): Record<string, string> {
  const entries = {
    backoffice: resolve(rendererRoot, 'backoffice/index.html'),
    checkout: resolve(rendererRoot, 'checkout/index.html'),
  };
  const present = Object.entries(entries).filter(([name, file]) => {
    if (existsSync(file)) return true;
    console.warn(`electron-vite: renderer entry "${name}" skipped: ${file} does not exist`);
    return false;
  });
  return Object.fromEntries(present);
}

/**
 * electron-vite forces `base: './'` for production renderer builds (right for file:// pages).
 * Ours are served over HTTP at nested client routes (/backoffice/teller/scan,
 * /checkout/cs_…/receipt), where a relative `./assets/…` would resolve under the route, so
 * asset URLs are made absolute. This plugin's config hook runs after electron-vite's preset.
 */
const absoluteBase: Plugin = {
  name: 'paydesk:absolute-asset-base',
  config: () => ({ base: '/' }),
};

export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      lib: { entry: resolve(root, 'electron/main/index.ts') },
      // better-sqlite3, fastify and the rest stay in node_modules (externalizeDeps' default):
      // the native module is rebuilt for Electron by electron-builder and cannot be bundled.
      externalizeDeps: true,
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      // index: the back office's bridge; connect: the "Connect to a server" window's form.
      lib: { entry: { index: resolve(root, 'electron/preload/index.ts'), connect: resolve(root, 'electron/preload/connect.ts') } },
      // A sandboxed preload cannot load ES modules or anything from node_modules: one CommonJS
      // file, everything it imports bundled in.
      externalizeDeps: false,
      rolldownOptions: { output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: rendererRoot,
    plugins: [react(), absoluteBase],
    build: {
      outDir: resolve(root, 'out/renderer'),
      emptyOutDir: true,
      assetsDir: 'assets',
      // Served over HTTP, the checkout to payers' phones: minified, unlike the Node-side bundles.
      minify: true,
      sourcemap: false,
      rolldownOptions: { input: rendererInputs() },
    },
  },
});
