import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
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
  const inputs: Record<string, string> = Object.fromEntries(present);
  if (inputs.checkout) inputs[FIRST_FETCH_ENTRY] = resolve(rendererRoot, 'checkout/first-fetch.ts');
  return inputs;
}

/**
 * The checkout page's first reads (renderer/checkout/first-fetch.ts) are an entry of their own,
 * loaded by an `async` module script that this plugin adds to the checkout page: the HTML's own
 * module scripts would be bundled into the app's entry, which runs only once React has arrived.
 */
const FIRST_FETCH_ENTRY = 'checkout-first-fetch';
const firstFetchScript: Plugin = {
  name: 'paydesk:checkout-first-fetch',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler(_html, ctx) {
      if (!ctx.filename.endsWith('checkout/index.html') || !ctx.bundle) return;
      const chunk = Object.values(ctx.bundle).find((c) => c.type === 'chunk' && c.isEntry && c.name === FIRST_FETCH_ENTRY);
      if (!chunk) throw new Error(`renderer build: the ${FIRST_FETCH_ENTRY} chunk is missing`);
      return [{ tag: 'script', attrs: { type: 'module', async: true, crossorigin: true, src: `/${chunk.fileName}` }, injectTo: 'head-prepend' }];
    },
  },
};

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

/**
 * Every text file of the renderer (the pages' index.html and the assets) is also written
 * compressed beside itself, once at build time (`x.js.br` at brotli's best quality, `x.js.gz` at
 * gzip's), and the server picks the variant the browser accepts (server/http/pages.ts): nothing
 * is compressed per request.
 * Node's zlib makes both formats, so this needs no plugin package. A file whose compressed form
 * would not be smaller (a tiny one) is left alone and served as it is.
 */
const COMPRESSIBLE = /\.(?:js|css|html|svg|json|txt)$/;
const precompressAssets: Plugin = {
  name: 'paydesk:precompress-assets',
  apply: 'build',
  writeBundle(options, bundle) {
    if (!options.dir) return;
    for (const fileName of Object.keys(bundle)) {
      if (!COMPRESSIBLE.test(fileName)) continue;
      const file = resolve(options.dir, fileName);
      const raw = readFileSync(file);
      const br = brotliCompressSync(raw, {
        params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length },
      });
      const gz = gzipSync(raw, { level: zlib.Z_BEST_COMPRESSION });
      if (br.length < raw.length) writeFileSync(`${file}.br`, br);
      if (gz.length < raw.length) writeFileSync(`${file}.gz`, gz);
    }
  },
};

/**
 * The libraries each in a chunk of their own, so that an entry loads only the ones it imports:
 * the payer's page needs React and react-query, never zod (the back office validates its API
 * answers with it; the payer page reads types only). Left to itself the bundler put all three
 * in one chunk shared by both entries, which every payer downloaded.
 */
const VENDOR_CHUNKS = [
  { name: 'react', test: /node_modules[\\/](?:react|react-dom|scheduler)[\\/]/ },
  { name: 'react-query', test: /node_modules[\\/]@tanstack[\\/]/ },
  { name: 'zod', test: /node_modules[\\/]zod[\\/]/ },
  // The cash desk's camera reader, loaded when a teller opens the camera (test/e2e/camera-library.spec.ts).
  { name: 'zxing', test: /node_modules[\\/]@zxing[\\/]/ },
];

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
    plugins: [react(), absoluteBase, firstFetchScript, precompressAssets],
    build: {
      outDir: resolve(root, 'out/renderer'),
      emptyOutDir: true,
      assetsDir: 'assets',
      // Served over HTTP, the checkout to payers' phones: minified, unlike the Node-side bundles.
      minify: true,
      sourcemap: false,
      rolldownOptions: { input: rendererInputs(), output: { codeSplitting: { groups: VENDOR_CHUNKS } } },
    },
  },
});
