import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../ui/ui.css';
import { App } from './app';
import './backoffice.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
