import { createHash } from "node:crypto";
import { coerceMessageLikeToMessage, type BaseMessage, type BaseMessageLike } from "@langchain/core/messages";
import { DeltaChannel, messagesStateReducer, type Messages } from "@langchain/langgraph";

/**
 * The deterministic id of a message written without one: a digest of the message
 * before it, its place in the thread, its type and its content. Replaying the stored writes
 * gives every message the id it got when it was written, which a random id would not.
 */
function placedId(previous: BaseMessage | undefined, position: number, message: BaseMessage): string {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  const digest = createHash("sha1")
    .update(`${previous?.id ?? ""}\n${position}\n${message.type}\n`)
    .update(content)
    .digest("hex");
  return `msg-${digest.slice(0, 32)}`;
}

function messagesOf(write: Messages): BaseMessage[] {
  const list = Array.isArray(write) ? write : [write];
  return (list as BaseMessageLike[]).map((message) => coerceMessageLikeToMessage(message));
}

/**
 * The thread's messages after a batch of writes: LangGraph's `messagesStateReducer` applied to
 * each write in order (append, replace by id, `RemoveMessage`, `REMOVE_ALL_MESSAGES`), with
 * {@link placedId} for a message that comes without an id. A left fold, so applying two batches
 * one after the other equals applying them at once, as a `DeltaChannel` requires.
 */
export function threadMessagesReducer(state: BaseMessage[], writes: Messages[]): BaseMessage[] {
  let messages = state;
  for (const write of writes) {
    const added = messagesOf(write);
    let last = messages.at(-1);
    added.forEach((message, i) => {
      if (message.id == null) {
        message.id = placedId(last, messages.length + i, message);
        message.lc_kwargs.id = message.id;
      }
      last = message;
    });
    messages = messagesStateReducer(messages, added);
  }
  return messages;
}

/** Updates of a delta channel before a full copy is stored again (LangGraph's default). */
const FULL_COPY_EVERY = 100;

/**
 * The `messages` channel: a `DeltaChannel`, so a checkpoint stores the messages a step wrote
 * (its writes) and not the whole conversation again; the saver rebuilds the list from the
 * writes since the last full copy (`getDeltaChannelHistory`).
 */
export const messagesChannel = () =>
  new DeltaChannel<BaseMessage[], Messages>(threadMessagesReducer, {
    snapshotFrequency: FULL_COPY_EVERY,
    initialValueFactory: () => [],
  });

/** A `DeltaChannel` whose value is `update` folded over each write in order. */
export function foldedChannel<Value, Update>(update: (value: Value, write: Update) => Value, initial: () => Value) {
  return new DeltaChannel<Value, Update>((value, writes) => writes.reduce(update, value), {
    snapshotFrequency: FULL_COPY_EVERY,
    initialValueFactory: initial,
  });
}
