import { mount } from 'svelte';
import './app.css';
import { setTheme, storedTheme } from './lib/theme';

// Before the first paint, so a dark choice never flashes light.
setTheme(storedTheme());

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

// A project window is opened as index.html?project=<path>; the first window has none. Each
// loads only its own code: the picker never parses the transcript, Markdown or highlighting.
const project = new URLSearchParams(window.location.search).get('project');
if (project) {
  const { default: ProjectWindow } = await import('./project/ProjectWindow.svelte');
  mount(ProjectWindow, { target, props: { path: project } });
} else {
  const { default: Picker } = await import('./picker/Picker.svelte');
  mount(Picker, { target });
}
