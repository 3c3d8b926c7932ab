import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation';
import * as m0002 from './0002_seed_banks';
import * as m0003 from './0003_checkout';
import * as m0004 from './0004_webhook_deliveries';
import * as m0005 from './0005_backoffice';
import * as m0006 from './0006_webhook_attempt_headers';
import * as m0007 from './0007_invoice_collected';
import * as m0008 from './0008_webhook_held_deliveries';
import * as m0009 from './0009_auth_hardening';
import * as m0010 from './0010_slip_reference_key';
import * as m0011 from './0011_finance_search_api_key_names';
import * as m0012 from './0012_insertion_order';
import * as m0013 from './0013_periodic_query_indexes';
import * as m0014 from './0014_retention';
import * as m0015 from './0015_audit_truncate_guard';
import * as m0016 from './0016_session_search_trigrams';
import * as m0017 from './0017_invoice_summaries';
import * as m0019 from './0019_attempt_write_indexes';
import * as m0020 from './0020_session_search_async';
import * as m0021 from './0021_invoice_summary_deltas';
import * as m0023 from './0023_attempt_provider_reference_partial';
import * as m0024 from './0024_invoice_lines_key_order';
import * as m0025 from './0025_session_search_ranges';
import * as m0026 from './0026_session_search_by_day';
import * as m0027 from './0027_webhook_attempt_log_lean';
import * as m0028 from './0028_session_search_window';
import * as m0029 from './0029_session_search_window_in_order';
import * as m0030 from './0030_session_amount_pairs';
import * as m0031 from './0031_session_search_range_merchants';
import * as m0032 from './0032_session_search_noted_by_rowid';
import * as m0033 from './0033_session_search_lower_case';
import * as m0034 from './0034_fee_rule_currency';
import * as m0035 from './0035_throttle_keys_merchant_trigrams';
import * as m0037 from './0037_finance_day_totals';
import * as m0038 from './0038_exception_reviews';
import * as m0039 from './0039_receipt_numbers_staff_names';
import * as m0040 from './0040_cash_ups';
import * as m0041 from './0041_integration_momo_countries';
import * as m0042 from './0042_staff_language';
import * as m0043 from './0043_invoice_mode_sort_indexes';
import * as m0044 from './0044_setup_links';
import * as m0045 from './0045_session_search_probes_on_index';
import * as m0046 from './0046_slip_reference_keys_mended';

/**
 * Every migration, in order. Append only: the runner refuses to start when the applied
 * list is not a prefix of this one (Kysely's default ordering check).
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_seed_banks': m0002,
  '0003_checkout': m0003,
  '0004_webhook_deliveries': m0004,
  '0005_backoffice': m0005,
  '0006_webhook_attempt_headers': m0006,
  '0007_invoice_collected': m0007,
  '0008_webhook_held_deliveries': m0008,
  '0009_auth_hardening': m0009,
  '0010_slip_reference_key': m0010,
  '0011_finance_search_api_key_names': m0011,
  '0012_insertion_order': m0012,
  '0013_periodic_query_indexes': m0013,
  '0014_retention': m0014,
  '0015_audit_truncate_guard': m0015,
  '0016_session_search_trigrams': m0016,
  '0017_invoice_summaries': m0017,
  '0019_attempt_write_indexes': m0019,
  '0020_session_search_async': m0020,
  '0021_invoice_summary_deltas': m0021,
  '0023_attempt_provider_reference_partial': m0023,
  '0024_invoice_lines_key_order': m0024,
  '0025_session_search_ranges': m0025,
  '0026_session_search_by_day': m0026,
  '0027_webhook_attempt_log_lean': m0027,
  '0028_session_search_window': m0028,
  '0029_session_search_window_in_order': m0029,
  '0030_session_amount_pairs': m0030,
  '0031_session_search_range_merchants': m0031,
  '0032_session_search_noted_by_rowid': m0032,
  '0033_session_search_lower_case': m0033,
  '0034_fee_rule_currency': m0034,
  '0035_throttle_keys_merchant_trigrams': m0035,
  '0037_finance_day_totals': m0037,
  '0038_exception_reviews': m0038,
  '0039_receipt_numbers_staff_names': m0039,
  '0040_cash_ups': m0040,
  '0041_integration_momo_countries': m0041,
  '0042_staff_language': m0042,
  '0043_invoice_mode_sort_indexes': m0043,
  '0044_setup_links': m0044,
  '0045_session_search_probes_on_index': m0045,
  '0046_slip_reference_keys_mended': m0046,
};
