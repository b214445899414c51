/** Hashed feature slots of the router that `router:eval` trains from `--train` (2^16). */
export const ROUTER_BUCKETS = 1 << 16;

/** Version of the shipped weights; bump it with every retraining that changes them. */
export const SHIPPED_WEIGHTS_VERSION = 'router-2026-11-21.1';
/** Seed of the shipped weights' training. */
export const SHIPPED_WEIGHTS_SEED = 7;
/** Hashed feature slots of the shipped weights (2^15 keeps the file under a megabyte). */
export const SHIPPED_BUCKETS = 1 << 15;
