import { render } from 'preact';

function App() {
  return <main><h1>Baton console</h1></main>;
}

const root = document.getElementById('app');
if (root) render(<App />, root);
