import { readdirSync, readFileSync } from 'node:fs';
import { cpuMs, statCpuMs } from '../test/support/processes';

/**
 * Where a bench window's CPU went, on Linux (/proc): the whole machine's busy share, what the
 * hypervisor took (steal), the CPU of the servers under test (their pids), and that of the
 * PostgreSQL server when it runs on this machine. Elsewhere, or when /proc cannot be read, the readings are null.
 */

const parentOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);

/**
 * The PostgreSQL server a connection's backend runs under, by the backend's pid
 * (`pg_backend_pid()`): its postmaster's pid, or null when that backend is not a process of this
 * machine (a server elsewhere) or /proc cannot be read.
 */
export function postmasterOf(backendPid: number): number | null {
  try {
    if (readFileSync(`/proc/${backendPid}/comm`, 'utf8').trim() !== 'postgres') return null;
    const parent = parentOf(readFileSync(`/proc/${backendPid}/stat`, 'utf8'));
    return readFileSync(`/proc/${parent}/comm`, 'utf8').trim() === 'postgres' ? parent : null;
  } catch {
    return null;
  }
}

/**
 * CPU ms of one PostgreSQL server: its postmaster, with what its exited children left it
 * (cutime, cstime: a backend that ends inside a window still counts), and its live children
 * (backends of every database of that server, the WAL writer, the checkpointer, …).
 */
function postgresMs(postmaster: number): number | null {
  try {
    let total = statCpuMs(readFileSync(`/proc/${postmaster}/stat`, 'utf8'), true);
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid) || Number(pid) === postmaster) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (parentOf(stat) === postmaster) total += statCpuMs(stat);
      } catch {
        // gone between the listing and the read: its time is in the postmaster's cutime now
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
  /** The PostgreSQL server's CPU ms over the window, all its processes (null: not on this machine). */
  postgresMs: number | null;
  /** The CPU ms of the processes named when the window started (the Paydesk instances), summed. */
  serversMs: number;
  /** This process's own CPU ms (the load generator, when it runs here). */
  selfMs: number;
}

/**
 * Starts a window; the function it returns ends it and gives its readings. `postmaster`:
 * postmasterOf(); `servers`: the pids whose CPU is `serversMs` (one that cannot be read counts 0).
 */
export function cpuWindow(postmaster: number | null, servers: readonly number[] = []): () => CpuWindow {
  const serversCpu = () => servers.reduce((sum, pid) => sum + (cpuMs(pid) ?? 0), 0);
  const m0 = machineTicks();
  const pg0 = postmaster === null ? null : postgresMs(postmaster);
  const s0 = serversCpu();
  const self0 = process.cpuUsage();
  return () => {
    const m1 = machineTicks();
    const pg1 = postmaster === null ? null : postgresMs(postmaster);
    const s1 = serversCpu();
    const self = process.cpuUsage(self0);
    const span = m0 && m1 ? m1.all - m0.all : 0;
    const share = (x: number) => Math.round(x * 1000) / 1000;
    return {
      machine_busy: m0 && m1 && span > 0 ? share(1 - (m1.idle - m0.idle) / span) : null,
      steal: m0 && m1 && span > 0 ? share((m1.steal - m0.steal) / span) : null,
      postgresMs: pg0 !== null && pg1 !== null ? pg1 - pg0 : null,
      serversMs: s1 - s0,
      selfMs: (self.user + self.system) / 1000,
    };
  };
}
