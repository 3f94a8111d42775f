// Package market holds the vocabulary every area shares: identifiers, money,
// actors, the clock and the one error type with its codes.
package market

import (
	"errors"
	"fmt"
)

// Code is a machine-readable error code from CONTRACT.md section 2.
type Code string

// Every error code the service answers with. The domain deals in codes
// only; the HTTP status of each is the edge's business (httpapi.Status).
const (
	CodeValidation            Code = "VALIDATION_ERROR"
	CodeShippingCostRequired  Code = "SHIPPING_COST_REQUIRED"
	CodeUnauthorized          Code = "UNAUTHORIZED"
	CodeInvalidAgentKey       Code = "INVALID_AGENT_KEY"
	CodeInvalidCredentials    Code = "INVALID_CREDENTIALS"
	CodePaymentFailed         Code = "PAYMENT_FAILED"
	CodeSCARequired           Code = "SCA_REQUIRED"
	CodePaymentMethodRequired Code = "PAYMENT_METHOD_REQUIRED"
	CodeForbidden             Code = "FORBIDDEN"
	CodeInsufficientScope     Code = "INSUFFICIENT_SCOPE"
	CodeAgentFrozen           Code = "AGENT_FROZEN"
	CodeOwnerNotVerified      Code = "OWNER_NOT_VERIFIED"
	CodeSpendingLimitExceeded Code = "SPENDING_LIMIT_EXCEEDED"
	CodeCategoryRestricted    Code = "CATEGORY_RESTRICTED"
	CodeAccountSuspended      Code = "ACCOUNT_SUSPENDED"
	CodeCannotBuyOwnListing   Code = "CANNOT_BUY_OWN_LISTING"
	CodeApprovalRequired      Code = "APPROVAL_REQUIRED"
	CodeRateLimited           Code = "RATE_LIMITED"
	CodeListingNotFound       Code = "LISTING_NOT_FOUND"
	CodeNotFound              Code = "NOT_FOUND"
	CodeListingNotAvailable   Code = "LISTING_NOT_AVAILABLE"
	CodeListingSold           Code = "LISTING_SOLD"
	CodePriceChanged          Code = "PRICE_CHANGED"
	CodeMaxPriceExceeded      Code = "MAX_PRICE_EXCEEDED"
	CodeDuplicateRequest      Code = "DUPLICATE_REQUEST"
	CodeActiveOfferExists     Code = "ACTIVE_OFFER_EXISTS"
	CodeMaxRoundsReached      Code = "MAX_ROUNDS_REACHED"
	CodeOfferExpired          Code = "OFFER_EXPIRED"
	CodeOfferNotAccepted      Code = "OFFER_NOT_ACCEPTED"
	CodeInvalidState          Code = "INVALID_STATE"
	CodeEmailTaken            Code = "EMAIL_TAKEN"
	CodeUsernameTaken         Code = "USERNAME_TAKEN"
	CodeOffersDisabled        Code = "OFFERS_DISABLED"
	CodeBelowMinimum          Code = "BELOW_MINIMUM"
	CodeListingRestricted     Code = "LISTING_RESTRICTED"
	CodePayloadTooLarge       Code = "PAYLOAD_TOO_LARGE"
	CodeMethodNotAllowed      Code = "METHOD_NOT_ALLOWED"
	CodeInternal              Code = "INTERNAL_ERROR"
	CodeUnavailable           Code = "SERVICE_UNAVAILABLE"
	CodeFeatureDisabled       Code = "FEATURE_DISABLED"
)

// allCodes lists every code once.
var allCodes = []Code{
	CodeValidation,
	CodeShippingCostRequired,
	CodeUnauthorized,
	CodeInvalidAgentKey,
	CodeInvalidCredentials,
	CodePaymentFailed,
	CodeSCARequired,
	CodePaymentMethodRequired,
	CodeForbidden,
	CodeInsufficientScope,
	CodeAgentFrozen,
	CodeOwnerNotVerified,
	CodeSpendingLimitExceeded,
	CodeCategoryRestricted,
	CodeAccountSuspended,
	CodeCannotBuyOwnListing,
	CodeApprovalRequired,
	CodeRateLimited,
	CodeListingNotFound,
	CodeNotFound,
	CodeListingNotAvailable,
	CodeListingSold,
	CodePriceChanged,
	CodeMaxPriceExceeded,
	CodeDuplicateRequest,
	CodeActiveOfferExists,
	CodeMaxRoundsReached,
	CodeOfferExpired,
	CodeOfferNotAccepted,
	CodeInvalidState,
	CodeEmailTaken,
	CodeUsernameTaken,
	CodeOffersDisabled,
	CodeBelowMinimum,
	CodeListingRestricted,
	CodePayloadTooLarge,
	CodeMethodNotAllowed,
	CodeInternal,
	CodeUnavailable,
	CodeFeatureDisabled,
}

// Codes lists every code, for documents and tests that must cover them all.
func Codes() []Code { return append([]Code(nil), allCodes...) }

// FieldError names one invalid input field. Field is canonical: snake_case,
// dotted for nested fields ("spending_controls.daily_limit",
// "shipping_address.line1", "photos[2]"); each surface spells it its own
// way. AsSent marks a name taken from the request as the client spelled it
// (a JSON key, a query parameter), which every surface repeats unchanged.
type FieldError struct {
	Field   string
	Message string
	AsSent  bool
}

// Error is the one error type that crosses area boundaries. Message is safe
// to show to the caller; the wrapped cause never is.
type Error struct {
	Code    Code
	Message string
	Details map[string]any
	Fields  []FieldError
	cause   error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.cause }

// Errorf makes an Error with a formatted, caller-safe message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails returns e with details attached.
func (e *Error) WithDetails(d map[string]any) *Error {
	e.Details = d
	return e
}

// Invalid is a VALIDATION_ERROR naming the bad fields.
func Invalid(fields ...FieldError) *Error {
	msg := "request validation failed"
	if len(fields) == 1 {
		msg = fields[0].Field + ": " + fields[0].Message
	}
	return &Error{Code: CodeValidation, Message: msg, Fields: fields}
}

// NotFound is the NOT_FOUND error for a resource kind ("user", "agent key").
func NotFound(what string) *Error {
	return Errorf(CodeNotFound, "%s not found", what)
}

// Internal wraps an unexpected failure; its message never reaches the caller.
func Internal(cause error) *Error {
	return &Error{Code: CodeInternal, Message: "internal error", cause: cause}
}

// ErrorOf returns err as an *Error, treating anything unknown as internal.
func ErrorOf(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

// CodeOf is the code of err, or "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	return ErrorOf(err).Code
}
