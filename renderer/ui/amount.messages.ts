import { defineMessages } from './i18n';

/**
 * Why a typed amount or percentage is refused (renderer/ui/amount.ts). Arguments: `typed` (as
 * entered), `example` (an example in the person's format), `unit` (a currency code, or `percent`),
 * and per message `reading` and `retyped` (how an unclear entry would be read and typed),
 * `decimal` (the locale's decimal mark), `count` and `digits` (decimals typed and allowed).
 */
export default defineMessages({
  en: {
    'amount.empty': 'Enter an amount, like {example}.',
    'amount.notAnAmount': '“{typed}” is not an amount: type it like {example}.',
    'amount.unclear': '“{typed}” is unclear: it would be read as {reading}. Type {retyped} if you mean that.',
    'amount.unclearDecimals':
      '“{typed}” is unclear: it would be read as {reading}. Type {retyped} if you mean that; {unit, select, percent {percentages} other {{unit} amounts}} have {digits} decimals, like {example}.',
    'amount.unclearMark': '“{typed}” is unclear: it would be read as {reading}. Type {retyped} if you mean that, or write the decimals with “{decimal}”, like {example}.',
    'amount.badGrouping': '“{typed}” is unclear: its separators do not group thousands by three. Type it like {example}.',
    'amount.tooManyDecimals': '“{typed}” has {count} decimals; {unit, select, percent {percentages} other {{unit} amounts}} have {digits}. Type it like {example}.',
    'amount.noDecimals': '{unit, select, percent {Percentages} other {{unit} amounts}} have no decimals: type a whole number, like {example}.',
  },
  fr: {
    'amount.empty': 'Saisissez un montant, par exemple {example}.',
    'amount.notAnAmount': '« {typed} » n’est pas un montant : saisissez-le sous la forme {example}.',
    'amount.unclear': '« {typed} » est ambigu : il serait lu {reading}. Saisissez {retyped} si c’est bien ce montant.',
    'amount.unclearDecimals':
      '« {typed} » est ambigu : il serait lu {reading}. Saisissez {retyped} si c’est bien ce montant ; {unit, select, percent {les pourcentages ont} other {les montants en {unit} ont}} {digits} décimales, par exemple {example}.',
    'amount.unclearMark': '« {typed} » est ambigu : il serait lu {reading}. Saisissez {retyped} si c’est bien ce montant, ou écrivez les décimales avec « {decimal} », par exemple {example}.',
    'amount.badGrouping': '« {typed} » est ambigu : ses séparateurs ne groupent pas les milliers par trois. Saisissez-le sous la forme {example}.',
    'amount.tooManyDecimals':
      '« {typed} » a {count} décimales ; {unit, select, percent {les pourcentages en ont} other {les montants en {unit} en ont}} {digits}. Saisissez-le sous la forme {example}.',
    'amount.noDecimals': '{unit, select, percent {Les pourcentages n’ont} other {Les montants en {unit} n’ont}} pas de décimales : saisissez un nombre entier, par exemple {example}.',
  },
});
