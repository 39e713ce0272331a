import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { setTheme, storedTheme } from './lib/theme';

// Before the first paint, so a dark choice never flashes light.
setTheme(storedTheme());

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

export default mount(App, { target });
