// What both faces show, made once: ops data turned into the cells and sentences a person reads.
// The CLI renders them as text, the console as HTML; ops writes none of these (docs/design.md,
// "Text for people").
export { positionTable, type Align } from './positions.js';
export { plannedLine, movementTable } from './reviewed.js';
export { REQUEST_COLUMNS, requestRow, changeText, requestHeading, historyLines, statusText } from './requests.js';
