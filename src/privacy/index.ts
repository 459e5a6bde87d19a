export { createPiiMasker, personalValuesKeptWhole, type PiiMasker } from './pii-masker.js';
export { createPiiMasking, type PiiMasking } from './pii-masking.js';
export { maskStorage } from './masked-storage.js';
export { maskEscalationCard, maskForSnapshot } from './mask-for-snapshot.js';
export { createDataSealer, type DataSealer } from './data-sealer.js';
export { maskUndeclared } from './mask-undeclared.js';
export { loadOrCreateDataKey, STORED_DATA_KEY } from './stored-data-key.js';
