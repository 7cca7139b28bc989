export { attendanceDays, type DayKind, type DayResult, type DayStatus } from './engine.ts';
export { engineInputShape, shiftProblems, shiftSpans, MAX_PERIODS, WEEKDAYS, type ShiftProblemCode, type EngineInput, type GroupRules, type Holiday, type Period, type Punch, type Weekday } from './input.ts';
export { TRACE_CODES, explainStep, explained, type TraceCode, type TraceParams, type TraceStep } from './trace.ts';
