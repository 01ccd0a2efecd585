/**
 * `npm run corpus -- [options]`: the real-world sweeps over ../shared/corpus/dev-specs.txt.
 * Without `--runtime`, the compile sweep (scripts/corpus-compile.ts: generate and compile every spec);
 * with `--runtime`, the runtime sweep (scripts/runtime.ts: call every tool of a sample against a
 * validating mock of its API); with `--names`, the naming sweep (scripts/corpus-names.ts: plan the tool
 * names of every spec and count those that do not say what a tool does); with `--schemas`, the schema sweep
 * (scripts/corpus-schemas.ts: every tool's schemas checked as a strict client checks them); with `--classes`, the class
 * sweep (scripts/corpus-classes.ts: the tools each shape of framework-written documents touches, before and after); with
 * `--azure`, the Azure sweep (scripts/corpus-azure.ts: what the tools of documents written for Azure's SDKs ask of the
 * model — api-version, client parameters, next pages — and which long-running operations the client watches, before and after).
 */
import { azureSweep } from './corpus-azure.js';
import { classesSweep } from './corpus-classes.js';
import { compileSweep } from './corpus-compile.js';
import { namesSweep } from './corpus-names.js';
import { schemasSweep } from './corpus-schemas.js';
import { runtimeSweep } from './runtime.js';

const argv = process.argv.slice(2);
await (argv.includes('--runtime') ? runtimeSweep(argv)
  : argv.includes('--names') ? namesSweep(argv)
  : argv.includes('--schemas') ? schemasSweep(argv)
  : argv.includes('--classes') ? classesSweep(argv)
  : argv.includes('--azure') ? azureSweep(argv)
  : compileSweep(argv));
