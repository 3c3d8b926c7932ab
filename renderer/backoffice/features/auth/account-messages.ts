import { defineMessages } from '../../../ui/i18n';

export default defineMessages({
  en: {
    'account.title': 'Your account',
    'account.username': 'Username',
    'account.role': 'Role',
    'account.branch': 'Branch',
    'account.merchant': 'Merchant',
    'account.instanceZone': 'Instance time zone',
    'account.screenZone': 'This screen’s times',
    'account.zonesHint': 'Every time on these screens names its zone. CSV exports are in UTC, and say so in their last column, time_zone.',
    'account.role.teller': 'Teller',
    'account.role.supervisor': 'Supervisor',
    'account.role.finance': 'Finance',
    'account.role.admin': 'Administrator',
  },
  fr: {
    'account.title': 'Votre compte',
    'account.username': 'Identifiant',
    'account.role': 'Rôle',
    'account.branch': 'Agence',
    'account.merchant': 'Marchand',
    'account.instanceZone': 'Fuseau horaire de l’instance',
    'account.screenZone': 'Heures de cet écran',
    'account.zonesHint': 'Chaque heure affichée sur ces écrans indique son fuseau. Les exports CSV sont en UTC, comme l’indique leur dernière colonne, time_zone.',
    'account.role.teller': 'Caissier',
    'account.role.supervisor': 'Superviseur',
    'account.role.finance': 'Finance',
    'account.role.admin': 'Administrateur',
  },
});
