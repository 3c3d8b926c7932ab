import { defineMessages } from './i18n';

/** Why a typed amount was refused (amount-text.ts), in every app that takes amounts. */
export default defineMessages({
  en: {
    'amount.empty': 'Enter an amount, like {example}.',
    'amount.notAmount': '“{text}” is not an amount: type it like {example}.',
    'amount.unclear': '“{text}” is unclear: it would be read as {readAs}. Type {typeAs} if you mean that.',
    'amount.unclearDecimals':
      '“{text}” is unclear: it would be read as {readAs}. Type {typeAs} if you mean that; {unit, select, percent {percentages} other {{unit} amounts}} have {digits} decimals, like {example}.',
    'amount.unclearMark':
      '“{text}” is unclear: it would be read as {readAs}. Type {typeAs} if you mean that, or write the decimals with “{decimal}”, like {example}.',
    'amount.grouping': '“{text}” is unclear: its separators do not group thousands by three. Type it like {example}.',
    'amount.decimals':
      '“{text}” has {count} decimals; {unit, select, percent {percentages} other {{unit} amounts}} have {digits}. Type it like {example}.',
    'amount.whole': '{unit, select, percent {Percentages} other {{unit} amounts}} have no decimals: type a whole number, like {example}.',
  },
  fr: {
    'amount.empty': 'Saisissez un montant, par exemple {example}.',
    'amount.notAmount': '« {text} » n’est pas un montant : saisissez-le sous la forme {example}.',
    'amount.unclear': '« {text} » est ambigu : il serait lu {readAs}. Saisissez {typeAs} si c’est bien ce montant.',
    'amount.unclearDecimals':
      '« {text} » est ambigu : il serait lu {readAs}. Saisissez {typeAs} si c’est bien ce montant ; {unit, select, percent {les pourcentages ont} other {les montants en {unit} ont}} {digits} décimales, par exemple {example}.',
    'amount.unclearMark':
      '« {text} » est ambigu : il serait lu {readAs}. Saisissez {typeAs} si c’est bien ce montant, ou écrivez les décimales avec « {decimal} », par exemple {example}.',
    'amount.grouping': '« {text} » est ambigu : ses séparateurs ne regroupent pas les milliers par trois. Saisissez-le sous la forme {example}.',
    'amount.decimals':
      '« {text} » a {count} décimales ; {unit, select, percent {les pourcentages en ont} other {les montants en {unit} en ont}} {digits}. Saisissez-le sous la forme {example}.',
    'amount.whole': '{unit, select, percent {Les pourcentages n’ont} other {Les montants en {unit} n’ont}} pas de décimales : saisissez un nombre entier, par exemple {example}.',
  },
});
