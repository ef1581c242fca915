// The page's side: the tools of `ui-helper` run here, in the browser, by changing the DOM.
// The SDK is served from its build (/sdk/index.js); requests go to this page's own server, which
// adds the real API key, so the page holds only a placeholder.
import { Baton } from '/sdk/index.js';

const baton = new Baton({ baseURL: location.origin, apiKey: 'proxied' });

const $ = (selector) => document.querySelector(selector);

/** Client tools: what each returns is sent back to the agent as the tool's result. */
const tools = {
  set_theme: ({ mode }) => {
    document.documentElement.classList.toggle('dark', mode === 'dark');
    return { theme: mode };
  },
  highlight_product: ({ sku }) => {
    const card = document.querySelector(`.product[data-sku="${CSS.escape(String(sku))}"]`);
    if (!card) throw new Error(`There is no product ${sku} on this page.`); // sent as an error result
    for (const other of document.querySelectorAll('.product.highlighted')) other.classList.remove('highlighted');
    card.classList.add('highlighted');
    card.scrollIntoView({ block: 'nearest' });
    return { highlighted: sku, product: card.querySelector('h3').textContent };
  },
  show_banner: ({ text }) => {
    $('#banner').textContent = text;
    $('#banner').hidden = false;
    return { banner: text };
  },
};

function say(kind, text) {
  const entry = document.createElement('li');
  entry.className = kind;
  entry.textContent = text;
  $('#transcript').append(entry);
}

let threadId;

$('#chat').addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = $('#message').value.trim();
  if (!text) return;
  $('#message').value = '';
  $('#send').disabled = true;
  say('user', text);
  try {
    threadId ??= (await baton.threads.create({ agent: 'ui-helper' })).id;
    const answer = await baton.threads.run(threadId, text, {
      tools,
      onEvent: (event) => {
        if (event.type === 'tool_result')
          say(
            'tool',
            `${event.isError ? '✗' : '✓'} ${event.call.name}(${JSON.stringify(event.call.input)}) → ${event.result}`,
          );
      },
    });
    say('agent', answer.text);
  } catch (error) {
    say('error', `${error.name}: ${error.message}`);
  } finally {
    $('#send').disabled = false;
    $('#message').focus();
  }
});
