// Parser for `simple` criterion conditions (Arazzo 1.0.1 §"Criterion Object"): literals, runtime
// expressions with `[index]` / `.prop` access, `< <= > >= == != ! && ||` and parentheses.
// The spec gives no precedence; offsetctl uses `!` > comparison > `&&` > `||`, and comparisons
// do not chain (`a < b < c` is a syntax error, not a surprise).

import { ArazzoError } from '../errors.js';
import { scanRuntimeExpression, type RuntimeExpression } from '../expressions/index.js';

export type ComparisonOperator = '<' | '<=' | '>' | '>=' | '==' | '!=';
export type Literal = null | boolean | number | string;

export type ConditionNode =
  | { kind: 'literal'; value: Literal }
  | { kind: 'expression'; expression: RuntimeExpression; access: Array<string | number>; text: string }
  | { kind: 'not'; operand: ConditionNode }
  | { kind: 'and' | 'or'; left: ConditionNode; right: ConditionNode }
  | { kind: 'compare'; operator: ComparisonOperator; left: ConditionNode; right: ConditionNode };

const COMPARISON_OPERATORS: readonly ComparisonOperator[] = ['<=', '>=', '==', '!=', '<', '>'];
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const KEYWORD = /(true|false|null)(?![A-Za-z0-9_$])/y;
const PROPERTY = /[\p{L}\p{N}_$-]+/uy;

// Nesting deeper than this is refused: each level is a recursive call, and a hostile or broken
// document with 10^5 '(' or '!' would otherwise end in a stack overflow instead of a typed error.
const MAX_NESTING = 200;

class ConditionParser {
  pos = 0;
  depth = 0;
  constructor(readonly text: string) {}

  enter(): void {
    if (++this.depth > MAX_NESTING) this.fail(`at most ${MAX_NESTING} nested '(' or '!'`);
  }

  fail(expected: string, at = this.pos): never {
    const found = at < this.text.length ? `'${this.text[at]}'` : 'the end';
    throw new ArazzoError('E_CRITERION', `invalid condition "${this.text}": at character ${at + 1}, expected ${expected} but found ${found}`);
  }

  skipSpace(): void {
    while (/\s/.test(this.text[this.pos] ?? '')) this.pos++;
  }

  startsWith(token: string): boolean {
    this.skipSpace();
    return this.text.startsWith(token, this.pos);
  }

  sticky(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.text);
    if (!match) return undefined;
    this.pos += match[0].length;
    return match[0];
  }

  parseAll(): ConditionNode {
    const node = this.parseOr();
    this.skipSpace();
    if (this.pos < this.text.length) this.fail("an operator ('&&', '||', '==', ...) or the end of the condition");
    return node;
  }

  parseOr(): ConditionNode {
    let left = this.parseAnd();
    while (this.startsWith('||')) {
      this.pos += 2;
      left = { kind: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  parseAnd(): ConditionNode {
    let left = this.parseComparison();
    while (this.startsWith('&&')) {
      this.pos += 2;
      left = { kind: 'and', left, right: this.parseComparison() };
    }
    return left;
  }

  comparisonOperator(): ComparisonOperator | undefined {
    this.skipSpace();
    return COMPARISON_OPERATORS.find((op) => this.text.startsWith(op, this.pos));
  }

  parseComparison(): ConditionNode {
    const left = this.parseUnary();
    const operator = this.comparisonOperator();
    if (!operator) return left;
    this.pos += operator.length;
    const right = this.parseUnary();
    const chained = this.comparisonOperator();
    if (chained) this.fail("'&&' or '||' (comparisons do not chain)");
    return { kind: 'compare', operator, left, right };
  }

  parseUnary(): ConditionNode {
    this.skipSpace();
    if (this.text[this.pos] === '!' && this.text[this.pos + 1] !== '=') {
      this.pos++;
      this.enter();
      const operand = this.parseUnary();
      this.depth--;
      return { kind: 'not', operand };
    }
    return this.parsePrimary();
  }

  parsePrimary(): ConditionNode {
    this.skipSpace();
    const ch = this.text[this.pos];
    if (ch === '(') {
      this.pos++;
      this.enter();
      const inner = this.parseOr();
      this.skipSpace();
      if (this.text[this.pos] !== ')') this.fail("')'");
      this.pos++;
      this.depth--;
      return inner;
    }
    if (ch === "'") return { kind: 'literal', value: this.parseString() };
    if (ch === '"') this.fail("a value (strings use single quotes: 'text')");
    if (ch === '$') return this.parseExpression();
    const number = this.sticky(NUMBER);
    if (number !== undefined) {
      if (/[A-Za-z_$.]/.test(this.text[this.pos] ?? '')) this.fail('a number', this.pos);
      return { kind: 'literal', value: Number(number) };
    }
    const keyword = this.sticky(KEYWORD);
    if (keyword !== undefined) return { kind: 'literal', value: keyword === 'null' ? null : keyword === 'true' };
    return this.fail("a value (a runtime expression, a number, 'string', true, false, null or '(')");
  }

  parseString(): string {
    const open = this.pos;
    let value = '';
    this.pos++;
    for (;;) {
      const quote = this.text.indexOf("'", this.pos);
      if (quote === -1) this.fail(`a closing quote for the string at character ${open + 1}`, this.text.length);
      value += this.text.slice(this.pos, quote);
      if (this.text[quote + 1] === "'") {
        value += "'";
        this.pos = quote + 2;
      } else {
        this.pos = quote + 1;
        return value;
      }
    }
  }

  parseExpression(): ConditionNode {
    const start = this.pos;
    let scanned;
    try {
      scanned = scanRuntimeExpression(this.text, start, 'condition');
    } catch (error) {
      if (!(error instanceof ArazzoError)) throw error;
      throw new ArazzoError('E_CRITERION', `invalid condition "${this.text}": ${error.message.replace(/^invalid runtime expression "[^"]*": /s, '')}`, { cause: error });
    }
    this.pos = scanned.end;
    const access: Array<string | number> = [];
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === '[') {
        this.pos++;
        this.skipSpace();
        if (this.text[this.pos] === "'") access.push(this.parseString());
        else {
          const index = this.sticky(/\d+/y);
          if (index === undefined) this.fail("an index (0, 1, ...) or a 'quoted' property name");
          access.push(Number(index));
        }
        this.skipSpace();
        if (this.text[this.pos] !== ']') this.fail("']'");
        this.pos++;
      } else if (ch === '.') {
        this.pos++;
        const name = this.sticky(PROPERTY);
        if (name === undefined) this.fail('a property name after "."');
        access.push(name);
      } else {
        break;
      }
    }
    return { kind: 'expression', expression: scanned.expression, access, text: this.text.slice(start, this.pos) };
  }
}

/** Parses a simple condition; throws ArazzoError('E_CRITERION') naming the character position. */
export function parseSimpleCondition(text: string): ConditionNode {
  return new ConditionParser(text).parseAll();
}

/** Parses one operand (no `&&`/`||`), as on the right of a jsonpath comparison `$.a.b == 'x'`. */
export function parseConditionOperand(text: string): ConditionNode {
  const parser = new ConditionParser(text);
  const node = parser.parseUnary();
  parser.skipSpace();
  if (parser.pos < text.length) parser.fail('the end of the value');
  return node;
}
