// A stand-in for lib/api.ts in component tests: every command is a vi.fn() to script, with
// the real error normalisation. Use: vi.mock('../lib/api', () => import('../test/api-mock')).
import { vi } from 'vitest';
import type * as Api from '../lib/api';

// The real module, not the mock (importing '../lib/api' here would import this file again).
const real = await vi.importActual<typeof Api>('../lib/api');
export const toAppError = real.toAppError;

type Fn<K extends keyof typeof Api> = ReturnType<typeof vi.fn<(typeof Api)[K]>>;
const fn = <K extends keyof typeof Api>(): Fn<K> => vi.fn<(typeof Api)[K]>();

export const recentProjects = fn<'recentProjects'>();
export const pickProjectFolder = fn<'pickProjectFolder'>();
export const openProject = fn<'openProject'>();
export const showPicker = fn<'showPicker'>();
export const projectInfo = fn<'projectInfo'>();
export const saveSettings = fn<'saveSettings'>();
export const trustProject = fn<'trustProject'>();
export const declineTrust = fn<'declineTrust'>();
export const revokeTrust = fn<'revokeTrust'>();
export const toolGrants = fn<'toolGrants'>();
export const setToolGrant = fn<'setToolGrant'>();
export const setPreset = fn<'setPreset'>();
export const mcpStatus = fn<'mcpStatus'>();
export const setToolRules = fn<'setToolRules'>();
export const addMcpServer = fn<'addMcpServer'>();
export const importMcpServers = fn<'importMcpServers'>();
export const setMcpValue = fn<'setMcpValue'>();
export const explainCall = fn<'explainCall'>();
export const setModel = fn<'setModel'>();
export const keyStatus = fn<'keyStatus'>();
export const setApiKey = fn<'setApiKey'>();
export const deleteApiKey = fn<'deleteApiKey'>();
export const listModels = fn<'listModels'>();
export const testConnection = fn<'testConnection'>();
export const testToolCalling = fn<'testToolCalling'>();
export const sendPrompt = fn<'sendPrompt'>();
export const stopRun = fn<'stopRun'>();
export const approve = fn<'approve'>();
export const openLink = fn<'openLink'>();
export const alwaysAllow = fn<'alwaysAllow'>();
export const listSessions = fn<'listSessions'>();
export const searchSessions = fn<'searchSessions'>();
export const loadSession = fn<'loadSession'>();
export const deleteSession = fn<'deleteSession'>();
export const exportSession = fn<'exportSession'>();
export const checkpointDiff = fn<'checkpointDiff'>();
export const rewindPreview = fn<'rewindPreview'>();
export const rewindSession = fn<'rewindSession'>();
export const undoRewind = fn<'undoRewind'>();
export const compactSession = fn<'compactSession'>();
export const undoCompaction = fn<'undoCompaction'>();
export const editCompaction = fn<'editCompaction'>();
export const projectInstructions = fn<'projectInstructions'>();
export const workspaceTree = fn<'workspaceTree'>();
export const readWorkspaceFile = fn<'readWorkspaceFile'>();
export const watchWorkspace = fn<'watchWorkspace'>();
export const sandboxStatus = fn<'sandboxStatus'>();
export const onNotificationClick = fn<'onNotificationClick'>();
