// A client tool backed by your own database: the agent `inventory-desk` calls `check_inventory`,
// and this script answers from a local SQLite table (Baton never sees the database). A question
// about two products makes the model call the tool twice at once; both calls are answered in
// one round. Start Baton first (`npm start`), then:
//   BATON_API_KEY=$KEY npx tsx examples/inventory-lookup.ts ["your question"]
// BATON_URL defaults to http://127.0.0.1:8080; MODEL (default scripted:auto) may name a real model.
import Database from 'better-sqlite3';
import { Baton, defineTool } from '@baton/client';

if (!process.env.BATON_API_KEY) {
  console.error('Set BATON_API_KEY to a Baton API key (the admin key npm start printed, or BATON_ADMIN_KEY).');
  process.exit(1);
}
const baton = new Baton({
  baseURL: process.env.BATON_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.BATON_API_KEY,
});

// Your data, in your infrastructure: an in-memory database with a few products.
const db = new Database(':memory:');
db.exec(
  'CREATE TABLE products (sku TEXT, name TEXT, colour TEXT, stock INTEGER, warehouse TEXT, PRIMARY KEY (sku, warehouse))',
);
const insert = db.prepare('INSERT INTO products (sku, name, colour, stock, warehouse) VALUES (?, ?, ?, ?, ?)');
for (const row of [
  ['TR-100-RED', 'Trail Runner', 'red', 42, 'Lisbon'],
  ['TR-100-RED', 'Trail Runner', 'red', 5, 'Porto'],
  ['TR-100-BLK', 'Trail Runner', 'black', 0, 'Lisbon'],
  ['CB-200-BLK', 'City Boot', 'black', 17, 'Porto'],
  ['CB-200-BRN', 'City Boot', 'brown', 3, 'Lisbon'],
])
  insert.run(...row);
// Parameterised: the model's arguments are bound as values, never pasted into SQL.
const stockOf = db.prepare<{ name: string; colour: string | null }, { warehouse: string; stock: number }>(
  'SELECT warehouse, stock FROM products WHERE name = @name COLLATE NOCASE AND (@colour IS NULL OR colour = @colour) ORDER BY warehouse',
);

// The tool's input schema: declared on the agent, and the source of the handler's types.
const description = 'Stock of a product in our warehouses, optionally of one colour. Call it once per product.';
const parameters = {
  type: 'object',
  properties: {
    product_name: { type: 'string', description: 'The product name, e.g. Trail Runner' },
    colour: { type: 'string', enum: ['black', 'white', 'red', 'blue', 'brown'], description: 'Only this colour' },
  },
  required: ['product_name'],
} as const;

const checkInventory = defineTool({
  name: 'check_inventory',
  description,
  parameters,
  // Typed from the schema: product_name: string, colour?: 'black' | 'white' | 'red' | 'blue' | 'brown'.
  handler: ({ product_name, colour }) => {
    const rows = stockOf.all({ name: product_name, colour: colour ?? null });
    if (rows.length === 0) throw new Error(`No product named ${product_name}${colour ? ` in ${colour}` : ''}.`);
    return {
      product: product_name,
      colour: colour ?? 'any',
      in_stock: rows.reduce((sum, row) => sum + row.stock, 0),
      by_warehouse: Object.fromEntries(rows.map((row) => [row.warehouse, row.stock])),
    };
  },
});

await baton.agents.upsert({
  name: 'inventory-desk',
  model: process.env.MODEL ?? 'scripted:auto',
  instructions:
    'You answer stock questions. Call check_inventory for every product the customer asks about, all at once.',
  tools: [
    {
      name: 'check_inventory',
      description,
      parameters,
      response_schema: {
        type: 'object',
        properties: {
          product: { type: 'string' },
          colour: { type: 'string' },
          in_stock: { type: 'integer' },
          by_warehouse: { type: 'object' },
        },
        required: ['product', 'in_stock'],
      },
    },
  ],
});

const question = process.argv[2] ?? 'Do you have the Trail Runner in red and the City Boot in black?';
const thread = await baton.threads.create({ agent: 'inventory-desk' });
console.log(`> ${question}`);
// The agent declares the tool (with its response schema); here we only bring the implementation.
const answer = await baton.threads.run(thread.id, question, { tools: [checkInventory], declareTools: false });

console.log(`\n${answer.toolCalls.length} tool call(s) in ${answer.rounds} round(s):`);
for (const call of answer.toolCalls) console.log(`  ${call.name}(${JSON.stringify(call.input)}) -> ${call.result}`);
console.log(`\n${answer.text}`);
db.close();
