/** A cart document of at least `minChars` characters (line items included), its token `T-secret`: for the sealing test and bench. */
export function largeCart(minChars: number): string {
  const included: object[] = [];
  let text = '';
  while (text.length < minChars) {
    const i = included.length;
    included.push({ id: String(i), type: 'line_item', attributes: { name: `Product ${i}`, price: '19.99', quantity: 1, slug: `product-${i}-with-a-long-slug` } });
    text = JSON.stringify({ data: { id: '1', type: 'cart', attributes: { number: 'R100000001', token: 'T-secret', item_count: included.length } }, included });
  }
  return text;
}
