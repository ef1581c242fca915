/**
 * The API key lives in sessionStorage: it survives a reload of the tab but not closing it, and
 * is never shared with other tabs. Storage can throw (disabled, private mode), so each access is
 * guarded and the console then simply asks again.
 */
const STORAGE_KEY = 'baton.console.apiKey';

export function loadKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function saveKey(key: string): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, key);
  } catch {
    // Works for this page view only.
  }
}

export function clearKey(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing stored.
  }
}
