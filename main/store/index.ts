export { openStore, Store, type OpenStoreOptions } from './db';
export { StoreError, type StoreErrorCode } from './errors';
export { hashConfig } from './repositories/runs';
export * from './types';
