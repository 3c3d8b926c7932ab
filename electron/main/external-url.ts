import { shell } from 'electron';
import { isSafeExternalUrl } from './url-policy';

/** Opens a vetted URL in the system browser; answers false (and opens nothing) otherwise. */
export async function openExternalVetted(raw: unknown): Promise<boolean> {
  if (!isSafeExternalUrl(raw)) return false;
  await shell.openExternal(new URL(raw).toString(), { activate: true });
  return true;
}
