import type { ChatMessage, ChatRequest } from '../domain/chat';
import { conversationTokens } from '../text/token-count';
import type { PromptShape } from './learned/prompt-features';
import { completionTokens, readPrompt, type PromptReading, type RouterModel } from './learned/router-model';

/** A request as routing reads it: what it asks for, not which model it names. */
export type ProfiledRequest = Omit<ChatRequest, 'model'> & { model?: string };

/** What routing needs to know about a request. */
export interface RequestProfile {
  promptTokens: number;
  /**
   * A bound `promptTokens` cannot exceed, known without counting: a context window above it needs no
   * count. Absent, the count is read.
   */
  promptTokensAtMost?: number;
  /** Completion tokens expected (the learned length model, capped by `max_tokens`), for the cost estimate. */
  expectedCompletionTokens: number;
  needs: { functions: boolean; vision: boolean; json: boolean };
  /** The router's reading of the prompt (its kind, ease, expected length), shared by every candidate's quality estimate. */
  reading: PromptReading;
}

function textOf(message: ChatMessage): string {
  if (message.content === null) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}

/** What the router reads of a request: each message's role and text, and how many tools it offers. */
function shapeOfRequest(request: ProfiledRequest): PromptShape {
  return { messages: request.messages.map((m) => ({ role: m.role, content: textOf(m) })), tools: request.tools?.length ?? 0 };
}

/**
 * Most tokens a conversation of these texts can count: a token holds at least one UTF-8 byte, a UTF-16
 * code unit is at most 3 bytes, and each message adds its overhead (4) and a separator.
 */
function tokensAtMost(shape: PromptShape): number {
  return shape.messages.reduce((sum, m) => sum + 3 * (m.content.length + 1) + 4, 0);
}

/**
 * A request's profile, each costly part worked out when first read: a request that names its model is
 * neither tokenised nor read by the router unless a failover ranking (or a context window the prompt
 * could reach) asks for it. Reading the prompt costs ~10 µs for a short one and ~0.1 ms per 1,000
 * characters; counting it ~50 µs per 1,000 (2-core machine, 2026-12).
 */
class LazyRequestProfile implements RequestProfile {
  readonly needs: RequestProfile['needs'];
  private shapeRead: PromptShape | undefined;
  private bound: number | undefined;
  private tokens: number | undefined;
  private readingRead: PromptReading | undefined;
  private completion: number | undefined;

  constructor(
    private readonly request: ProfiledRequest,
    private readonly router: RouterModel,
  ) {
    this.needs = {
      functions: (request.tools?.length ?? 0) > 0,
      vision: request.messages.some((m) => Array.isArray(m.content) && m.content.some((part) => part.type === 'image_url')),
      json: request.response_format !== undefined && request.response_format.type !== 'text',
    };
  }

  private get shape(): PromptShape {
    this.shapeRead ??= shapeOfRequest(this.request);
    return this.shapeRead;
  }

  /** Read once per candidate with a context window: worked out once. */
  get promptTokensAtMost(): number {
    this.bound ??= tokensAtMost(this.shape);
    return this.bound;
  }

  get promptTokens(): number {
    this.tokens ??= conversationTokens(this.shape.messages.map((m) => m.content));
    return this.tokens;
  }

  get reading(): PromptReading {
    this.readingRead ??= readPrompt(this.router, this.shape);
    return this.readingRead;
  }

  get expectedCompletionTokens(): number {
    this.completion ??= Math.min(this.request.max_tokens ?? Infinity, Math.round(completionTokens(this.router, '', this.reading)));
    return this.completion;
  }
}

/** Counts the prompt exactly and reads it with the learned router (kind, ease, expected answer length), each when first asked. */
export function profileRequest(request: ProfiledRequest, router: RouterModel): RequestProfile {
  return new LazyRequestProfile(request, router);
}
