export type { MessageStore, StoredMessage } from './types.js';
export { openSqliteStorage, openStorageFromUrl, SqliteMessageStore, type Storage } from './sqlite-store.js';
export { createMemoryKeyValueStore, type KeyValue, type KeyValueStore } from './kv-store.js';
