/**
 * The parts of Gemini's `generateContent` wire format (v1beta REST, camelCase JSON) that Switchyard
 * reads or writes. Fields it never touches are left out.
 */
export interface GeminiFunctionCall {
  /** Sent by some models; most leave it out, so the adapter makes its own ids. */
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

export interface GeminiPart {
  text?: string;
  /** A thought summary (only with `includeThoughts`); never part of the answer. */
  thought?: boolean;
  /** Opaque reasoning state Gemini 3 wants back on the `functionCall` parts of its own turns. */
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType: string; fileUri: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: { name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

/** `thinkingBudget`: tokens to think with; 0 switches thinking off (where the model allows), -1 lets it decide. */
export interface GeminiThinkingConfig {
  thinkingBudget: number;
}

export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  candidateCount?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  responseMimeType?: string;
  responseSchema?: Record<string, unknown>;
  thinkingConfig?: GeminiThinkingConfig;
}

export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: GeminiGenerationConfig;
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  /** Thinking tokens (Gemini 2.5 and later), billed as output but not counted in `candidatesTokenCount`. */
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiCandidate {
  /** Left out of streamed chunks and of single-candidate answers by some models: means 0. */
  index?: number;
  content?: { role?: string; parts?: GeminiPart[] };
  /** Absent until the candidate is complete. */
  finishReason?: string;
}

/** One `generateContent` answer, and also each `data:` event of `streamGenerateContent?alt=sse`. */
export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  /** Present when the prompt itself was blocked; there are no candidates then. */
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
}

/** Google's error body (`google.rpc.Status` as JSON). */
export interface GeminiErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    details?: { '@type'?: string; reason?: string; retryDelay?: string }[];
  };
}
