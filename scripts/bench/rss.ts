/**
 * Preloaded (`node --import`) into a measured child by scripts/bench.ts when GNU time is not available:
 * writes the process's peak RSS in kilobytes to $BENCH_RSS_FILE when it exits.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    try {
      writeFileSync(file, `${process.resourceUsage().maxRSS}\n`);
    } catch {
      // nothing to report to
    }
  });
}
