import { useEffect, useRef } from 'react';

/**
 * Moves keyboard and screen-reader focus to the element (a step heading with tabIndex -1) when it
 * mounts or when `key` changes, so each new step of the flow is announced and Tab starts there.
 */
export function useFocusOnChange<T extends HTMLElement>(key: unknown = null, enabled = true) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (!enabled) return;
    const el = ref.current;
    if (!el) return;
    el.focus({ preventScroll: true });
    if (typeof el.scrollIntoView === 'function') {
      const rect = el.getBoundingClientRect();
      if (rect.top < 0 || rect.top > window.innerHeight * 0.6) el.scrollIntoView({ block: 'start', behavior: 'smooth' });
    }
  }, [key, enabled]);
  return ref;
}
