package acpcheck

// Definitions from schema.delegate_payment.json (ACP 2026-04-17). This bundle
// has its own Address (length limits, no company) and Error (its own type and
// code enums), distinct from the checkout ones.

var dpAddress = object(closed, req("name", "line_one", "city", "state", "country", "postal_code"),
	prop("name", str(maxLen(256))),
	prop("line_one", str(maxLen(60))),
	prop("line_two", str(maxLen(60))),
	prop("city", str(maxLen(60))),
	prop("state", str()),
	prop("country", str(minLen(2), maxLen(2))),
	prop("postal_code", str(maxLen(20))),
)

var dpPaymentMethodCard = object(closed,
	req("type", "card_number_type", "number", "display_card_funding_type", "metadata"),
	prop("type", str(konst("card"))),
	prop("card_number_type", str(enum("fpan", "network_token"))),
	prop("number", str()),
	prop("exp_month", str(maxLen(2))),
	prop("exp_year", str(maxLen(4))),
	prop("name", str()),
	prop("cvc", str(maxLen(4))),
	prop("cryptogram", str()),
	prop("eci_value", str(maxLen(2))),
	prop("checks_performed", array(str(enum("avs", "cvv", "ani", "auth0")))),
	prop("iin", str(maxLen(8))),
	prop("display_card_funding_type", str(enum("credit", "debit", "prepaid"))),
	prop("display_wallet_type", str()),
	prop("display_brand", str()),
	prop("display_last4", str(minLen(4), maxLen(4), pattern(`^[0-9]{4}$`))),
	prop("metadata", object(extra(str()))),
	prop("virtual", boolean()),
)

var dpAllowance = object(closed,
	req("reason", "max_amount", "currency", "checkout_session_id", "merchant_id", "expires_at"),
	prop("reason", str(enum("one_time"))),
	prop("max_amount", integer()),
	prop("currency", str(currencyCode)),
	prop("checkout_session_id", str()),
	prop("merchant_id", str(maxLen(256))),
	prop("expires_at", dateTime()),
)

var dpRiskSignal = object(closed, req("type", "score", "action"),
	prop("type", str(enum("card_testing"))),
	prop("score", integer()),
	prop("action", str(enum("blocked", "manual_review", "authorized"))),
)

var dpRequest = object(closed, req("payment_method", "allowance", "risk_signals", "metadata"),
	prop("payment_method", dpPaymentMethodCard),
	prop("allowance", dpAllowance),
	prop("billing_address", dpAddress),
	prop("risk_signals", array(dpRiskSignal)),
	prop("metadata", object(extra(str()))),
)

var dpResponse = object(closed, req("id", "created", "metadata"),
	prop("id", str()),
	prop("created", dateTime()),
	prop("metadata", object(extra(str()))),
)

var (
	dpErrorTypes = []string{"invalid_request", "rate_limit_exceeded", "processing_error", "service_unavailable"}
	dpErrorCodes = []string{"invalid_card", "duplicate_request", "idempotency_conflict", "too_many_requests",
		"idempotency_key_required", "idempotency_in_flight"}
)

var dpError = object(closed, req("type", "code", "message"),
	prop("type", str(enum(dpErrorTypes...))),
	prop("code", str(enum(dpErrorCodes...))),
	prop("message", str()),
	prop("param", str()),
	prop("supported_versions", array(str(pattern(versionPattern)))),
)

// DelegatePaymentRequest validates a delegate_payment request body.
func DelegatePaymentRequest(body []byte) error { return check(dpRequest, body) }

// DelegatePaymentResponse validates a delegate_payment 201 response body.
func DelegatePaymentResponse(body []byte) error { return check(dpResponse, body) }

// DelegatePaymentError validates a delegate_payment error object.
func DelegatePaymentError(body []byte) error { return check(dpError, body) }
