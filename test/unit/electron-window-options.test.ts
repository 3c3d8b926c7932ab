import { describe, expect, it } from 'vitest';
import { backOfficeWindowOptions, secureWebPreferences } from '../../electron/main/window-options';

describe('window options', () => {
  it('follows the Electron security checklist', () => {
    const prefs = backOfficeWindowOptions({ preload: '/app/out/preload/index.cjs', devTools: false }).webPreferences;
    expect(prefs).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      devTools: false,
    });
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
    expect(prefs).not.toHaveProperty('additionalArguments');
  });

  it('waits for the first paint before showing the window', () => {
    expect(backOfficeWindowOptions({ preload: '/p.cjs', devTools: true }).show).toBe(false);
  });

  it('offers developer tools only when asked (unpackaged runs)', () => {
    expect(backOfficeWindowOptions({ preload: '/p.cjs', devTools: true }).webPreferences?.devTools).toBe(true);
  });

  it('omits the preload when none is given', () => {
    expect(secureWebPreferences({ devTools: false })).not.toHaveProperty('preload');
  });
});
