export { lastUserText } from '../../domain/chat';
export { classifyPlugins, selectable, selectPlugins, SELECTION_THRESHOLD } from './select-plugins';
export type { Classification, Selection, SelectionInput, SelectionOptions } from './types';
