// Preloaded with `node --import` into a measured process: at exit it writes the process's own CPU
// time and peak RSS to the file named by OFFSETCTL_BENCH_CPU_FILE. CPU time does not grow when a
// busy machine makes the process wait for a core, so it complements wall time on shared hosts.
import { writeFileSync } from 'node:fs';

const file = process.env['OFFSETCTL_BENCH_CPU_FILE'];
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssMb: usage.maxRSS / 1024 }));
  });
}
