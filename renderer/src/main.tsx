import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { WordsProvider, storedLanguage } from './words/index.js';
// The stylesheets in cascade order.
import './styles/frame.css';
import './styles/controls.css';
import './styles/tables.css';
import './styles/parts.css';
import './styles/screens.css';

// The desk's language is asked first, so the first paint is already in it.
void storedLanguage().then((language) =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <WordsProvider initial={language}>
        <App />
      </WordsProvider>
    </StrictMode>,
  ),
);
