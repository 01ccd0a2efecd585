/**
 * A real framework: the generated MCP server driven against an ASP.NET Core 10 app (test/fixtures/frameworks/aspnetcore,
 * a small shop: products as Minimal APIs with TypedResults, orders as an [ApiController]), generated from each of the
 * three OpenAPI documents the app serves of the same endpoints, each written at run time by another generator:
 * Microsoft.AspNetCore.OpenApi 10 (OpenAPI 3.1, numbers as `type: [integer, string]`), Swashbuckle 10 (OpenAPI 3.0,
 * polymorphism as a oneOf of allOf-built types on a base with a discriminator) and NSwag 14 (OpenAPI 3.0, the base
 * with the discriminator's mapping; its document puts the upload's form field in the query, which
 * nswag-upload.overlay.yaml fixes). The app is built once into a scratch folder and started on 127.0.0.1; the three
 * projects are generated with `init` from the documents as served, and built in one `dotnet build`. The tools are
 * called as an assistant calls them (MCP tools/call), and every effect is checked in the app's SQLite database
 * (sqlite3 CLI), besides the tool's answer.
 *
 * The same checks run against each document's server. Each check arranges the rows it needs through the app's API,
 * so that one failure does not fail the next. Checks that fail are not weakened or skipped: they are the generator's
 * defects (issue 44) until fixed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { scratchDir } from './support/scratch.js';
import { call, success, type Answer } from './support/real-apis.js';
import {
  assertError, buildShop, day, quote, setUpShopServers, SHOP_DOCUMENT_NAMES, SHOP_DOCUMENTS, SHOP_TOOLS, startShop, textBlocks, types,
  type Json, type ShopServer, type ShopServers,
} from './support/frameworks/aspnetcore.js';

describe('generated MCP servers against an ASP.NET Core 10 app, from each of its three OpenAPI documents (on 127.0.0.1)', { timeout: 20 * 60_000 }, () => {
  let work = '';
  let shop: ShopServer | undefined;
  const servers: ShopServers = { clients: new Map(), strangers: new Map(), tools: new Map(), schemas: new Map() };
  const { clients, strangers, tools, schemas } = servers;

  before(async () => {
    work = scratchDir('framework-aspnetcore');
    // The app first (it serves the documents), then init from each document as served, then one build of the three.
    shop = await startShop(await buildShop());
    // Each server with the app's API key and a token of its own subject; a stranger with a wrong key and an expired token.
    await setUpShopServers(work, shop, servers);
  });

  after(async () => {
    await Promise.allSettled([...clients.values(), ...strangers.values()].map((client) => client.close()));
    await shop?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  for (const document of SHOP_DOCUMENT_NAMES) {
    describe(`from the document of ${SHOP_DOCUMENTS[document].generator}`, () => {
      /** SKUs and names of this document's rows: the database is shared by the three. */
      const letters = { microsoft: 'MSO', swashbuckle: 'SWB', nswag: 'NSW' }[document];
      let counter = 0;
      const sku = (): string => `${letters}-${String(++counter).padStart(4, '0')}`;
      const email = (what: string): string => `${what}.${document}@shop.example`;
      const tool = (name: string, args: Json = {}): Promise<Answer> => call(clients.get(document)!, tools.get(document)!, name, args);
      /** Every text block of the answer: the answer, then what the server adds beside it (response headers). */
      const blocks = (name: string, args: Json): Promise<string[]> => textBlocks(clients.get(document)!, name, args);
      const rows = (sql: string): Json[] => shop!.rows(sql);
      const row = (sql: string): Json | undefined => rows(sql)[0];
      const productInput = (name: string, more: Json = {}): Json =>
        ({ name: `${document} ${name}`, sku: sku(), category: 'Games', price: 12.5, stock: 30, weightKg: 1.25, tags: [], ...more });
      const addProduct = async (name: string, more: Json = {}): Promise<number> => Number((await shop!.api('/api/products', { body: productInput(name, more) })).id);
      const card = { kind: 'card', amount: 25, cardholder: 'Ada Lovelace', last4: '4242' };
      const addOrder = async (customer: string, productId: number, quantity = 1, payment: Json = card): Promise<number> =>
        Number((await shop!.api('/api/orders', { body: { customerEmail: customer, deliverBy: day(30), lines: [{ productId, quantity }], payment } })).id);
      /** A property of a tool's body argument, as tools/list publishes it. */
      const bodyProperty = (toolName: string, property: string): Json => schemas.get(document)!.get(toolName)?.properties?.body?.properties?.[property] ?? {};

      test('tools/list: one tool per operation of the document', () => {
        assert.deepEqual([...tools.get(document)!].sort(), SHOP_TOOLS);
      });

      test('numbers: int, long, decimal and double properties are integer or number arguments with their bounds; a stock of -5 is refused before sending, no row added', async () => {
        const stock = bodyProperty('create_product', 'stock');
        assert.deepEqual([types(stock), stock.minimum, stock.maximum], [['integer'], 0, 100_000], JSON.stringify(stock));
        const barcode = bodyProperty('create_product', 'barcode');
        assert.deepEqual([types(barcode).filter((t) => t !== 'null'), barcode.minimum, barcode.maximum], [['integer'], 1, 9_999_999_999_999], JSON.stringify(barcode));
        const price = bodyProperty('create_product', 'price');
        assert.deepEqual([types(price), price.minimum, price.maximum], [['number'], 0.01, 100_000], JSON.stringify(price));
        const weight = bodyProperty('create_product', 'weightKg');
        assert.deepEqual([types(weight), weight.minimum, weight.maximum], [['number'], 0, 500], JSON.stringify(weight));
        const page = schemas.get(document)!.get('list_products')?.properties?.page ?? {};
        assert.deepEqual([types(page), page.minimum, page.maximum], [['integer'], 1, 1000], JSON.stringify(page));
        const input = productInput('Negative stock', { stock: -5 });
        assertError(await tool('create_product', { body: input }), /'body\.stock'/, /at least 0/);
        assert.deepEqual(rows(`SELECT id FROM products WHERE sku = ${quote(input.sku)}`), []);
      });

      test("polymorphism: each payment variant of create_order pins its discriminator (kind: card, invoice); a card payment without the card's fields is refused, no order", async () => {
        const payment = bodyProperty('create_order', 'payment');
        const variants = ((payment.oneOf ?? payment.anyOf ?? []) as Json[]).filter((variant) => types(variant).join() !== 'null');
        const pinned = variants.map((variant) => {
          const kind = variant.properties?.kind ?? {};
          return kind.const ?? (Array.isArray(kind.enum) && kind.enum.length === 1 ? kind.enum[0] : `unpinned: ${JSON.stringify(kind)}`);
        });
        assert.deepEqual(pinned.sort(), ['card', 'invoice'], JSON.stringify(payment));
        const productId = await addProduct('Spinning top');
        const customer = email('cardless');
        assertError(await tool('create_order', { body: { customerEmail: customer, deliverBy: day(5), lines: [{ productId, quantity: 1 }], payment: { kind: 'card', amount: 12.5, dueDays: 30 } } }),
          /cardholder/i, /last4/i);
        assert.deepEqual(rows(`SELECT id FROM orders WHERE customer_email = ${quote(customer)}`), []);
      });

      test('create_product: the row has every column as given (a long barcode, a decimal price and discount, a double weight, a date, an enum, tags)', async () => {
        const input = productInput('Go board — 19×19', {
          category: 'Games', price: 89.9, stock: 12, weightKg: 3.75, barcode: 4_006_381_333_931, discount: 0.15, reorderLevel: 4,
          releasedOn: '2021-03-14', description: 'Kaya wood, „hand-lined”', tags: ['wood', 'go'],
        });
        const answer = success(await tool('create_product', { body: input }));
        assert.deepEqual(row(`SELECT name, sku, category, CAST(price AS REAL) AS price, stock, weight_kg, barcode, CAST(discount AS REAL) AS discount, reorder_level, released_on, description, tags FROM products WHERE id = ${Number(answer.id)}`), {
          name: input.name, sku: input.sku, category: 'Games', price: 89.9, stock: 12, weight_kg: 3.75, barcode: 4_006_381_333_931, discount: 0.15,
          reorder_level: 4, released_on: '2021-03-14', description: 'Kaya wood, „hand-lined”', tags: '["wood","go"]',
        });
      });

      test("create_product: the 201's Location reaches the model beside the answer", async () => {
        const [answer, ...more] = await blocks('create_product', { body: productInput('Located') });
        const id = Number(JSON.parse(answer!).id);
        assert.deepEqual(rows(`SELECT id FROM products WHERE id = ${id}`), [{ id }]);
        assert.match(more.join('\n'), new RegExp(`^Location: (${shop!.origin})?/api/products/${id}$`, 'im'));
      });

      test('get_product: the product as the database has it', async () => {
        const id = await addProduct('Backgammon', { barcode: 5_901_234_123_457, releasedOn: '2019-11-02', discount: 0.1 });
        const answer = success(await tool('get_product', { id }));
        const stored = row(`SELECT * FROM products WHERE id = ${id}`)!;
        assert.deepEqual([answer.id, answer.name, answer.sku, answer.category, answer.price, answer.stock, answer.weightKg, answer.barcode, answer.discount, answer.releasedOn],
          [id, stored.name, stored.sku, stored.category, Number(stored.price), stored.stock, stored.weight_kg, stored.barcode, Number(stored.discount), stored.released_on]);
      });

      test('list_products filtered by name, category and lowest price, second page of two: the rows the database selects, and the total', async () => {
        const marker = `${document}-shelf`;
        for (const [name, category, price] of [['A', 'Games', 5], ['B', 'Games', 10], ['C', 'Games', 15], ['D', 'Games', 20], ['E', 'Garden', 25]] as const) {
          await addProduct(`${marker} ${name}`, { category, price });
        }
        const answer = success(await tool('list_products', { search: marker.toUpperCase(), category: 'Games', minPrice: 8, page: 2, pageSize: 2 }));
        const where = `instr(lower(name), ${quote(marker)}) > 0 AND category = 'Games' AND CAST(price AS REAL) >= 8`;
        assert.deepEqual((answer.items as Json[]).map((p) => p.name), rows(`SELECT name FROM products WHERE ${where} ORDER BY name, id LIMIT 2 OFFSET 2`).map((r) => r.name));
        assert.deepEqual((answer.items as Json[]).map((p) => p.name), [`${document} ${marker} D`]);
        assert.deepEqual([answer.total, answer.page, answer.pageSize], [row(`SELECT count(*) AS n FROM products WHERE ${where}`)!.n, 2, 2]);
      });

      test('update_product: the new values in the row, nullable ones cleared with null, another category', async () => {
        const code = sku();
        const id = await addProduct('Garden gnome', { sku: code, category: 'Garden', barcode: 4_000_000_000_017, discount: 0.2, description: 'Waves', reorderLevel: 2 });
        const answer = success(await tool('update_product', { id, body: {
          name: `${document} Kitchen gnome`, sku: code, category: 'Kitchen', price: 19.99, stock: 7, weightKg: 0.5,
          barcode: null, discount: null, description: null, reorderLevel: 3, releasedOn: null, tags: ['ceramic', 'gift', 'small'],
        } }));
        assert.equal(answer.category, 'Kitchen');
        assert.deepEqual(row(`SELECT name, category, CAST(price AS REAL) AS price, stock, weight_kg, barcode, discount, description, reorder_level, released_on, tags FROM products WHERE id = ${id}`), {
          name: `${document} Kitchen gnome`, category: 'Kitchen', price: 19.99, stock: 7, weight_kg: 0.5, barcode: null, discount: null, description: null,
          reorder_level: 3, released_on: null, tags: '["ceramic","gift","small"]',
        });
      });

      test('delete_product: the row is gone, and so is its file', async () => {
        const id = await addProduct('Old puzzle');
        const form = new FormData();
        form.set('file', new Blob(['x']), 'old.txt');
        const uploaded = await fetch(`${shop!.origin}/api/products/${id}/image`, { method: 'POST', headers: { 'x-api-key': shop!.apiKey }, body: form });
        assert.equal(uploaded.status, 200, await uploaded.text());
        assert.deepEqual(success(await tool('delete_product', { id })), { status: 204 });
        assert.deepEqual([rows(`SELECT id FROM products WHERE id = ${id}`), rows(`SELECT product_id FROM product_images WHERE product_id = ${id}`)], [[], []]);
      });

      test('get_product of an id that does not exist: the ProblemDetails reason and the 404', async () => {
        assertError(await tool('get_product', { id: 987_654 }), /Product not found/, /There is no product 987654/, /\(HTTP 404\)/);
      });

      test('create_product with a reorder level above the stock: the ValidationProblemDetails reason naming the field, no row added', async () => {
        const input = productInput('Overstocked', { stock: 3, reorderLevel: 5 });
        assertError(await tool('create_product', { body: input }), /ReorderLevel/, /The reorder level \(5\) cannot be above the stock \(3\)/, /\(HTTP 400\)/);
        assert.deepEqual(rows(`SELECT id FROM products WHERE sku = ${quote(input.sku)}`), []);
      });

      test('create_product in a category the enum does not have: refused, naming the categories it has, no row added', async () => {
        const input = productInput('Teddy bear', { category: 'Toys' });
        assertError(await tool('create_product', { body: input }), /category/, /Books/, /Kitchen/);
        assert.deepEqual(rows(`SELECT id FROM products WHERE sku = ${quote(input.sku)}`), []);
      });

      test("create_product_image: the file's bytes, name and media type, and the caption, in the database", async () => {
        const id = await addProduct('Chess clock');
        const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0x0a, 0x00, 0xff, 0xfe, 0x80, 0x10]);
        const answer = success(await tool('create_product_image', { id, body: {
          file: { content: bytes.toString('base64'), fileName: 'data-sheet.pdf', contentType: 'application/pdf' },
          caption: 'Data sheet',
        } }));
        assert.deepEqual(row(`SELECT file_name, content_type, hex(bytes) AS hex, caption FROM product_images WHERE product_id = ${id}`),
          { file_name: 'data-sheet.pdf', content_type: 'application/pdf', hex: bytes.toString('hex').toUpperCase(), caption: 'Data sheet' });
        assert.deepEqual([answer.fileName, answer.contentType, answer.length], ['data-sheet.pdf', 'application/pdf', bytes.length]);
      });

      test('create_order by card: the order with its nested lines, date, request id header and the token\'s subject; the units taken from stock', async () => {
        const [first, second] = [await addProduct('Dice set', { price: 4.5 }), await addProduct('Card deck', { price: 3.25 })];
        const customer = email('card');
        const deliverBy = day(21);
        const answer = success(await tool('create_order', { xRequestId: `req-${document}-1`, body: {
          customerEmail: customer, deliverBy, lines: [{ productId: first, quantity: 2 }, { productId: second, quantity: 1 }], payment: card, note: 'Gift wrap',
        } }));
        const order = row(`SELECT * FROM orders WHERE customer_email = ${quote(customer)}`)!;
        assert.equal(order.id, answer.id);
        assert.deepEqual([order.status, order.deliver_by, order.payment_kind, JSON.parse(order.payment as string), Number(order.total), order.note, order.request_id, order.created_by],
          ['Paid', deliverBy, 'card', { kind: 'card', cardholder: 'Ada Lovelace', last4: '4242', amount: 25 }, 12.25, 'Gift wrap', `req-${document}-1`, `mcp-${document}`]);
        assert.deepEqual(rows(`SELECT product_id, quantity, CAST(unit_price AS REAL) AS unit_price FROM order_lines WHERE order_id = ${order.id} ORDER BY line`),
          [{ product_id: first, quantity: 2, unit_price: 4.5 }, { product_id: second, quantity: 1, unit_price: 3.25 }]);
        assert.deepEqual(rows(`SELECT stock FROM products WHERE id IN (${first}, ${second}) ORDER BY id`), [{ stock: 28 }, { stock: 29 }]);
      });

      test("create_order: the 201's Location (CreatedAtRoute, an absolute URL) reaches the model beside the answer", async () => {
        const productId = await addProduct('Marbles');
        const [answer, ...more] = await blocks('create_order', { body: { customerEmail: email('located'), deliverBy: day(10), lines: [{ productId, quantity: 1 }], payment: { kind: 'invoice', amount: 12.5, dueDays: 14 } } });
        const id = Number(JSON.parse(answer!).id);
        assert.deepEqual(rows(`SELECT id FROM orders WHERE id = ${id}`), [{ id }]);
        assert.match(more.join('\n'), new RegExp(`^Location: ${shop!.origin}/api/orders/${id}$`, 'im'));
      });

      test('create_order on invoice, without a purchase order: an invoice payment, the order pending', async () => {
        const productId = await addProduct('Jigsaw, 1000 pieces', { price: 17 });
        const customer = email('invoice');
        const answer = success(await tool('create_order', { body: {
          customerEmail: customer, deliverBy: day(45), lines: [{ productId, quantity: 3 }], payment: { kind: 'invoice', amount: 51, dueDays: 30 },
        } }));
        const order = row(`SELECT id, status, payment_kind, payment, CAST(total AS REAL) AS total FROM orders WHERE customer_email = ${quote(customer)}`)!;
        assert.deepEqual([order.id, order.status, order.payment_kind, JSON.parse(order.payment as string), order.total],
          [answer.id, 'Pending', 'invoice', { kind: 'invoice', purchaseOrder: null, dueDays: 30, amount: 51 }, 51]);
      });

      test('get_order: the order as the database has it, its long id exact, its payment with its kind', async () => {
        const productId = await addProduct('Mahjong tiles', { price: 60 });
        const id = await addOrder(email('get'), productId, 1, { kind: 'invoice', amount: 60, purchaseOrder: 'PO-7781', dueDays: 60 });
        assert.ok(id > 2 ** 32, `${id} needs a long`);
        const answer = success(await tool('get_order', { id }));
        const stored = row(`SELECT * FROM orders WHERE id = ${id}`)!;
        assert.deepEqual([answer.id, answer.customerEmail, answer.status, answer.deliverBy, answer.payment, answer.total, answer.createdBy],
          [stored.id, stored.customer_email, stored.status, stored.deliver_by, JSON.parse(stored.payment as string), Number(stored.total), stored.created_by]);
        assert.deepEqual(answer.lines, [{ productId, quantity: 1, unitPrice: 60 }]);
      });

      test("list_orders filtered by status, customer and a date-time, second page of one: the rows the database selects", async () => {
        const productId = await addProduct('Tangram');
        const customer = email('list');
        const ids = [];
        for (const payment of [card, { kind: 'invoice', amount: 12.5, dueDays: 7 }, card]) ids.push(await addOrder(customer, productId, 1, payment));
        const answer = success(await tool('list_orders', { status: 'Paid', customerEmail: customer, placedFrom: '2020-01-01T00:00:00.000Z', page: 2, pageSize: 1 }));
        assert.deepEqual((answer.items as Json[]).map((o) => o.id),
          rows(`SELECT id FROM orders WHERE customer_email = ${quote(customer)} AND status = 'Paid' ORDER BY id LIMIT 1 OFFSET 1`).map((r) => r.id));
        assert.deepEqual([(answer.items as Json[]).map((o) => o.id), answer.total], [[ids[2]], 2]);
        const later = success(await tool('list_orders', { customerEmail: customer, placedFrom: '2099-01-01T00:00:00.000Z' }));
        assert.deepEqual([later.items, later.total], [[], 0]);
      });

      test('update_order_shipment: shipped at the instant the model wrote, with its carrier, the status Shipped', async () => {
        const id = await addOrder(email('ship'), await addProduct('Rubik cube'));
        const answer = success(await tool('update_order_shipment', { id, body: { shippedAt: '2027-04-30T18:00:00.000Z', carrier: 'DHL Express', trackingNumber: null } }));
        assert.equal(answer.status, 'Shipped');
        const order = row(`SELECT status, shipped_at, carrier, tracking_number FROM orders WHERE id = ${id}`)!;
        assert.deepEqual([order.status, Date.parse(order.shipped_at as string), order.carrier, order.tracking_number],
          ['Shipped', Date.parse('2027-04-30T18:00:00.000Z'), 'DHL Express', null]);
      });

      test('delete_order: the order and its lines are gone, its units back in stock', async () => {
        const productId = await addProduct('Dominoes', { stock: 10 });
        const id = await addOrder(email('cancel'), productId, 4);
        assert.equal(row(`SELECT stock FROM products WHERE id = ${productId}`)!.stock, 6);
        assert.deepEqual(success(await tool('delete_order', { id })), { status: 204 });
        assert.deepEqual([rows(`SELECT id FROM orders WHERE id = ${id}`), rows(`SELECT line FROM order_lines WHERE order_id = ${id}`), row(`SELECT stock FROM products WHERE id = ${productId}`)],
          [[], [], { stock: 10 }]);
      });

      test('create_order to be delivered yesterday: the ValidationProblemDetails reason naming DeliverBy, no order', async () => {
        const productId = await addProduct('Late kite');
        const customer = email('late');
        assertError(await tool('create_order', { body: { customerEmail: customer, deliverBy: day(-1), lines: [{ productId, quantity: 1 }], payment: card } }),
          /DeliverBy/, new RegExp(`The delivery day ${day(-1)} is in the past`), /\(HTTP 400\)/);
        assert.deepEqual(rows(`SELECT id FROM orders WHERE customer_email = ${quote(customer)}`), []);
      });

      test("create_order paid by a card whose last4 has two digits: refused naming the card's last4 and its pattern, no order", async () => {
        const productId = await addProduct('Yo-yo');
        const customer = email('last4');
        assertError(await tool('create_order', { body: { customerEmail: customer, deliverBy: day(5), lines: [{ productId, quantity: 1 }], payment: { ...card, last4: '42' } } }),
          /last4/i, /\^\[0-9\]\{4\}\$/);
        assert.deepEqual(rows(`SELECT id FROM orders WHERE customer_email = ${quote(customer)}`), []);
      });

      test('create_order for more than the stock: the 409 ProblemDetails reason, the stock untouched, no order', async () => {
        const productId = await addProduct('Rare puzzle', { stock: 2 });
        const customer = email('short');
        assertError(await tool('create_order', { body: { customerEmail: customer, deliverBy: day(5), lines: [{ productId, quantity: 5 }], payment: card } }),
          /Not enough stock/, new RegExp(`Only 2 of product ${productId} \\(${letters}-\\d{4}\\) in stock; the order asks for 5`), /\(HTTP 409\)/);
        assert.deepEqual([row(`SELECT stock FROM products WHERE id = ${productId}`), rows(`SELECT id FROM orders WHERE customer_email = ${quote(customer)}`)], [{ stock: 2 }, []]);
      });

      test('a wrong API key and an expired token: both refused with HTTP 401, nothing written', async () => {
        const input = productInput('Stranger’s product');
        const stranger = (name: string, args: Json): Promise<Answer> => call(strangers.get(document)!, tools.get(document)!, name, args);
        assertError(await stranger('create_product', { body: input }), /\(HTTP 401\)/);
        assert.deepEqual(rows(`SELECT id FROM products WHERE sku = ${quote(input.sku)}`), []);
        const productId = await addProduct('Guarded');
        const customer = email('stranger');
        assertError(await stranger('create_order', { body: { customerEmail: customer, deliverBy: day(5), lines: [{ productId, quantity: 1 }], payment: card } }), /\(HTTP 401\)/);
        assert.deepEqual([rows(`SELECT id FROM orders WHERE customer_email = ${quote(customer)}`), row(`SELECT stock FROM products WHERE id = ${productId}`)], [[], { stock: 30 }]);
      });

      // Held out: written after the checks above, and run once.
      test("unseen: create_order whose second line names a product that does not exist: the reason naming Lines[1].ProductId, no order, the first line's units not taken", async () => {
        const productId = await addProduct('Kaleidoscope', { stock: 9 });
        const customer = email('missing');
        assertError(await tool('create_order', { body: { customerEmail: customer, deliverBy: day(5), lines: [{ productId, quantity: 2 }, { productId: 1_999_999_999, quantity: 1 }], payment: card } }),
          /Lines\[1\]\.ProductId/, /There is no product 1999999999\./, /\(HTTP 400\)/);
        assert.deepEqual([rows(`SELECT id FROM orders WHERE customer_email = ${quote(customer)}`), row(`SELECT stock FROM products WHERE id = ${productId}`)], [[], { stock: 9 }]);
      });

      test('unseen: list_products by a search outside ASCII, inStock false, a highest price and a category: the rows the database selects (false is sent, not dropped)', async () => {
        const marker = `Straßenbahn № ✓ ${document}`;
        for (const [name, category, price, stock] of [['A', 'Kitchen', 5, 0], ['B', 'Kitchen', 9.99, 0], ['C', 'Kitchen', 10, 0], ['D', 'Kitchen', 4, 3], ['E', 'Garden', 3, 0]] as const) {
          await addProduct(`${marker} ${name}`, { category, price, stock });
        }
        const answer = success(await tool('list_products', { search: marker, inStock: false, maxPrice: 9.99, category: 'Kitchen' }));
        const where = `instr(name, ${quote(marker)}) > 0 AND category = 'Kitchen' AND stock = 0 AND CAST(price AS REAL) <= 9.99`;
        assert.deepEqual((answer.items as Json[]).map((p) => p.name), rows(`SELECT name FROM products WHERE ${where} ORDER BY name, id`).map((r) => r.name));
        assert.deepEqual([(answer.items as Json[]).map((p) => p.name), answer.total], [[`${document} ${marker} A`, `${document} ${marker} B`], 2]);
      });

      if (document === 'nswag') {
        test("the document as published: the upload's caption is a query parameter, which the app ignores (hence the overlay)", async () => {
          const published = await (await fetch(shop!.documentUrl('nswag'))).json() as Json;
          const upload = published.paths['/api/products/{id}/image'].post;
          assert.deepEqual(upload.parameters.filter((p: Json) => p.name === 'caption').map((p: Json) => p.in), ['query']);
          assert.equal(upload.requestBody.content['multipart/form-data'].schema.properties.caption, undefined);
          const id = await addProduct('Captioned in the query');
          const form = new FormData();
          form.set('file', new Blob(['front']), 'front.jpg');
          const response = await fetch(`${shop!.origin}/api/products/${id}/image?caption=Front`, { method: 'POST', headers: { 'x-api-key': shop!.apiKey }, body: form });
          assert.equal(response.status, 200, await response.text());
          assert.deepEqual(row(`SELECT file_name, caption FROM product_images WHERE product_id = ${id}`), { file_name: 'front.jpg', caption: null });
        });
      }
    });
  }
});
