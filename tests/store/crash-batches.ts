// The shape of one batch written by crash-writer.ts, shared with crash.test.ts.
export const METRICS_PER_BATCH = 500;
export const EPISODES_PER_BATCH = 10;
export const TURNS_PER_EPISODE = 3;
