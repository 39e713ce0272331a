// Generated from src-tauri/src/commands.rs by the desktop's `contract` test. Do not edit:
// PADDOCK_UPDATE_GENERATED=1 cargo test -p paddock-desktop --test it contract
// A stand-in for lib/api.ts in component tests: every function is a vi.fn() to script, with
// the real error normalisation. Use: vi.mock('../lib/api', () => import('../test/api-mock')).
import { vi } from 'vitest';
import type * as Api from '../lib/api';

// The real module, not the mock (importing '../lib/api' here would import this file again).
const real = await vi.importActual<typeof Api>('../lib/api');
export const toAppError = real.toAppError;

type Fn<K extends keyof typeof Api> = ReturnType<typeof vi.fn<(typeof Api)[K]>>;
const fn = <K extends keyof typeof Api>(): Fn<K> => vi.fn<(typeof Api)[K]>();

export const about = fn<'about'>();
export const addMcpServer = fn<'addMcpServer'>();
export const agentWalls = fn<'agentWalls'>();
export const alwaysAllow = fn<'alwaysAllow'>();
export const alwaysAllowHost = fn<'alwaysAllowHost'>();
export const approve = fn<'approve'>();
export const checkUpdate = fn<'checkUpdate'>();
export const checkpointDiff = fn<'checkpointDiff'>();
export const checkpointStatus = fn<'checkpointStatus'>();
export const compactSession = fn<'compactSession'>();
export const confirmPrompt = fn<'confirmPrompt'>();
export const createWorktree = fn<'createWorktree'>();
export const declineTrust = fn<'declineTrust'>();
export const deleteApiKey = fn<'deleteApiKey'>();
export const deleteSession = fn<'deleteSession'>();
export const editCompaction = fn<'editCompaction'>();
export const expandPrompt = fn<'expandPrompt'>();
export const explainCall = fn<'explainCall'>();
export const exportSession = fn<'exportSession'>();
export const hookList = fn<'hookList'>();
export const importMcpServers = fn<'importMcpServers'>();
export const installUpdate = fn<'installUpdate'>();
export const keyStatus = fn<'keyStatus'>();
export const landWorktree = fn<'landWorktree'>();
export const listAgents = fn<'listAgents'>();
export const listModels = fn<'listModels'>();
export const listSessions = fn<'listSessions'>();
export const loadSession = fn<'loadSession'>();
export const mcpStatus = fn<'mcpStatus'>();
export const mentionCandidates = fn<'mentionCandidates'>();
export const networkView = fn<'networkView'>();
export const nextNotificationClick = fn<'nextNotificationClick'>();
export const nextRunEvents = fn<'nextRunEvents'>();
export const nextWorkspaceChanges = fn<'nextWorkspaceChanges'>();
export const onNotificationClick = fn<'onNotificationClick'>();
export const openLink = fn<'openLink'>();
export const openProject = fn<'openProject'>();
export const pickProjectFolder = fn<'pickProjectFolder'>();
export const projectBranches = fn<'projectBranches'>();
export const projectInfo = fn<'projectInfo'>();
export const projectInstructions = fn<'projectInstructions'>();
export const proposeCommitMessage = fn<'proposeCommitMessage'>();
export const readWorkspaceFile = fn<'readWorkspaceFile'>();
export const recentProjects = fn<'recentProjects'>();
export const restartApp = fn<'restartApp'>();
export const revokeTrust = fn<'revokeTrust'>();
export const rewindPreview = fn<'rewindPreview'>();
export const rewindSession = fn<'rewindSession'>();
export const sandboxStatus = fn<'sandboxStatus'>();
export const saveSettings = fn<'saveSettings'>();
export const savedPrompts = fn<'savedPrompts'>();
export const searchSessions = fn<'searchSessions'>();
export const sendPrompt = fn<'sendPrompt'>();
export const sessionImage = fn<'sessionImage'>();
export const setApiKey = fn<'setApiKey'>();
export const setMcpValue = fn<'setMcpValue'>();
export const setModel = fn<'setModel'>();
export const setNetwork = fn<'setNetwork'>();
export const setPreset = fn<'setPreset'>();
export const setToolGrant = fn<'setToolGrant'>();
export const setToolRules = fn<'setToolRules'>();
export const showPicker = fn<'showPicker'>();
export const stopRun = fn<'stopRun'>();
export const testConnection = fn<'testConnection'>();
export const testToolCalling = fn<'testToolCalling'>();
export const toolGrants = fn<'toolGrants'>();
export const trustProject = fn<'trustProject'>();
export const undoCompaction = fn<'undoCompaction'>();
export const undoRewind = fn<'undoRewind'>();
export const watchWorkspace = fn<'watchWorkspace'>();
export const workspaceTree = fn<'workspaceTree'>();
export const worktreeChanges = fn<'worktreeChanges'>();
export const worktreeDiff = fn<'worktreeDiff'>();
export const worktrees = fn<'worktrees'>();
