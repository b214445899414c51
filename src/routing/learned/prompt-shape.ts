import { lastUserMessage } from '../../domain/chat';

/** A message reduced to what the router reads: its role and its text. */
export interface RoutedMessage {
  role: string;
  content: string;
}

/** What the router sees of a request. */
export interface PromptShape {
  messages: RoutedMessage[];
  /** Number of tools the request offers. */
  tools: number;
}

/** The last user message (else the last message): what the request asks now. */
export function lastUserText(shape: PromptShape): string {
  return (lastUserMessage(shape.messages) ?? shape.messages.at(-1))?.content ?? '';
}

/** A bare prompt or a message list, as evaluation files carry them. */
export function shapeOf(prompt: string | RoutedMessage[], tools = 0): PromptShape {
  return { messages: typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt, tools };
}
