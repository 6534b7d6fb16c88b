/**
 * The state channels whose checkpoints hold the writes of each step rather than the whole value
 * (LangGraph's `DeltaChannel`): a checkpoint rebuilds them from the writes since the nearest
 * checkpoint that stores them whole. Pruning and compaction keep that checkpoint and every one after it.
 */
export const DELTA_CHANNELS = ["messages", "memory", "run", "batch"] as const;

/** A delta channel's name. */
export type DeltaChannelName = (typeof DELTA_CHANNELS)[number];
