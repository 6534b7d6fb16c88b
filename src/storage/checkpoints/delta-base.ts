import { DELTA_CHANNELS } from "../../contracts/checkpoints.js";

/**
 * SQL for the oldest checkpoint of a thread's namespace that the ones after it can be rebuilt
 * from: for each delta channel the newest checkpoint that stores it whole (or has never had it),
 * and of those the oldest. A checkpoint older than it is needed by no checkpoint from it on, so
 * pruning and compaction may drop it; when a channel has no such checkpoint the base is NULL and
 * nothing is dropped. `outer` names the row whose thread and namespace are meant; `where` narrows
 * the candidates (`c` is the candidate).
 */
export function sqliteRebuildBase(outer: string, where = ""): string {
  const stored = (channel: string) =>
    `(json_type(CAST(c.checkpoint AS TEXT), '$.channel_versions."${channel}"') IS NULL
      OR json_type(CAST(c.checkpoint AS TEXT), '$.channel_values."${channel}"') IS NOT NULL)`;
  const newest = DELTA_CHANNELS.map(
    (channel) => `(SELECT MAX(c.checkpoint_id) FROM checkpoints c WHERE c.thread_id = ${outer}.thread_id
      AND c.checkpoint_ns = ${outer}.checkpoint_ns AND c.type = 'json' AND ${stored(channel)}${where})`,
  );
  // SQLite's MIN of several arguments is NULL when one is; of a single one it would be the aggregate.
  return newest.length === 1 ? newest[0]! : `MIN(${newest.join(", ")})`;
}

/** {@link sqliteRebuildBase} for `PostgresSaver`'s tables, where a value stored whole is a blob of its version that is not `empty`. */
export function postgresRebuildBase(outer: string, where = ""): string {
  const stored = (channel: string) =>
    `(NOT (c.checkpoint -> 'channel_versions' ? '${channel}') OR EXISTS (SELECT 1 FROM checkpoint_blobs b
      WHERE b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns AND b.channel = '${channel}'
      AND b.version = c.checkpoint -> 'channel_versions' ->> '${channel}' AND b.type <> 'empty'))`;
  const newest = DELTA_CHANNELS.map(
    (channel) => `(SELECT MAX(c.checkpoint_id) FROM checkpoints c WHERE c.thread_id = ${outer}.thread_id
      AND c.checkpoint_ns = ${outer}.checkpoint_ns AND ${stored(channel)}${where})`,
  );
  // LEAST skips NULLs; a channel without a base keeps everything.
  return `(CASE WHEN ${newest.map((sql) => `${sql} IS NULL`).join(" OR ")} THEN NULL ELSE LEAST(${newest.join(", ")}) END)`;
}

/** Channels one history walk takes at most: the mask of the channels a checkpoint stores whole is one integer. */
export const MAX_WALKED_CHANNELS = 30;

/** Where a channel's history walk ends on a chain of checkpoints (nearest first). */
export interface WalkEnd {
  /** Index of the nearest checkpoint storing the channel whole (its seed), -1 when none does. */
  seedAt: number;
  /** Last index whose writes count: the seed's, or the oldest checkpoint's without one. */
  through: number;
}

/**
 * How `BaseCheckpointSaver.getDeltaChannelHistory` ends each channel's walk, from the masks of
 * the channels each checkpoint of the chain stores whole (bit i for `channels[i]`): at the
 * nearest checkpoint that stores it, whose own writes still count.
 */
export function walkEnds(channels: readonly string[], stored: readonly number[]): Map<string, WalkEnd> {
  return new Map(
    channels.map((channel, i) => {
      const seedAt = stored.findIndex((mask) => (mask & (1 << i)) !== 0);
      return [channel, { seedAt, through: seedAt === -1 ? stored.length - 1 : seedAt }];
    }),
  );
}
