import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
// The stylesheets in cascade order.
import './styles/frame.css';
import './styles/controls.css';
import './styles/tables.css';
import './styles/parts.css';
import './styles/screens.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
