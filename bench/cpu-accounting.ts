import { readdirSync, readFileSync } from 'node:fs';

/**
 * Where a bench window's CPU went, on Linux (/proc): the whole machine's busy share, what the
 * hypervisor took (steal), and the CPU of PostgreSQL's processes on this machine. Elsewhere, or
 * when /proc cannot be read, the readings are null and the lines leave them out.
 */

const USER_HZ = 100;

/** utime + stime (+ cutime + cstime with `children`) in ms, from the text of a /proc stat file. */
function statMs(stat: string, children = false): number {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is stat(5)'s field 3: utime 14, stime 15, cutime 16, cstime 17.
  const ticks = Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
  return (ticks * 1000) / USER_HZ;
}

/**
 * CPU ms of every process named `postgres`, plus what the ones that already exited left to their
 * parent (the postmaster's cutime and cstime): a backend that ends inside a window still counts.
 */
function postgresMs(): number | null {
  try {
    let total = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const parent = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
        const parentIsPostgres = (() => {
          try {
            return readFileSync(`/proc/${parent}/comm`, 'utf8').trim() === 'postgres';
          } catch {
            return false;
          }
        })();
        total += statMs(stat, !parentIsPostgres);
      } catch {
        // gone between the listing and the read
      }
    }
    return total;
  } catch {
    return null;
  }
}

/** Jiffies of the machine's CPUs: all, idle (idle + iowait) and stolen, from /proc/stat's first line. */
function machineTicks(): { all: number; idle: number; steal: number } | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user)
    const all = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
    return { all, idle: cpu[3]! + cpu[4]!, steal: cpu[7]! };
  } catch {
    return null;
  }
}

export interface CpuWindow {
  /** The share of all cores busy (0–1) over the window, stolen time included. */
  machine_busy: number | null;
  /** The share of all cores the hypervisor gave to someone else (0–1). */
  steal: number | null;
  /** PostgreSQL's CPU ms over the window, all its processes. */
  postgresMs: number | null;
  /** This process's own CPU ms (the load generator, when it runs here). */
  selfMs: number;
}

/** Starts a window; the function it returns ends it and gives its readings. */
export function cpuWindow(): () => CpuWindow {
  const m0 = machineTicks();
  const pg0 = postgresMs();
  const self0 = process.cpuUsage();
  return () => {
    const m1 = machineTicks();
    const pg1 = postgresMs();
    const self = process.cpuUsage(self0);
    const span = m0 && m1 ? m1.all - m0.all : 0;
    const share = (x: number) => Math.round(x * 1000) / 1000;
    return {
      machine_busy: m0 && m1 && span > 0 ? share(1 - (m1.idle - m0.idle) / span) : null,
      steal: m0 && m1 && span > 0 ? share((m1.steal - m0.steal) / span) : null,
      postgresMs: pg0 !== null && pg1 !== null ? pg1 - pg0 : null,
      selfMs: (self.user + self.system) / 1000,
    };
  };
}
