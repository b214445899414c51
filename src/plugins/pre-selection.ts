/**
 * The pre-selection classifier (`selection/`) as the rest of the service sees it: the pipeline and the
 * workers import plugin code through src/plugins' top-level files only (.dependency-cruiser.js).
 */
export { classifyPlugins, selectable, selectPlugins, SELECTION_THRESHOLD } from './selection';
export type { Classification, Selection, SelectionInput, SelectionOptions } from './selection';
