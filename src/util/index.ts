/** Small helpers every room may use: abortable sleeps, cycle finding, safe JSON and patterns, files shipped with the package, seeded randomness, values read ahead and taken once, the bench's cost counts. Other rooms import these names from this file only. */
export { abortableSleep } from './abortable-sleep.js';
export { findCycles } from './find-cycles.js';
export { describeAjvErrors, parseAndValidate, safeJsonParse, validateValue, type SafeJsonResult } from './safe-json.js';
export { costLedger, countCost } from './cost-ledger.js';
export { packageFileUrl, packageVersion } from './package-files.js';
export { compileSafePattern, type PatternMatch, type SafePattern } from './safe-pattern.js';
export { createRandom, shuffleInPlace } from './seeded-random.js';
export { createTakeOnce, type TakeOnce } from './take-once.js';
