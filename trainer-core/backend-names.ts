/** `trainer.backend`'s values: `auto` picks the fastest that starts (backend.ts). */
export const BACKENDS = ['auto', 'tensorflow', 'webgpu', 'wasm', 'cpu'] as const;
export type BackendSetting = (typeof BACKENDS)[number];
