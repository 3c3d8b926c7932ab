import { useEffect, useState } from 'react';

function secondsUntil(deadlineMs: number | null): number {
  return deadlineMs === null ? 0 : Math.max(0, Math.ceil((deadlineMs - Date.now()) / 1000));
}

/** Whole seconds left until `deadlineMs` (epoch ms), ticking once a second; 0 once passed or when null. */
export function useCountdown(deadlineMs: number | null): number {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (deadlineMs === null || secondsUntil(deadlineMs) === 0) return;
    const timer = window.setInterval(() => {
      setTick((t) => t + 1);
      if (secondsUntil(deadlineMs) === 0) window.clearInterval(timer);
    }, 1000);
    return () => window.clearInterval(timer);
  }, [deadlineMs]);
  return secondsUntil(deadlineMs);
}
