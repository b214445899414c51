/** The package ships no types: it exports the Redis Cluster slot (0–16383) of a key, hash tags honoured. */
declare module 'cluster-key-slot' {
  function calculateSlot(key: string | Buffer): number;
  export = calculateSlot;
}
